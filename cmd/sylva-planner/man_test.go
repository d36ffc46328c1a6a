package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

func TestManWritesAPageForEveryCommandWithItsFlags(t *testing.T) {
	dir := t.TempDir()
	var stderr bytes.Buffer
	if code := runIn(context.Background(), dir, []string{"sylva-planner", "man", "pages"}, io.Discard, &stderr, func(string) string { return "" }); code != exitOK {
		t.Fatalf("man pages: exit %d: %s", code, stderr.String())
	}
	read := func(name string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, "pages", name))
		if err != nil {
			t.Fatalf("man page %s: %v", name, err)
		}
		return string(b)
	}
	if main := read("sylva-planner.1"); !strings.Contains(main, ".TH sylva-planner 1") || !strings.Contains(main, "--max-input-size") {
		t.Errorf("sylva-planner.1 lacks its header or the global flags:\n%s", main)
	}
	var check func(path []string, cmds []*cli.Command)
	check = func(path []string, cmds []*cli.Command) {
		for _, c := range cmds {
			if c.Hidden {
				continue
			}
			p := append(append([]string{}, path...), c.Name)
			page := read(strings.Join(p, "-") + ".1")
			if !strings.Contains(page, strings.Join(p, " ")) {
				t.Errorf("%s.1 does not show the command line %q", strings.Join(p, "-"), strings.Join(p, " "))
			}
			for _, f := range c.VisibleFlags() {
				if name := "--" + f.Names()[0]; !strings.Contains(page, name) {
					t.Errorf("%s.1 does not mention %s", strings.Join(p, "-"), name)
				}
			}
			check(p, c.Subcommands)
		}
	}
	app := newApp(io.Discard, io.Discard)
	check([]string{app.Name}, app.Commands)
	if strings.Contains(read("sylva-planner.1"), "man - write the man pages") {
		t.Error("the hidden man command is documented in its own pages")
	}
}

func TestHelpReadsAsKubectlSylvaPlannerWhenRunAsTheKubectlPlugin(t *testing.T) {
	run := func(argv0 string, args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := runIn(context.Background(), "", append([]string{argv0}, args...), &out, &errOut, func(string) string { return "" })
		return code, out.String(), errOut.String()
	}
	_, out, _ := run("/usr/local/bin/kubectl-sylva_planner", "plan", "--help")
	for _, want := range []string{"kubectl sylva-planner plan [command options]", "Example: kubectl sylva-planner plan --from 1.4 --to 1.6 -o json"} {
		if !strings.Contains(out, want) {
			t.Errorf("kubectl-sylva_planner plan --help lacks %q:\n%s", want, out)
		}
	}
	_, _, errOut := run("kubectl-sylva_planner", "plan", "--frm", "1.4")
	if !strings.Contains(errOut, "run 'kubectl sylva-planner plan --help'") {
		t.Errorf("usage error hint = %q, want the kubectl form", errOut)
	}
	_, out, _ = run("kubectl-sylva_planner", "plan", "--from", "1.5", "--to", "1.7", "--workers", "1.29", "--as-of", "2026-11-30")
	if !strings.Contains(out, "run again: kubectl sylva-planner plan --from 1.5 --to 1.7 --workers 1.29 --as-of 2026-11-30\n") {
		t.Errorf("Next is not the kubectl form:\n%s", out)
	}
	_, out, _ = run("sylva-planner", "plan", "--help")
	if strings.Contains(out, "kubectl sylva-planner") {
		t.Errorf("sylva-planner plan --help speaks of kubectl:\n%s", out)
	}
}

// man DIR checks every page before it writes one: a page it may not write
// (a link in its place, here the last page in order) leaves DIR as it
// was. A DIR that is a link, or goes through one, is refused; a new one is
// made, parents included.
func TestManChecksEveryPageBeforeWritingAny(t *testing.T) {
	dir := t.TempDir()
	run := func(args ...string) (int, string) {
		t.Helper()
		var stderr bytes.Buffer
		code := runIn(context.Background(), dir, append([]string{"sylva-planner"}, args...), io.Discard, &stderr, func(string) string { return "" })
		return code, stderr.String()
	}
	if err := os.Mkdir(filepath.Join(dir, "pages"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "target"), []byte("kept\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../target", filepath.Join(dir, "pages", "sylva-planner.1")); err != nil {
		t.Fatal(err)
	}
	if code, stderr := run("man", "pages"); code != exitError || !strings.Contains(stderr, "sylva-planner.1 is a symbolic link") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("man pages with a linked page: exit %d, stderr %q; want 1 and one line naming the link", code, stderr)
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "pages")); len(entries) != 1 {
		t.Errorf("pages holds %d entries, want only the link: pages were written before the refusal", len(entries))
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "target")); string(b) != "kept\n" {
		t.Errorf("the link's target holds %q", b)
	}
	if err := os.Symlink("pages", filepath.Join(dir, "plink")); err != nil {
		t.Fatal(err)
	}
	for _, arg := range []string{"plink", "plink/sub"} {
		if code, stderr := run("man", arg); code != exitError || !strings.Contains(stderr, "plink is a symbolic link") {
			t.Errorf("man %s: exit %d, stderr %q; want 1, plink is a symbolic link", arg, code, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "pages", "sub")); !os.IsNotExist(err) {
		t.Errorf("man plink/sub made pages/sub: %v", err)
	}
	if code, _ := run("man", "new/pages"); code != exitOK {
		t.Errorf("man into a new directory: exit %d", code)
	}
}
