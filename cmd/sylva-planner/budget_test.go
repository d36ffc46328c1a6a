package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestARunawayTemplateEndsWithOneLine runs the binary on templates that
// recurse without end, allocate without end or loop: each ends within the
// render budget with exit 1 and one line, never with a Go crash report or
// a gate code (a Go runtime crash exits 2, the code for "blocked").
func TestARunawayTemplateEndsWithOneLine(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	recursive := write("recursive.yaml", "x: \"{{ tpl .Values.x . }}\"\n")
	huge := write("huge.yaml", "y: \"{{ range until 100000000 }}a{{ end }}\"\n")
	slow := write("slow.yaml", "z: \"{{ range until 100000 }}{{ range until 100000 }}{{ end }}{{ end }}\"\n")
	ok := write("ok.yaml", "a: '{{ \"b\" }}'\n")
	tests := []struct {
		name string
		args []string
		code int
		want string // in the one line on stderr
	}{
		{name: "a template that includes itself", args: []string{"values", "render", "-f", recursive}, code: exitError, want: "the template render crashed"},
		{name: "a template that allocates gigabytes", args: []string{"values", "render", "-f", huge, "--render-memory", "1GiB"}, code: exitError, want: "--render-memory 1 GiB"},
		{name: "a template that loops past --render-timeout", args: []string{"values", "render", "-f", slow, "--render-timeout", "2s"}, code: exitError, want: "did not finish within --render-timeout 2s"},
		{name: "values check --fail-on never on a recursive template exits 1, not 2", args: []string{"values", "check", "-f", recursive, "--from", "1.4", "--to", "1.6", "--fail-on", "never"}, code: exitError, want: "the template render crashed"},
		{name: "a good template renders as before", args: []string{"values", "render", "-f", ok}, code: exitOK},
		{name: "the child's own input errors keep their exit code and line", args: []string{"values", "render", "-f", filepath.Join(dir, "missing.yaml")}, code: exitError, want: "-f: stat"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			cmd := exec.Command(bin, tt.args...)
			cmd.Stdout, cmd.Stderr = &out, &errOut
			_ = cmd.Run()
			if code := cmd.ProcessState.ExitCode(); code != tt.code {
				t.Fatalf("exit %d, want %d\nstderr: %.500s", code, tt.code, errOut.String())
			}
			if tt.code == exitOK {
				if !strings.Contains(out.String(), "a: b") {
					t.Errorf("stdout %q", out.String())
				}
				return
			}
			if strings.Count(errOut.String(), "\n") != 1 || !strings.Contains(errOut.String(), tt.want) {
				t.Errorf("stderr is not one line with %q: %.500s", tt.want, errOut.String())
			}
		})
	}
}

// panickingWriter panics on write, standing for any bug in a command.
type panickingWriter struct{}

func (panickingWriter) Write([]byte) (int, error) { panic("a bug\nover two lines") }

func TestAPanicIsAnOperationalErrorNotAGateCode(t *testing.T) {
	var errOut bytes.Buffer
	code := runIn(t.Context(), "", []string{"sylva-planner", "version"}, panickingWriter{}, &errOut, func(string) string { return "" })
	if code != exitError || strings.Count(errOut.String(), "\n") != 1 || !strings.Contains(errOut.String(), "internal error: a bug over two lines") {
		t.Errorf("exit %d, stderr %q; want 1 and one line", code, errOut.String())
	}
}
