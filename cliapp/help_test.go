package cliapp

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"
)

// helpApp has a command with a long description, examples, exit codes,
// short and long option names, an Enum flag and a group.
func helpApp() *cli.App {
	return &cli.App{
		Name:  "toy",
		Usage: "plan and drive toy transitions",
		Description: "toy computes the passes that take a toy from one release to another, one pass per minor,\n" +
			"and says whether the next pass may start.\n\n" +
			"Examples:\n" +
			"  toy plan --from 1.4 --to 1.6\n\n" +
			"Exit codes: 0 done; 1 bad input; 2 blocked",
		Flags: []cli.Flag{&cli.StringFlag{Name: "max-input-size", Usage: "largest input `SIZE` read from a file"}},
		Commands: []*cli.Command{
			{
				Name:  "plan",
				Usage: "compute the reconciliation passes that take a toy from one release to another",
				Description: "Prints the route, each reconciliation pass with the values it sets, the versions per pass,\n" +
					"what the status must say after each pass, the findings and the verdict.\n" +
					"Offline unless asked.\n\n" +
					"Examples:\n" +
					"  # the passes from 1.4 to 1.6, as JSON\n" +
					"  toy plan --from 1.4 --to 1.6 -o json\n\n" +
					"  # a long command, broken where the shell reads it the same\n" +
					"  toy plan --from 1.4 --to 1.6 --inventory cluster-dump --suppressions suppressions.yaml \\\n" +
					"    --baseline last-night.json --prod-namespaces '*-prod,prod-*' -o markdown\n\n" +
					"Exit codes:\n" +
					"  0 ready, or nothing at or above --fail-on\n" +
					"  1 bad input: an unreadable file, a release the catalog does not cover,\n" +
					"    a cluster that does not answer\n" +
					"  2 blocked\n\n" +
					"With --all, the worst outcome of the toys.",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "from", Usage: "release the toy runs, for example `1.4`", EnvVars: []string{"TOY_FROM"}},
					&cli.StringSliceFlag{Name: "allow-lookup", Usage: "also allow lookups of `GROUP/VERSION/KIND[/NAMESPACE/NAME]` (core group: core/v1/Secret; * is the only wildcard, in any segment; repeatable)"},
					&cli.BoolFlag{Name: "live", Usage: "read the cluster"},
					&cli.GenericFlag{Name: "output", Aliases: []string{"o"}, Usage: "output format: table, json", Value: NewEnum("output format", "table", "json")},
					&cli.GenericFlag{Name: "fail-on", Usage: "lowest finding severity that makes the exit code non-zero: blocker, never", Value: NewEnum("--fail-on value", "blocker", "never")},
				},
			},
			{
				Name: "catalog", Usage: "show the catalog",
				Subcommands: []*cli.Command{
					{Name: "list", Usage: "list the releases"},
					{Name: "secret", Usage: "not for people", Hidden: true},
				},
			},
		},
	}
}

// plan is the plan command of helpApp.
func plan(app *cli.App) *cli.Command { return app.Commands[0] }

// longest is the longest line of text that holds more than one word (a
// word longer than the width stands alone, whole).
func longest(text string) (int, string) {
	n, line := 0, ""
	for _, l := range strings.Split(text, "\n") {
		if m := TextWidth(l); m > n && len(strings.Fields(l)) > 1 {
			n, line = m, l
		}
	}
	return n, line
}

func TestHelpIsWrappedToTheWidth(t *testing.T) {
	app := helpApp()
	lines := map[int]int{}
	for _, width := range []int{40, 80, 120} {
		for name, help := range map[string]string{"app": AppHelp(app, width), "plan": CommandHelp(plan(app), width)} {
			if n, l := longest(help); n > width {
				t.Errorf("%s at %d: a line of %d columns:\n%s", name, width, n, l)
			}
			if strings.Contains(help, " \n") {
				t.Errorf("%s at %d: a line ends with a space:\n%s", name, width, help)
			}
			if name == "plan" {
				lines[width] = strings.Count(help, "\n")
			}
		}
	}
	if lines[40] <= lines[80] || lines[80] <= lines[120] {
		t.Errorf("lines at 40, 80, 120: %d, %d, %d; want fewer on a wider terminal", lines[40], lines[80], lines[120])
	}
	// At 120, the option text stands beside the names, wrapped under
	// the column.
	help := CommandHelp(plan(app), 120)
	if !regexp.MustCompile(`(?m)^   --from 1\.4 +release the toy runs, for example 1\.4 \[\$TOY_FROM\]$`).MatchString(help) {
		t.Errorf("--from at 120 is not one line beside its names:\n%s", help)
	}
	// A paragraph's lines are joined: the short third line of the
	// source does not stand alone.
	if strings.Contains(help, "\n   Offline unless asked.\n") {
		t.Errorf("the description's lines are not joined:\n%s", help)
	}
}

