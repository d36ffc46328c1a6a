package main

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// docSection is a section of a page of docs/: the text from one heading
// to the next, and the headings above it (the page's title first).
type docSection struct {
	page, heading, text string
	above               []string
}

// names says whether the section, or a heading above it, names the
// command: the page titled "`reconcile` and `controller`" documents both.
func (s docSection) names(command string) bool {
	for _, t := range append([]string{s.text}, s.above...) {
		if strings.Contains(t, "`"+command) || strings.Contains(t, "sylva-planner "+command+" ") {
			return true
		}
	}
	return false
}

var docHeading = regexp.MustCompile(`(?m)^#{1,6} .*$`)

func docSections(t *testing.T) []docSection {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("docs/*.md: %v (%d pages)", err, len(pages))
	}
	var out []docSection
	for _, p := range pages {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		idx := docHeading.FindAllStringIndex(text, -1)
		start, heading := 0, ""
		var stack, above []string // the headings by level; those above the section
		add := func(end int) {
			out = append(out, docSection{page: filepath.Base(p), heading: heading, text: text[start:end], above: above})
		}
		for _, at := range idx {
			add(at[0])
			start, heading = at[0], text[at[0]:at[1]]
			level := strings.IndexByte(heading, ' ') // its number of #
			stack = stack[:min(level-1, len(stack))]
			for len(stack) < level-1 {
				stack = append(stack, "")
			}
			above = slices.Clone(stack)
			stack = append(stack, heading)
		}
		add(len(text))
	}
	return out
}

// TestDocsNameEveryCommandAndFlag checks that docs/ documents what --help
// offers: every visible command is named in a code span of some page, each
// of its flags appears (by one of its names) in a section that names the
// command (or under a heading that does), or in docs/cli.md's sections on
// the conventions every command shares (before its first command
// section), and each environment variable a flag reads is named.
func TestDocsNameEveryCommandAndFlag(t *testing.T) {
	sections := docSections(t)
	var shared strings.Builder
	for _, s := range sections {
		if s.page == "cli.md" {
			if strings.HasPrefix(s.heading, "## `") {
				break
			}
			shared.WriteString(s.text)
		}
	}
	// --to must not match --to-x, nor -f match -foo.
	flagIn := func(text, flag string) bool {
		return regexp.MustCompile(`(^|[^-\w])` + regexp.QuoteMeta(flag) + `($|[^-\w])`).MatchString(text)
	}
	var walk func(path []string, cmds []*cli.Command)
	walk = func(path []string, cmds []*cli.Command) {
		for _, c := range cmds {
			if c.Hidden {
				continue
			}
			p := append(slices.Clone(path), c.Name)
			name := strings.Join(p, " ")
			var own []docSection
			for _, s := range sections {
				if s.names(name) {
					own = append(own, s)
				}
			}
			if len(own) == 0 {
				t.Errorf("no page of docs/ names the command %q", name)
			}
			for _, f := range c.VisibleFlags() {
				// A flag is named by any of its names (--values or -f).
				var names []string
				for _, n := range f.Names() {
					if len(n) == 1 {
						names = append(names, "-"+n)
					} else {
						names = append(names, "--"+n)
					}
				}
				documented := func(text string) bool {
					return slices.ContainsFunc(names, func(n string) bool { return flagIn(text, n) })
				}
				// docs/cli.md's rule: a flag's variable is SYLVA_PLANNER_<FLAG>
				// (--as-of: SYLVA_PLANNER_AS_OF); another is named in docs/.
				if ev, ok := f.(interface{ GetEnvVars() []string }); ok {
					rule := "SYLVA_PLANNER_" + strings.ToUpper(strings.ReplaceAll(f.Names()[0], "-", "_"))
					for _, v := range ev.GetEnvVars() {
						if v != rule && !slices.ContainsFunc(sections, func(s docSection) bool { return strings.Contains(s.text, v) }) {
							t.Errorf("%s %s reads %s, neither %s nor named in docs/", name, names[0], v, rule)
						}
					}
				}
				if names[0] == "--help" || documented(shared.String()) {
					continue
				}
				if !slices.ContainsFunc(own, func(s docSection) bool { return documented(s.text) }) {
					t.Errorf("%s %s is in --help but in no section of docs/ that names %q", name, names[0], name)
				}
			}
			walk(p, c.Subcommands)
		}
	}
	walk(nil, newApp(io.Discard, io.Discard).Commands)
}

// commandLine is one sylva-planner command line shown to users, and where.
type commandLine struct {
	where, line string
}

var shownLine = regexp.MustCompile(`(?:^|[\s$(` + "`" + `])sylva-planner ([a-z][^` + "`" + `\n]*)`)

// shownCommandLines are the command lines of the docs' pages and of each
// command's help.
func shownCommandLines(t *testing.T, app *cli.App) []commandLine {
	t.Helper()
	var out []commandLine
	for _, s := range docSections(t) {
		for _, m := range shownLine.FindAllStringSubmatch(s.text, -1) {
			out = append(out, commandLine{s.page, m[1]})
		}
	}
	var walk func(path []string, cmds []*cli.Command)
	walk = func(path []string, cmds []*cli.Command) {
		for _, c := range cmds {
			p := append(slices.Clone(path), c.Name)
			for _, m := range shownLine.FindAllStringSubmatch(c.Description, -1) {
				out = append(out, commandLine{strings.Join(p, " ") + " --help", m[1]})
			}
			walk(p, c.Subcommands)
		}
	}
	walk(nil, app.Commands)
	return out
}

// TestShownCommandLinesUseFlagsTheCommandHas checks every sylva-planner
// command line of docs/ and of --help that names a command: each flag it
// gives is one of that command's, or one every command takes.
func TestShownCommandLinesUseFlagsTheCommandHas(t *testing.T) {
	app := newApp(io.Discard, io.Discard)
	checked := 0
	for _, l := range shownCommandLines(t, app) {
		words := strings.Fields(l.line)
		cmds, c := app.Commands, (*cli.Command)(nil)
		i := 0
		for ; i < len(words); i++ {
			next := slices.IndexFunc(cmds, func(c *cli.Command) bool { return c.HasName(words[i]) })
			if next < 0 {
				break
			}
			c, cmds = cmds[next], cmds[next].Subcommands
		}
		if c == nil {
			continue // prose: "sylva-planner passed on …"
		}
		checked++
		for _, w := range words[i:] {
			if w == "--" || w == "\\" {
				break
			}
			name, ok := strings.CutPrefix(strings.TrimLeft(w, "[("), "-")
			if !ok || name == "" {
				continue
			}
			name = strings.TrimPrefix(name, "-")
			name, _, _ = strings.Cut(name, "=")
			name = strings.TrimRight(name, "]),.;:|")
			if name == "" || strings.ContainsAny(name, "<>…") {
				continue
			}
			has := func(f cli.Flag) bool { return slices.Contains(f.Names(), name) }
			if !slices.ContainsFunc(c.Flags, has) && !slices.ContainsFunc(app.Flags, has) && name != "help" && name != "h" {
				t.Errorf("%s: %q: %s has no flag %q", l.where, "sylva-planner "+l.line, c.FullName(), w)
			}
		}
	}
	t.Logf("%d command lines checked", checked)
	if checked < 80 {
		t.Errorf("found %d command lines in docs/ and --help, want over 80: does shownLine still match them?", checked)
	}
}
