package cliapp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"
)

// hostile is what a status value or a container image may hold: a screen
// clear, a window title, a green "verdict: ready" over the line, a
// carriage return, a C1 CSI and a right-to-left override.
const hostile = "web:1.0\x1b[2J\x1b]0;pwned\x07\x1b[32mverdict: ready\x1b[0m\rOK\u009b2J\u202egnp.exe"

const hostileShown = `web:1.0\x1b[2J\x1b]0;pwned\x07\x1b[32mverdict: ready\x1b[0m\rOK\u009b2J\u202egnp.exe`

// runWriters runs a one-command application that writes ws in the format
// of -o, and returns stdout.
func runWriters(t *testing.T, ws Writers, marks bool, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	app := &cli.App{
		Name: "toy", Writer: &out, ErrWriter: &errOut, ExitErrHandler: func(*cli.Context, error) {},
		Commands: []*cli.Command{{
			Name: "go", ArgsUsage: " ",
			Flags:  []cli.Flag{OutputFlag(FormatTable, FormatJSON, FormatMarkdown, FormatHTML)},
			Action: func(c *cli.Context) error { return WriteOutput(c, ws) },
		}},
	}
	Conventions(app)
	e := NewEnv(t.TempDir(), &out, &errOut, func(string) string { return "" }, func() time.Time { return time.Unix(0, 0) })
	e.Marks = marks
	if code := Run(context.Background(), e, app, append([]string{"toy", "go"}, args...), Completer{}); code != ExitOK {
		t.Fatalf("exit %d, stderr %q", code, errOut.String())
	}
	return out.String()
}

// TestWriteAsShowsControlsInTextOutputs: a table, Markdown and HTML show
// the controls of a value from outside as escapes, with the tool's own
// marks and arrows kept; JSON is written as its encoder writes it.
func TestWriteAsShowsControlsInTextOutputs(t *testing.T) {
	text := func(w io.Writer) error {
		_, err := io.WriteString(w, "✔ image "+hostile+"\t1.4 → 1.6\n")
		return err
	}
	raw := "{\"image\": \"\u202e\"}\n"
	ws := Writers{FormatTable: text, FormatMarkdown: text, FormatHTML: text, FormatJSON: func(w io.Writer) error {
		_, err := io.WriteString(w, raw)
		return err
	}}
	for _, tt := range []struct {
		name  string
		marks bool
		args  []string
		want  string
	}{
		{"a table on a terminal", true, nil, "✔ image " + hostileShown + "\t1.4 → 1.6\n"},
		{"a table in a pipe", false, nil, "OK   image " + hostileShown + "\t1.4 → 1.6\n"},
		{"markdown", false, []string{"-o", "markdown"}, "✔ image " + hostileShown + "\t1.4 → 1.6\n"},
		{"html", false, []string{"-o", "html"}, "✔ image " + hostileShown + "\t1.4 → 1.6\n"},
		{"json is left to its encoder", false, []string{"-o", "json"}, raw},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := runWriters(t, ws, tt.marks, tt.args...); got != tt.want {
				t.Errorf("stdout = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestRunShowsControlsOnStderr: the error line and whatever a command
// writes to Env.Stderr (progress, warnings) show controls as escapes.
func TestRunShowsControlsOnStderr(t *testing.T) {
	code, stderr := runToy(t, context.Background(), func(c *cli.Context) error {
		p := &Progress{w: EnvOf(c).Stderr, what: "render", now: time.Now, start: time.Now()}
		p.Say("image %s", hostile)
		return errors.New("status value " + hostile)
	})
	if code != ExitError {
		t.Errorf("exit %d, want 1", code)
	}
	if strings.ContainsAny(stderr, "\x1b\x07\r\u009b\u202e") || strings.Count(stderr, hostileShown) != 2 {
		t.Errorf("stderr = %q, want the value shown twice as %q", stderr, hostileShown)
	}
}

// TestVisibleWriterKeepsACutCharacterWhole: a character whose UTF-8 bytes
// come in two writes is shown as itself, not as two bad bytes.
func TestVisibleWriterKeepsACutCharacterWhole(t *testing.T) {
	var buf bytes.Buffer
	w := VisibleWriter(&buf)
	arrow := []byte("a → b ✔\n")
	for i := range arrow {
		if _, err := w.Write(arrow[i : i+1]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Write([]byte("\xe2\x86x\xff\n")); err != nil {
		t.Fatal(err)
	}
	w.(*visibleWriter).flush()
	if want := "a → b ✔\n\\xe2\\x86x\\xff\n"; buf.String() != want {
		t.Errorf("written %q, want %q", buf.String(), want)
	}
	if VisibleWriter(w) != w {
		t.Error("VisibleWriter(VisibleWriter(w)) wraps twice")
	}
}

// TestRouteStdLogShowsControls: Helm's warnings quote values; their
// controls are shown as escapes.
func TestRouteStdLogShowsControls(t *testing.T) {
	defer func(w io.Writer, flags int, prefix string) {
		log.SetOutput(w)
		log.SetFlags(flags)
		log.SetPrefix(prefix)
	}(log.Writer(), log.Flags(), log.Prefix())
	var buf bytes.Buffer
	RouteStdLog(&buf, "sylva-planner: ")
	log.Printf("warning: value %s", hostile)
	if want := "sylva-planner: warning: value " + hostileShown + "\n"; buf.String() != want {
		t.Errorf("log output = %q, want %q", buf.String(), want)
	}
}
