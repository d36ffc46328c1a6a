package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"gitlab.com/sylva-projects/sylva-planner/action"
	"gitlab.com/sylva-projects/sylva-planner/cliapp"
)

func TestManWritesAPageForEveryCommandWithItsFlags(t *testing.T) {
	dir := t.TempDir()
	var stderr bytes.Buffer
	if code := runIn(context.Background(), dir, []string{"sylva-planner", "man", "pages"}, io.Discard, &stderr, func(string) string { return "" }); code != exitOK {
		t.Fatalf("man pages: exit %d: %s", code, stderr.String())
	}
	// A page as man shows its words: roff's escaped dashes and
	// backslashes read as typed.
	read := func(name string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, "pages", name))
		if err != nil {
			t.Fatalf("man page %s: %v", name, err)
		}
		return strings.NewReplacer(`\-`, "-", `\e`, `\`, `\fB`, "", `\fI`, "", `\fR`, "").Replace(string(b))
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
			// The synopsis is the usage line of --help.
			if synopsis := ".SH SYNOPSIS\n" + strings.Join(p, " ") + " "; !strings.Contains(page, synopsis) || strings.Contains(page, "[value]") {
				t.Errorf("%s.1 does not show the command line %q as its synopsis:\n%s", strings.Join(p, "-"), strings.Join(p, " "), page)
			}
			sections := []string{".SH DESCRIPTION", ".SH EXAMPLES", `.SH "EXIT CODES"`}
			if len(c.VisibleFlags()) > 0 {
				sections = append(sections, ".SH OPTIONS")
			}
			for _, section := range sections {
				if !strings.Contains(page, section+"\n") {
					t.Errorf("%s.1 has no section %s", strings.Join(p, "-"), section)
				}
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
	for _, want := range []string{"kubectl sylva-planner plan [command options]", "\n   kubectl sylva-planner plan --from 1.4 --to 1.6 -o json\n"} {
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

// TestEveryHelpReadsInATerminal runs --help of the application and of
// every command and subcommand as a run off a terminal has it (80
// columns): no line is wider, each has its examples and exit codes (the
// codes of cliapp and action.ExitCodes only), and every option that
// takes a value says what it takes.
func TestEveryHelpReadsInATerminal(t *testing.T) {
	codes := map[string]bool{strconv.Itoa(exitOK): true, strconv.Itoa(exitError): true}
	for _, code := range action.ExitCodes {
		codes[strconv.Itoa(code)] = true
	}
	placeholder := regexp.MustCompile(`(?i)(^|\s)value(\.\.\.)?$`)
	longest, longestIn := 0, ""
	var check func(path []string, desc string, cmds []*cli.Command, flags []cli.Flag)
	check = func(path []string, desc string, cmds []*cli.Command, flags []cli.Flag) {
		var out, errOut bytes.Buffer
		args := append(append([]string{"sylva-planner"}, path...), "--help")
		if code := runIn(context.Background(), "", args, &out, &errOut, func(string) string { return "" }); code != exitOK {
			t.Fatalf("%s: exit %d: %s", strings.Join(args, " "), code, errOut.String())
		}
		help := out.String()
		for _, l := range strings.Split(help, "\n") {
			if n := cliapp.TextWidth(l); n > longest {
				longest, longestIn = n, strings.Join(args, " ")
			}
			if n := cliapp.TextWidth(l); n > cliapp.DefaultHelpWidth {
				t.Errorf("%s: a line of %d columns: %s", strings.Join(args, " "), n, l)
			}
		}
		for _, section := range []string{"\nEXAMPLES:\n", "\nEXIT CODES:\n"} {
			if !strings.Contains(help, section) {
				t.Errorf("%s has no %s section:\n%s", strings.Join(args, " "), strings.TrimSpace(section), help)
			}
		}
		for _, c := range cliapp.ParseDoc(desc).ExitCodes {
			if c.Code != "" && !codes[c.Code] {
				t.Errorf("%s: exit code %s is none of cliapp's and action.ExitCodes", strings.Join(args, " "), c.Code)
			}
		}
		for _, f := range flags {
			if names, _ := cliapp.FlagHelp(f); placeholder.MatchString(names) {
				t.Errorf("%s: %s does not say what it takes", strings.Join(args, " "), names)
			}
		}
		for _, c := range cmds {
			if !c.Hidden && c.Name != "help" {
				check(append(append([]string{}, path...), c.Name), c.Description, c.Subcommands, c.VisibleFlags())
			}
		}
	}
	app := newApp(io.Discard, io.Discard)
	check(nil, app.Description, app.Commands, app.VisibleFlags())
	t.Logf("the longest line of help is %d columns, in %s", longest, longestIn)
}
