package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/klog/v2"
)

// failingWriter is a standard output that refuses every write, as
// /dev/full does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestAFailedStdoutExitsOneAndChangesNoFile runs commands whose standard
// output cannot be written: each exits 1 with one line, and the metrics
// file keeps its previous content (it is written only after stdout).
func TestAFailedStdoutExitsOneAndChangesNoFile(t *testing.T) {
	dir := t.TempDir()
	metrics := filepath.Join(dir, "gate.prom")
	if err := os.WriteFile(metrics, []byte("previous\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
	}{
		{name: "version to a full device exits 1", args: []string{"version"}},
		{name: "plan to a full device exits 1 and keeps the metrics file", args: []string{"plan", "--from", "1.4", "--to", "1.6", "--metrics-file", metrics}},
		{name: "report to a full device exits 1 and keeps the metrics file", args: []string{"report", "--from", "1.4", "--to", "1.6", "--metrics-file", metrics}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var errOut bytes.Buffer
			code := runIn(context.Background(), dir, append([]string{"sylva-planner"}, tt.args...), failingWriter{}, &errOut, func(string) string { return "" })
			if code != exitError || strings.Count(errOut.String(), "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want 1 and one line", code, errOut.String())
			}
			if got, _ := os.ReadFile(metrics); string(got) != "previous\n" {
				t.Errorf("metrics file changed: %q", got)
			}
		})
	}
}

// TestKlogIsSilent checks that what client-go logs through klog (warnings
// of the API server, discovery retries) does not reach the process's
// stderr once a command ran.
func TestKlogIsSilent(t *testing.T) {
	runIn(context.Background(), "", []string{"sylva-planner", "version"}, io.Discard, io.Discard, func(string) string { return "" })
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := os.Stderr
	os.Stderr = w
	klog.Warning("a stray client-go line")
	klog.Flush()
	os.Stderr = stderr
	_ = w.Close()
	got, _ := io.ReadAll(r)
	if len(got) != 0 {
		t.Errorf("klog wrote to stderr: %q", got)
	}
}