func TestLongOptionNamesPutTheTextUnderTheNames(t *testing.T) {
	for _, width := range []int{40, 80, 120} {
		help := CommandHelp(plan(helpApp()), width)
		lines := strings.Split(help, "\n")
		find := func(prefix string) int {
			return slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, prefix) })
		}
		// The column of the options' text.
		col := strings.Index(lines[find("   --from ")], "release the toy")
		i := find("   --allow-lookup")
		if i < 0 || col < 0 {
			t.Fatalf("at %d no line starts with --allow-lookup or --from:\n%s", width, help)
		}
		// The names stand alone, the placeholder once (on lines of their
		// own when the width is too narrow for them), and the text starts
		// on the next line, at the column of the other options' text.
		var names []string
		for ; i < len(lines) && len(lines[i])-len(strings.TrimLeft(lines[i], " ")) < col; i++ {
			names = append(names, strings.Fields(lines[i])...)
		}
		if got := strings.Join(names, " "); got != "--allow-lookup GROUP/VERSION/KIND[/NAMESPACE/NAME]..." {
			t.Errorf("at %d the names read %q, want them alone, the placeholder once", width, got)
		}
		if i == len(lines) || !strings.HasPrefix(lines[i], strings.Repeat(" ", col)+"also allow lookups") {
			t.Errorf("at %d the text of --allow-lookup does not start under the names at column %d:\n%s", width, col, help)
		}
	}
}

func TestHelpSectionsComeInOneOrder(t *testing.T) {
	app := helpApp()
	order := []string{"NAME", "USAGE", "VERSION", "DESCRIPTION", "EXAMPLES", "EXIT CODES", "COMMANDS", "OPTIONS", "GLOBAL OPTIONS"}
	app.Version = "1.0"
	for name, help := range map[string]string{
		"app":     AppHelp(app, 80),
		"plan":    CommandHelp(plan(app), 80),
		"catalog": CommandHelp(app.Commands[1], 80),
	} {
		var got []string
		for _, l := range strings.Split(help, "\n") {
			if title, ok := strings.CutSuffix(l, ":"); ok && title == strings.ToUpper(title) && !strings.HasPrefix(l, " ") {
				got = append(got, title)
			}
		}
		if !slices.IsSortedFunc(got, func(a, b string) int { return slices.Index(order, a) - slices.Index(order, b) }) {
			t.Errorf("%s: sections %v, want them in the order %v", name, got, order)
		}
		want := map[string][]string{
			"app":     {"NAME", "USAGE", "VERSION", "DESCRIPTION", "EXAMPLES", "EXIT CODES", "COMMANDS", "GLOBAL OPTIONS"},
			"plan":    {"NAME", "USAGE", "DESCRIPTION", "EXAMPLES", "EXIT CODES", "OPTIONS"},
			"catalog": {"NAME", "USAGE", "COMMANDS"},
		}[name]
		if !slices.Equal(got, want) {
			t.Errorf("%s: sections %v, want %v", name, got, want)
		}
	}
	// A group lists its visible commands, not urfave's help command.
	if help := CommandHelp(app.Commands[1], 80); strings.Contains(help, "secret") || strings.Contains(help, "help, h") {
		t.Errorf("catalog's help lists a hidden command or help:\n%s", help)
	}
}

