package cliapp

import (
	"os"
	"testing"
)

// Status marks are for a terminal without NO_COLOR: a pipe, a file, NO_COLOR
// or TERM=dumb get ASCII words.
func TestTerminalMarksOnlyOnATerminal(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _, _ = r.Close(), w.Close() }()
	if TerminalMarks(w, func(string) string { return "" }) {
		t.Error("TerminalMarks(pipe) = true, want false")
	}
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		defer func() { _ = tty.Close() }()
		if !TerminalMarks(tty, func(string) string { return "" }) {
			t.Error("TerminalMarks(/dev/tty) = false, want true")
		}
		for _, env := range []map[string]string{{"NO_COLOR": "1"}, {"TERM": "dumb"}} {
			if TerminalMarks(tty, func(k string) string { return env[k] }) {
				t.Errorf("TerminalMarks(/dev/tty) with %v = true, want false", env)
			}
		}
	}
}
