package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gitlab.com/sylva-projects/sylva-planner/cliapp"
)

// buildBinary builds the binary into dir under name and returns its path.
func buildBinary(t *testing.T, dir, name string) string {
	t.Helper()
	bin := filepath.Join(dir, name)
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		t.Fatal(err)
	}
	return bin
}

// TestBashCompletion drives real bash: the script of `completion bash`
// sourced, COMP_WORDS and COMP_CWORD set as bash sets them at a TAB, the
// completion function called, COMPREPLY read.
func TestBashCompletion(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	bin := buildBinary(t, dir, "sylva-planner")
	script, err := exec.Command(bin, "completion", "bash").Output()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "completion.bash"), script, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "values.yaml"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		words []string // the last one is the word at the cursor
		want  string   // COMPREPLY, space-separated
	}{
		{"a partial flag completes", []string{"sylva-planner", "plan", "--fr"}, "--from"},
		{"a partial release completes from the catalog", []string{"sylva-planner", "plan", "--to", "1."}, "1.0 1.1 1.2 1.3 1.4 1.5 1.6 1.7"},
		{"a partial output format completes", []string{"sylva-planner", "plan", "-o", "j"}, "json"},
		{"--workers offers Kubernetes minors, not Sylva releases", []string{"sylva-planner", "plan", "--workers", ""}, "1.25 1.26 1.27 1.28 1.29 1.30 1.31 1.32 1.33 1.34 1.35"},
		{"a command completes", []string{"sylva-planner", "pl"}, "plan"},
		{"a subcommand completes", []string{"sylva-planner", "values", "ch"}, "check"},
		{"a flag after other flags completes", []string{"sylva-planner", "plan", "--from", "1.4", "--to", "1.6", "--ou"}, "--output"},
		{"a file flag completes file names", []string{"sylva-planner", "prune-audit", "-f", "val"}, "values.yaml"},
		{"the kubectl plugin completes the same", []string{"kubectl-sylva_planner", "status", "-o", "y"}, "yaml"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			words := make([]string, len(tt.words))
			for i, w := range tt.words {
				words[i] = "'" + w + "'"
			}
			drive := "source completion.bash\n" +
				"COMP_WORDS=(" + strings.Join(words, " ") + ")\n" +
				"COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))\n" +
				"COMP_LINE=\"${COMP_WORDS[*]}\"; COMP_POINT=${#COMP_LINE}\n" +
				"_sylva_planner_complete\n" +
				"echo \"${COMPREPLY[*]}\"\n"
			cmd := exec.Command(bash, "--norc", "--noprofile", "-c", drive)
			cmd.Dir = dir
			// The binary answers under both names, as bash and kubectl run it.
			if err := os.Symlink(bin, filepath.Join(dir, cliapp.PluginName)); err != nil && !os.IsExist(err) {
				t.Fatal(err)
			}
			cmd.Env = append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("bash: %v\n%s", err, out)
			}
			if got := strings.TrimSpace(string(out)); got != tt.want {
				t.Errorf("COMPREPLY for %q = %q, want %q", tt.words, got, tt.want)
			}
		})
	}
}

// kubectl completes `kubectl sylva-planner …` by running
// kubectl_complete-sylva_planner with the words after the plugin's name and
// the word at the cursor, and reads cobra's format: a candidate a line,
// then ":directive".
func TestKubectlPluginCompletion(t *testing.T) {
	dir := t.TempDir()
	bin := buildBinary(t, dir, cliapp.PluginBinary)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"plan", "--fr"}, "--from\n:4\n"},
		{[]string{"plan", "--to", "1.6"}, "1.6\n:4\n"},
		{[]string{"status", "-f", ""}, ":0\n"},
		{[]string{""}, "plan\nreport\ncatalog\nstatus\ndrain-check\nprune-audit\nci-matrix\nverify\nvalues\nreconcile\ncontroller\nversion\ncompletion\n:4\n"},
	} {
		out, err := exec.Command(bin, tt.args...).Output()
		if err != nil {
			t.Fatalf("%s %q: %v", cliapp.PluginBinary, tt.args, err)
		}
		if string(out) != tt.want {
			t.Errorf("%s %q = %q, want %q", cliapp.PluginBinary, tt.args, out, tt.want)
		}
	}
}