func TestHelpShowsExamplesAndExitCodes(t *testing.T) {
	help := CommandHelp(plan(helpApp()), 80)
	for _, want := range []string{
		"EXAMPLES:\n   # the passes from 1.4 to 1.6, as JSON\n   toy plan --from 1.4 --to 1.6 -o json\n\n   # a long command",
		// The long command is broken where the shell reads it the same,
		// its quotes whole, each flag with its value.
		"   toy plan --from 1.4 --to 1.6 --inventory cluster-dump \\\n     --suppressions suppressions.yaml --baseline last-night.json \\\n     --prod-namespaces '*-prod,prod-*' -o markdown\n",
		"EXIT CODES:\n   0  ready, or nothing at or above --fail-on\n   1  bad input: an unreadable file, a release the catalog does not cover, a\n      cluster that does not answer\n   2  blocked\n\n   With --all, the worst outcome of the toys.\n",
	} {
		if !strings.Contains(help, want) {
			t.Errorf("help lacks\n%s\nin\n%s", want, help)
		}
	}
	// Codes on one line, separated by semicolons, are one a line.
	if help := AppHelp(helpApp(), 80); !strings.Contains(help, "EXIT CODES:\n   0  done\n   1  bad input\n   2  blocked\n") {
		t.Errorf("the application's exit codes are not one a line:\n%s", help)
	}
}

func TestParseDoc(t *testing.T) {
	d := ParseDoc("Prose\non two lines.\n\n  kept line\n\nExample: a --b\n\nExit codes: as for plan.")
	if d.Description != "Prose\non two lines.\n\n  kept line" {
		t.Errorf("Description = %q", d.Description)
	}
	if !slices.Equal(d.Examples, []string{"a --b"}) {
		t.Errorf("Examples = %q", d.Examples)
	}
	if !slices.Equal(d.ExitCodes, []ExitCode{{Meaning: "as for plan."}}) {
		t.Errorf("ExitCodes = %q", d.ExitCodes)
	}
	// A line indented under a code goes on with it, number or not.
	d = ParseDoc("Exit codes:\n  0 done\n  1 a file larger than\n    16 MiB\n  2 blocked")
	if want := []ExitCode{{"0", "done"}, {"1", "a file larger than 16 MiB"}, {"2", "blocked"}}; !slices.Equal(d.ExitCodes, want) {
		t.Errorf("ExitCodes = %q, want %q", d.ExitCodes, want)
	}
	// Two "Example:" lines are two examples; a line ending with " \"
	// goes on on the next.
	d = ParseDoc("Example: a \\\n         --b\nExample: c")
	if !slices.Equal(d.Examples, []string{"a --b", "c"}) {
		t.Errorf("Examples = %q", d.Examples)
	}
}

func TestFlagPlaceholderSaysWhatTheFlagTakes(t *testing.T) {
	flags := plan(helpApp()).Flags
	want := map[string]string{
		"from":         "--from 1.4",
		"allow-lookup": "--allow-lookup GROUP/VERSION/KIND[/NAMESPACE/NAME]...",
		"live":         "--live",
		"output":       "--output, -o FORMAT", // what the Enum takes
		"fail-on":      "--fail-on VALUE",     // an Enum that says no more
	}
	for _, f := range flags {
		if names, _ := FlagHelp(f); names != want[f.Names()[0]] {
			t.Errorf("FlagHelp(%s) names = %q, want %q", f.Names()[0], names, want[f.Names()[0]])
		}
	}
	if _, text := FlagHelp(flags[2]); text != "read the cluster" {
		t.Errorf("a switch's text = %q, want no (default: false)", text)
	}
}

func TestWrapCommandKeepsTheCommand(t *testing.T) {
	got := WrapCommand(`a --b 'c d e' --f "g h" --i j --k | l -f - > out.txt`, 13, 2)
	want := []string{`a \`, `  --b 'c d e' \`, `  --f "g h" \`, `  --i j --k \`, `  | l -f - \`, `  > out.txt`}
	if !slices.Equal(got, want) {
		t.Errorf("WrapCommand = %q, want %q", got, want)
	}
	if got := WrapCommand("short one", 12, 2); !slices.Equal(got, []string{"short one"}) {
		t.Errorf("WrapCommand(short) = %q", got)
	}
}

func TestWrapKeepsALongWordWhole(t *testing.T) {
	got := Wrap("see https://example.com/a/long/path for more", 10)
	want := []string{"see", "https://example.com/a/long/path", "for more"}
	if !slices.Equal(got, want) {
		t.Errorf("Wrap = %q, want %q", got, want)
	}
}

func TestWrapCountsTheColumnsATerminalShows(t *testing.T) {
	if w := TextWidth("☁capo 🚀kadm é 日本"); w != 19 {
		t.Errorf("TextWidth = %d, want 19 (the rocket and the two ideographs take two columns, é one)", w)
	}
	got := Wrap("jobs 🚀kadm 🎬sylva-upgrade", 11)
	want := []string{"jobs 🚀kadm", "🎬sylva-upgrade"}
	if !slices.Equal(got, want) {
		t.Errorf("Wrap = %q, want %q", got, want)
	}
}

func TestKeptLinesAreWrappedUnderTheirIndentation(t *testing.T) {
	got := proseLines("Text.\n\n   bash: source <(toy completion bash) in your shell's rc file, or each time", 40)
	want := []string{"Text.", "", "   bash: source <(toy completion bash)", "     in your shell's rc file, or each", "     time"}
	if !slices.Equal(got, want) {
		t.Errorf("proseLines = %q, want %q", got, want)
	}
}

func TestHelpWidthIs80OffATerminal(t *testing.T) {
	e := NewEnv("", &bytes.Buffer{}, &bytes.Buffer{}, func(k string) string {
		if k == "COLUMNS" {
			return "200"
		}
		return ""
	}, time.Now)
	if w := HelpWidth(e); w != DefaultHelpWidth {
		t.Errorf("HelpWidth of a buffer with COLUMNS=200 = %d, want %d", w, DefaultHelpWidth)
	}
}

// WithHelp has --help, and help of a command, print the layout at the
// width given.
func TestWithHelpPrintsTheLayout(t *testing.T) {
	for _, width := range []int{40, 120} {
		for _, args := range [][]string{{"--help"}, {"plan", "--help"}, {"catalog", "--help"}, {"catalog", "list", "--help"}} {
			app := helpApp()
			var out bytes.Buffer
			app.Writer = &out
			WithHelp(app, width)
			if err := run(t, app, args...); err != nil {
				t.Fatalf("%v: %v", args, err)
			}
			help := out.String()
			if !strings.HasPrefix(help, "NAME:\n   toy") || strings.Contains(help, "GLOBAL OPTIONS:\n   --max-input-size value") {
				t.Errorf("%v at %d is not the layout:\n%s", args, width, help)
			}
			if n, l := longest(help); n > width {
				t.Errorf("%v at %d: a line of %d columns: %s", args, width, n, l)
			}
		}
	}
}

func TestHelpManPages(t *testing.T) {
	app := helpApp()
	app.Version = "1.0"
	pages := HelpManPages(app)
	var names []string
	for n := range pages {
		names = append(names, n)
	}
	slices.Sort(names)
	if want := []string{"toy-catalog-list.1", "toy-catalog.1", "toy-plan.1", "toy.1"}; !slices.Equal(names, want) {
		t.Fatalf("pages %q, want %q (no page for a hidden command)", names, want)
	}
	page := pages["toy-plan.1"]
	for _, want := range []string{
		`.TH toy-plan 1 "" "toy 1.0"`,
		".SH SYNOPSIS\n\\fBtoy plan\\fR [command options]\n",
		".SH EXAMPLES\n.nf\n# the passes from 1.4 to 1.6, as JSON\ntoy plan \\-\\-from 1.4",
		".SH \"EXIT CODES\"\n.TP\n.B 0\nready, or nothing at or above \\-\\-fail\\-on\n",
		".TP\n\\fB\\-\\-output\\fR, \\fB\\-o\\fR \\fIFORMAT\\fR\noutput format: table, json (default: table)\n",
		".TP\n\\fB\\-\\-allow\\-lookup\\fR \\fIGROUP/VERSION/KIND[/NAMESPACE/NAME]...\\fR\n",
		".SH \"SEE ALSO\"\n\\fBtoy\\fR(1)\n",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("toy-plan.1 lacks\n%s\nin\n%s", want, page)
		}
	}
	if strings.Contains(page, "[value]") || strings.Contains(page, "=[") {
		t.Errorf("toy-plan.1 has urfave's synopsis:\n%s", page)
	}
	// Every line of the examples fits a terminal once man indents it.
	for _, l := range strings.Split(page, "\n") {
		if TextWidth(l) > manWidth && !strings.HasPrefix(l, ".") && strings.Contains(l, "toy plan") {
			t.Errorf("toy-plan.1: an example line of %d columns: %s", TextWidth(l), l)
		}
	}
	if top := pages["toy.1"]; !strings.Contains(top, ".SH \"GLOBAL OPTIONS\"") || !strings.Contains(top, "\\fBtoy\\-plan\\fR(1), \\fBtoy\\-catalog\\fR(1), \\fBtoy\\-catalog\\-list\\fR(1)") {
		t.Errorf("toy.1 lacks its global options or its commands' pages:\n%s", top)
	}
}
