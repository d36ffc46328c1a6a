package cliapp

import (
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"
)

// Help layout. Every command's --help (and the application's) has the
// same sections in the same order: NAME, USAGE, (VERSION,) DESCRIPTION,
// EXAMPLES, EXIT CODES, COMMANDS (of a group), OPTIONS. Prose is wrapped
// to the width of the terminal (HelpWidth); an option's names, with its
// placeholder once, stand in a column, and its text is wrapped beside
// them, or under them when the names are too long for the column. The
// man pages (HelpManPages) have the same sections, from the same texts.
//
// A command declares its examples and exit codes in its Description, in
// paragraphs (separated by a blank line) that start with "Examples:" (or
// "Example:") and "Exit codes:"; such a paragraph and those after it, up
// to the next labelled one, are that section:
//
//	Examples:
//	  # a comment line says what the next command does
//	  sylva-planner plan --from 1.4 --to 1.6 -o json
//
//	Exit codes:
//	  0 ready
//	  1 bad input
//
// An example is one line however long (help breaks it where the shell
// reads it the same, with " \"); a line that ends with " \" goes on on
// the next. Exit codes are one per line, a line that starts with no code
// going on with the one before, or all on one line separated by
// semicolons ("Exit codes: 0 done; 1 bad input"). In the description, a
// line that starts with a space is shown as it is (a command, a list),
// wrapped only when it is too long; the other lines of a paragraph are
// joined and wrapped.

// Section labels of a Description.
const (
	examplesLabel  = "Examples:"
	exampleLabel   = "Example:"
	exitCodesLabel = "Exit codes:"
)

// Widths help is wrapped to.
const (
	// DefaultHelpWidth is the width of help written anywhere but a
	// terminal (a pipe, a file, a test).
	DefaultHelpWidth = 80
	minHelpWidth     = 40
	// maxHelpWidth keeps prose readable on a very wide terminal.
	maxHelpWidth = 120
)

// HelpWidth is the width the help of a run is wrapped to:
// DefaultHelpWidth when e.Stdout is not a terminal; on a terminal,
// COLUMNS when it holds a number, else the terminal's width; always
// between 40 and 120 columns.
func HelpWidth(e *Env) int {
	f, ok := terminalFile(e.Stdout)
	if !ok {
		return DefaultHelpWidth
	}
	w := 0
	if n, err := strconv.Atoi(strings.TrimSpace(e.Getenv("COLUMNS"))); err == nil && n > 0 {
		w = n
	} else if n, _, err := term.GetSize(int(f.Fd())); err == nil && n > 0 {
		w = n
	} else {
		return DefaultHelpWidth
	}
	return min(max(w, minHelpWidth), maxHelpWidth)
}

// terminalFile is the terminal w writes to, if it writes to one.
func terminalFile(w io.Writer) (*os.File, bool) {
	if !IsTerminal(w) {
		return nil, false
	}
	f, ok := innermost(w).(*os.File)
	return f, ok && term.IsTerminal(int(f.Fd()))
}

// helpMark starts the help template WithHelp gives the application and
// each command; the width follows it.
const helpMark = "\x00cliapp-help:"

var installHelp sync.Once

// WithHelp has app and each of its commands print their help in the
// layout of this package, wrapped to width. urfave/cli prints help
// through one printer for the whole process: the printer installed here
// writes the layout for the help templates WithHelp sets, which carry the
// width of their run, and leaves any other template to the printer it
// replaced.
func WithHelp(app *cli.App, width int) {
	installHelp.Do(func() {
		next := cli.HelpPrinter
		cli.HelpPrinter = func(w io.Writer, templ string, data any) {
			rest, ok := strings.CutPrefix(templ, helpMark)
			if !ok {
				next(w, templ, data)
				return
			}
			width, err := strconv.Atoi(rest)
			if err != nil {
				width = DefaultHelpWidth
			}
			switch d := data.(type) {
			case *cli.App:
				_, _ = io.WriteString(w, AppHelp(d, width))
			case *cli.Command:
				_, _ = io.WriteString(w, CommandHelp(d, width))
			default:
				next(w, templ, data)
			}
		}
	})
	mark := helpMark + strconv.Itoa(width)
	app.CustomAppHelpTemplate = mark
	var walk func([]*cli.Command)
	walk = func(cmds []*cli.Command) {
		for _, c := range cmds {
			c.CustomHelpTemplate = mark
			walk(c.Subcommands)
		}
	}
	walk(app.Commands)
}

// Doc is a Description split into its sections.
type Doc struct {
	// Description is the prose before the first labelled section.
	Description string
	// Examples are the lines of the examples: commands, and comments
	// that start with "#"; an empty line separates two examples.
	Examples []string
	// ExitCodes are the exit codes with their meaning ("0", "ready"), or
	// one entry with no code when the text gives none ("as for plan").
	ExitCodes []ExitCode
}

// ExitCode is one exit code of a command and what it means.
type ExitCode struct {
	Code, Meaning string
}

var (
	codeLine  = regexp.MustCompile(`^(\d+)\s+(.*)$`)
	codeSplit = regexp.MustCompile(`;\s+(\d+)\s`)
)

// ParseDoc splits a command's Description into its sections (see the
// layout above).
func ParseDoc(desc string) Doc {
	var d Doc
	var prose, examples, codes []string
	section := &prose
	for _, para := range strings.Split(strings.Trim(desc, "\n"), "\n\n") {
		trimmed := strings.TrimLeft(para, " ")
		switch {
		case strings.HasPrefix(trimmed, examplesLabel):
			section, para = &examples, strings.TrimPrefix(trimmed, examplesLabel)
		case strings.HasPrefix(trimmed, exampleLabel):
			section, para = &examples, strings.TrimPrefix(trimmed, exampleLabel)
		case strings.HasPrefix(trimmed, exitCodesLabel):
			section, para = &codes, strings.TrimPrefix(trimmed, exitCodesLabel)
		}
		*section = append(*section, para)
	}
	d.Description = strings.Trim(strings.Join(prose, "\n\n"), "\n")
	for _, para := range examples {
		if len(d.Examples) > 0 {
			d.Examples = append(d.Examples, "")
		}
		cont := false // the line before ended with " \"
		for _, l := range strings.Split(para, "\n") {
			l = strings.TrimSpace(l)
			if l == "" {
				continue
			}
			// "Example: a" lines in one paragraph are examples each.
			l = strings.TrimSpace(strings.TrimPrefix(l, exampleLabel))
			if cont {
				d.Examples[len(d.Examples)-1] += " " + l
			} else {
				d.Examples = append(d.Examples, l)
			}
			last := &d.Examples[len(d.Examples)-1]
			*last, cont = strings.CutSuffix(*last, " \\")
		}
	}
	d.ExitCodes = parseExitCodes(strings.Join(codes, "\n\n"))
	return d
}

// parseExitCodes reads exit codes one per line ("0 ready"), a line that
// starts with no code, or is indented more than the code before, going on
// with the one before; or on one line separated by semicolons ("0 ready;
// 1 bad input"). Text before any code, or in a paragraph of its own, is
// an entry without one ("as for plan").
func parseExitCodes(text string) []ExitCode {
	var out []ExitCode
	coded := 0       // lines that start with a code
	para := true     // a paragraph starts
	codeIndent := -1 // the indentation of the last code
	for i, l := range strings.Split(text, "\n") {
		indent := len(l) - len(strings.TrimLeft(l, " "))
		if i == 0 {
			indent = 0 // the line of the label
		}
		l = strings.TrimSpace(l)
		if l == "" {
			para = true
			continue
		}
		if m := codeLine.FindStringSubmatch(l); m != nil && (para || codeIndent < 0 || indent <= codeIndent) {
			out = append(out, ExitCode{Code: m[1], Meaning: m[2]})
			coded++
			para, codeIndent = false, indent
			continue
		}
		if len(out) == 0 || para {
			out = append(out, ExitCode{})
		}
		para = false
		last := &out[len(out)-1]
		last.Meaning = strings.TrimSpace(last.Meaning + " " + l)
	}
	if coded != 1 {
		return out
	}
	// The codes of one line, separated by semicolons.
	var split []ExitCode
	for _, c := range out {
		for c.Code != "" {
			loc := codeSplit.FindStringSubmatchIndex(c.Meaning)
			if loc == nil {
				break
			}
			split = append(split, ExitCode{Code: c.Code, Meaning: c.Meaning[:loc[0]]})
			c = ExitCode{Code: c.Meaning[loc[2]:loc[3]], Meaning: strings.TrimSpace(c.Meaning[loc[1]:])}
		}
		split = append(split, c)
	}
	return split
}

// helpPage is what the help of the application or of a command shows, in
// the order it shows it; the terminal's help (text) and the man page
// (roff) lay out the same page.
type helpPage struct {
	name, usage string // NAME: "sylva-planner plan - compute …"
	path        string // the command as typed: "sylva-planner plan"
	usageLine   string
	version     string
	doc         Doc
	commands    []*cli.Command
	flagsTitle  string
	flags       []cli.Flag
}

// appPage is the page of app run as name.
func appPage(app *cli.App, name string) helpPage {
	usage := app.UsageText
	if usage == "" {
		usage = name + " [global options] command [command options]"
	}
	p := helpPage{
		name: name, usage: app.Usage, path: name, usageLine: usage, doc: ParseDoc(app.Description),
		commands: visibleCommands(app.Commands), flagsTitle: "GLOBAL OPTIONS", flags: app.VisibleFlags(),
	}
	if !app.HideVersion {
		p.version = app.Version
	}
	return p
}

// commandPage is the page of cmd run as name.
func commandPage(cmd *cli.Command, name string) helpPage {
	return helpPage{
		name: name, usage: cmd.Usage, path: name, usageLine: CommandUsageLine(name, cmd), doc: ParseDoc(cmd.Description),
		commands: visibleCommands(cmd.Subcommands), flagsTitle: "OPTIONS", flags: cmd.VisibleFlags(),
	}
}

// AppHelp is the help of app at width columns.
func AppHelp(app *cli.App, width int) string {
	name := app.HelpName
	if name == "" {
		name = app.Name
	}
	return appPage(app, name).text(width)
}

// CommandHelp is the help of cmd at width columns.
func CommandHelp(cmd *cli.Command, width int) string {
	name := cmd.HelpName
	if name == "" {
		name = cmd.Name
	}
	return commandPage(cmd, name).text(width)
}

// CommandUsageLine is the usage line of cmd run as name: its options,
// then its subcommand or its arguments.
func CommandUsageLine(name string, cmd *cli.Command) string {
	if cmd.UsageText != "" {
		return cmd.UsageText
	}
	if len(visibleCommands(cmd.Subcommands)) > 0 {
		return name + " command [command options]"
	}
	return strings.TrimSpace(name + " [command options] " + strings.TrimSpace(cmd.ArgsUsage))
}

// visibleCommands are cmds without the hidden ones and without urfave's
// help command (help is --help on every command).
func visibleCommands(cmds []*cli.Command) []*cli.Command {
	var out []*cli.Command
	for _, c := range cmds {
		if !c.Hidden && c.Name != "help" {
			out = append(out, c)
		}
	}
	return out
}

// Indentation of the help.
const (
	helpIndent  = 3
	helpGap     = 2
	helpExample = 2 // further indentation of an example's continuation lines
)

// text is the page as the terminal shows it, width columns wide.
func (p helpPage) text(width int) string {
	b := helpBuilder{width: width}
	b.section("NAME")
	b.hanging(p.name+" - ", p.usage)
	b.section("USAGE")
	b.prose(p.usageLine)
	if p.version != "" {
		b.section("VERSION")
		b.prose(p.version)
	}
	b.doc(p.doc)
	b.commands(p.commands)
	b.flags(p.flagsTitle, p.flags)
	return b.String()
}

type helpBuilder struct {
	strings.Builder
	width int
}

func (b *helpBuilder) section(title string) {
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	b.WriteString(title + ":\n")
}

func (b *helpBuilder) line(s string) {
	b.WriteString(strings.TrimRight(s, " ") + "\n")
}

// prose writes text wrapped at the help's indentation (proseLines).
func (b *helpBuilder) prose(text string) {
	for _, l := range proseLines(text, b.width-helpIndent) {
		b.line(strings.Repeat(" ", helpIndent) + l)
	}
}

// proseLines are the lines of text at most width wide (but for a word
// longer than that): a paragraph's lines are joined and wrapped, a line
// that starts with a space is kept as it is, or when too long wrapped
// under its own indentation and two more; "" separates two paragraphs.
func proseLines(text string, width int) []string {
	var out []string
	for _, l := range proseBlocks(text, width) {
		out = append(out, l.lines...)
		if l.paraEnd {
			out = append(out, "")
		}
	}
	return out
}

// proseBlock is a run of lines of a description: filled prose, or lines
// kept as written.
type proseBlock struct {
	lines   []string
	kept    bool
	paraEnd bool // a paragraph ends after it
}

func proseBlocks(text string, width int) []proseBlock {
	var out []proseBlock
	paras := strings.Split(strings.Trim(text, "\n"), "\n\n")
	for i, para := range paras {
		var words []string
		flush := func() {
			if len(words) > 0 {
				out = append(out, proseBlock{lines: Wrap(strings.Join(words, " "), width)})
				words = nil
			}
		}
		for _, l := range strings.Split(para, "\n") {
			if !strings.HasPrefix(l, " ") {
				words = append(words, strings.Fields(l)...)
				continue
			}
			flush()
			if len(out) == 0 || !out[len(out)-1].kept || out[len(out)-1].paraEnd {
				out = append(out, proseBlock{kept: true})
			}
			kept := &out[len(out)-1]
			kept.lines = append(kept.lines, keptLine(strings.TrimRight(l, " "), width)...)
		}
		flush()
		if i < len(paras)-1 && len(out) > 0 {
			out[len(out)-1].paraEnd = true
		}
	}
	return out
}

// keptLine is a line kept as written, wrapped when longer than width
// under its indentation and two more.
func keptLine(l string, width int) []string {
	if TextWidth(l) <= width {
		return []string{l}
	}
	indent := len(l) - len(strings.TrimLeft(l, " "))
	lines := Wrap(l, width-indent-2)
	for i := range lines {
		pad := indent
		if i > 0 {
			pad += 2
		}
		lines[i] = strings.Repeat(" ", pad) + lines[i]
	}
	return lines
}

// hanging writes head then text wrapped, its further lines under the
// text's start (or under the head's when the head is wide).
func (b *helpBuilder) hanging(head, text string) {
	col := helpIndent + TextWidth(head)
	if col > b.width/2 {
		col = helpIndent + 4
	}
	lines := Wrap(text, b.width-col)
	if len(lines) == 0 {
		lines = []string{""}
	}
	b.line(strings.Repeat(" ", helpIndent) + head + lines[0])
	for _, l := range lines[1:] {
		b.line(strings.Repeat(" ", col) + l)
	}
}

func (b *helpBuilder) doc(d Doc) {
	if d.Description != "" {
		b.section("DESCRIPTION")
		b.prose(d.Description)
	}
	if len(d.Examples) > 0 {
		b.section("EXAMPLES")
		for _, l := range exampleLines(d.Examples, b.width-helpIndent) {
			b.line(strings.Repeat(" ", helpIndent) + l)
		}
	}
	if len(d.ExitCodes) > 0 {
		b.section("EXIT CODES")
		w := 0
		for _, c := range d.ExitCodes {
			w = max(w, len(c.Code))
		}
		for i, c := range d.ExitCodes {
			if c.Code == "" {
				if i > 0 {
					b.WriteString("\n")
				}
				b.prose(c.Meaning)
				continue
			}
			b.hanging(c.Code+strings.Repeat(" ", w-len(c.Code)+helpGap), c.Meaning)
		}
	}
}

// exampleLines are the lines of examples at most width wide: a comment
// wrapped, each of its lines starting with "# ", a command broken where
// the shell reads it the same (WrapCommand).
func exampleLines(examples []string, width int) []string {
	var out []string
	for _, ex := range examples {
		if c, ok := strings.CutPrefix(ex, "#"); ok {
			for _, l := range Wrap(strings.TrimSpace(c), width-2) {
				out = append(out, "# "+l)
			}
			continue
		}
		out = append(out, WrapCommand(ex, width, helpExample)...)
	}
	return out
}

func (b *helpBuilder) commands(cmds []*cli.Command) {
	if len(cmds) == 0 {
		return
	}
	b.section("COMMANDS")
	w := 0
	for _, c := range cmds {
		w = max(w, TextWidth(strings.Join(c.Names(), ", ")))
	}
	for _, c := range cmds {
		names := strings.Join(c.Names(), ", ")
		b.hanging(names+strings.Repeat(" ", w-TextWidth(names)+helpGap), c.Usage)
	}
}

func (b *helpBuilder) flags(title string, flags []cli.Flag) {
	if len(flags) == 0 {
		return
	}
	b.section(title)
	type row struct{ names, text string }
	rows := make([]row, 0, len(flags))
	// The names' column is as wide as the longest names that fit in a
	// third of the width; longer names stand on their own line, their
	// text under the column.
	limit := (b.width - helpIndent) / 3
	w := 0
	for _, f := range flags {
		names, text := FlagHelp(f)
		rows = append(rows, row{names, text})
		if n := TextWidth(names); n <= limit {
			w = max(w, n)
		}
	}
	col := helpIndent + w + helpGap
	pad := strings.Repeat(" ", helpIndent)
	for _, r := range rows {
		lines := Wrap(r.text, b.width-col)
		n := TextWidth(r.names)
		if n > w || len(lines) == 0 {
			// Names too long for the width go on under themselves.
			for i, l := range Wrap(r.names, b.width-helpIndent-helpGap) {
				if i > 0 {
					l = strings.Repeat(" ", helpGap) + l
				}
				b.line(pad + l)
			}
		} else {
			b.line(pad + r.names + strings.Repeat(" ", col-helpIndent-n) + lines[0])
			lines = lines[1:]
		}
		for _, l := range lines {
			b.line(strings.Repeat(" ", col) + l)
		}
	}
}

// FlagHelp is how help shows flag f: its names, each with its dashes and
// the value's placeholder once at the end ("--namespace, -n NAMESPACE";
// "FILE..." for a flag that may be repeated), and its text: the usage,
// the default and the environment variable, as urfave/cli writes them
// (without the "(default: false)" of a switch). The placeholder is
// FlagPlaceholder.
func FlagHelp(f cli.Flag) (names, text string) {
	names = strings.Join(flagNames(f), ", ")
	if p := flagValue(f); p != "" {
		names += " " + p
	}
	_, text, _ = strings.Cut(f.String(), "\t")
	if _, ok := f.(*cli.BoolFlag); ok {
		text = strings.Replace(text, " (default: false)", "", 1)
	}
	return names, strings.TrimSpace(text)
}

// flagNames are the names of f with their dashes, as typed.
func flagNames(f cli.Flag) []string {
	var ns []string
	for _, n := range f.Names() {
		if n = strings.TrimSpace(n); n == "" {
			continue
		}
		if utf8.RuneCountInString(n) == 1 {
			ns = append(ns, "-"+n)
		} else {
			ns = append(ns, "--"+n)
		}
	}
	return ns
}

// flagValue is the placeholder of f as help shows it after the names:
// FlagPlaceholder, with "..." for a flag that may be repeated.
func flagValue(f cli.Flag) string {
	p := FlagPlaceholder(f)
	if p != "" && repeatable(f) {
		p += "..."
	}
	return p
}

// FlagPlaceholder is the placeholder of a flag that takes a value: the
// first word of its usage in backquotes; for a flag that takes one of a
// set of words (Enum), what the words are ("output format": FORMAT); else
// "VALUE". It is "" for a switch.
func FlagPlaceholder(f cli.Flag) string {
	df, ok := f.(cli.DocGenerationFlag)
	if !ok || !df.TakesValue() {
		return ""
	}
	usage := df.GetUsage()
	if i := strings.IndexByte(usage, '`'); i >= 0 {
		if j := strings.IndexByte(usage[i+1:], '`'); j >= 0 {
			return usage[i+1 : i+1+j]
		}
	}
	if g, ok := f.(*cli.GenericFlag); ok {
		if e, ok := g.Value.(interface{ placeholder() string }); ok && e.placeholder() != "" {
			return e.placeholder()
		}
	}
	return "VALUE"
}

// placeholder is how help names the word an Enum takes: the last word of
// what it names, in capitals ("output format": FORMAT), or "" when that
// says nothing more ("--fail-on value").
func (e *Enum[T]) placeholder() string {
	words := strings.Fields(e.what)
	if len(words) == 0 || strings.EqualFold(words[len(words)-1], "value") {
		return ""
	}
	return strings.ToUpper(words[len(words)-1])
}

// repeatable reports whether f may be given more than once, each adding a
// value.
func repeatable(f cli.Flag) bool {
	switch f.(type) {
	case *cli.StringSliceFlag, *cli.IntSliceFlag, *cli.Int64SliceFlag, *cli.Float64SliceFlag, *cli.UintSliceFlag, *cli.Uint64SliceFlag:
		return true
	}
	return false
}

// TextWidth is the number of columns s takes on a terminal: two for a
// wide character (CJK, most emoji), none for a combining mark or a
// zero-width one, one for any other.
func TextWidth(s string) int {
	n := 0
	for _, r := range s {
		switch {
		case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf) || r == 0x200b || (r >= 0xfe00 && r <= 0xfe0f):
		case wide(r):
			n += 2
		default:
			n++
		}
	}
	return n
}

// wide reports whether a terminal shows r two columns wide: the East
// Asian wide and fullwidth blocks, and the emoji blocks.
func wide(r rune) bool {
	return r >= 0x1100 && (r <= 0x115f || // Hangul Jamo
		r >= 0x2e80 && r <= 0xa4cf && r != 0x303f || // CJK … Yi
		r >= 0xac00 && r <= 0xd7a3 || // Hangul syllables
		r >= 0xf900 && r <= 0xfaff || // CJK compatibility ideographs
		r >= 0xfe30 && r <= 0xfe4f || // CJK compatibility forms
		r >= 0xff00 && r <= 0xff60 || r >= 0xffe0 && r <= 0xffe6 || // fullwidth forms
		r >= 0x1f300 && r <= 0x1f64f || r >= 0x1f680 && r <= 0x1f6ff || r >= 0x1f900 && r <= 0x1f9ff || // emoji
		r >= 0x20000 && r <= 0x3fffd) // CJK extensions
}

// Wrap breaks text into lines of at most width columns (TextWidth) at
// spaces; a word longer than width (a URL, a path) stands alone on its
// line, whole.
func Wrap(text string, width int) []string {
	return fill(strings.Fields(text), width, "", 0)
}

// fill puts words on lines of at most width columns (TextWidth), as many
// as fit, one space apart; a line that goes on ends with cont, which
// counts in its width, and the next starts indent columns in. A word
// longer than a line stands alone on its line, whole.
func fill(words []string, width int, cont string, indent int) []string {
	var lines []string
	cur, n := "", 0
	limit := width - TextWidth(cont)
	for _, w := range words {
		wn := TextWidth(w)
		switch {
		case n == 0:
			cur, n = w, wn
		case n+1+wn <= limit:
			cur, n = cur+" "+w, n+1+wn
		default:
			lines = append(lines, cur+cont)
			cur, n = strings.Repeat(" ", indent)+w, indent+wn
		}
	}
	if n > 0 {
		lines = append(lines, cur)
	}
	return lines
}

// WrapCommand breaks a shell command line into lines of at most width
// characters that the shell reads as the same command: each line but
// the last ends with " \", the next ones are indented by indent. It
// breaks only at spaces outside quotes, and not between a flag and the
// word after it (its value, most often); a word too long for a line
// stays whole.
func WrapCommand(cmd string, width, indent int) []string {
	if TextWidth(cmd) <= width {
		return []string{cmd}
	}
	var words []string
	start, quote := 0, rune(0)
	for i, r := range cmd {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == ' ':
			if i > start {
				words = append(words, cmd[start:i])
			}
			start = i + 1
		}
	}
	if start < len(cmd) {
		words = append(words, cmd[start:])
	}
	// A flag and its value, a redirection and its file, stay on one line.
	var units []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		flag := strings.HasPrefix(w, "-") && !strings.Contains(w, "=")
		next := ""
		if i+1 < len(words) {
			next = words[i+1]
		}
		value := next != "" && (next == "-" || !strings.HasPrefix(next, "-")) && !shellOperator[next] && !redirection[next]
		if next != "" && (redirection[w] || flag && value) {
			w += " " + words[i+1]
			i++
		}
		units = append(units, w)
	}
	return fill(units, width, " \\", indent)
}

// shellOperator and redirection are the words of a command line that are
// no flag's value; a redirection's file follows it.
var (
	shellOperator = map[string]bool{"|": true, "||": true, "&&": true, ";": true, "2>&1": true}
	redirection   = map[string]bool{">": true, ">>": true, "<": true, "2>": true}
)

// Man pages. HelpManPages lays out the same page as the terminal's help
// in roff for man(1): the SYNOPSIS is the usage line, each option its
// names and placeholder in bold and italics, then its text.

// manWidth is the width of the lines a man page keeps as written
// (examples, kept lines of a description): man indents them by 11
// columns, and a terminal has 80.
const manWidth = 68

// HelpManPages returns the man pages (section 1) of app by file name:
// NAME.1 for the application, NAME-COMMAND….1 for each visible command
// and subcommand, each in the layout of its help, with the other pages
// under SEE ALSO.
func HelpManPages(app *cli.App) map[string]string {
	pages := map[string]string{}
	var cmdPages []string
	var add func(path []string, cmds []*cli.Command)
	add = func(path []string, cmds []*cli.Command) {
		for _, c := range visibleCommands(cmds) {
			p := append(append([]string{}, path...), c.Name)
			cmdPages = append(cmdPages, strings.Join(p, "-"))
			add(p, c.Subcommands)
		}
	}
	add([]string{app.Name}, app.Commands)
	source := strings.TrimSpace(app.Name + " " + app.Version)
	pages[app.Name+".1"] = appPage(app, app.Name).roff(app.Name, source, cmdPages)
	var write func(path []string, cmds []*cli.Command)
	write = func(path []string, cmds []*cli.Command) {
		for _, c := range visibleCommands(cmds) {
			p := append(append([]string{}, path...), c.Name)
			title := strings.Join(p, "-")
			seeAlso := []string{strings.Join(path, "-")}
			for _, sub := range visibleCommands(c.Subcommands) {
				seeAlso = append(seeAlso, title+"-"+sub.Name)
			}
			page := commandPage(c, strings.Join(p, " "))
			page.name = title
			pages[title+".1"] = page.roff(title, source, seeAlso)
			write(p, c.Subcommands)
		}
	}
	write([]string{app.Name}, app.Commands)
	return pages
}

// roff is the page as a man page titled title, from source (the tool and
// its version), naming the pages seeAlso.
func (p helpPage) roff(title, source string, seeAlso []string) string {
	var b strings.Builder
	line := func(s string) { b.WriteString(s + "\n") }
	text := func(s string) { line(roffText(s)) }
	line(".TH " + title + ` 1 "" ` + roffQuote(source))
	// No word of a command line or a flag is hyphenated, and lines are
	// not stretched to the margin.
	line(".nh")
	line(".ad l")
	line(".SH NAME")
	text(p.name + " - " + p.usage)
	line(".SH SYNOPSIS")
	syn := roffText(p.usageLine)
	if cmd := roffText(p.path); strings.HasPrefix(syn, cmd) {
		syn = `\fB` + cmd + `\fR` + syn[len(cmd):]
	}
	line(syn)
	if p.doc.Description != "" {
		line(".SH DESCRIPTION")
		for i, blk := range proseBlocks(p.doc.Description, manWidth) {
			if i > 0 {
				line(".PP")
			}
			if !blk.kept {
				text(strings.Join(blk.lines, " "))
				continue
			}
			line(".RS 4")
			line(".nf")
			for _, l := range blk.lines {
				text(l)
			}
			line(".fi")
			line(".RE")
		}
	}
	if len(p.doc.Examples) > 0 {
		line(".SH EXAMPLES")
		line(".nf")
		for _, l := range exampleLines(p.doc.Examples, manWidth) {
			text(l)
		}
		line(".fi")
	}
	if len(p.doc.ExitCodes) > 0 {
		line(".SH " + roffSection("EXIT CODES"))
		for _, c := range p.doc.ExitCodes {
			if c.Code == "" {
				line(".PP")
			} else {
				line(".TP")
				line(".B " + c.Code)
			}
			text(c.Meaning)
		}
	}
	if len(p.commands) > 0 {
		line(".SH COMMANDS")
		for _, c := range p.commands {
			line(".TP")
			line(`\fB` + roffText(strings.Join(c.Names(), ", ")) + `\fR`)
			text(c.Usage)
		}
	}
	if len(p.flags) > 0 {
		line(".SH " + roffSection(p.flagsTitle))
		for _, f := range p.flags {
			line(".TP")
			names := make([]string, 0, 2)
			for _, n := range flagNames(f) {
				names = append(names, `\fB`+roffText(n)+`\fR`)
			}
			head := strings.Join(names, ", ")
			if v := flagValue(f); v != "" {
				head += ` \fI` + roffText(v) + `\fR`
			}
			line(head)
			_, t := FlagHelp(f)
			text(t)
		}
	}
	if len(seeAlso) > 0 {
		line(".SH " + roffSection("SEE ALSO"))
		refs := make([]string, len(seeAlso))
		for i, s := range seeAlso {
			refs[i] = `\fB` + roffText(s) + `\fR(1)`
		}
		line(strings.Join(refs, ", "))
	}
	return b.String()
}

// roffText is s as text of a man page: backslashes and dashes escaped
// (a dash is a minus, as typed), and a line that would start with a
// control character kept as text.
func roffText(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

// roffSection is the title of a section, quoted when it has more than
// one word.
func roffSection(title string) string {
	if strings.Contains(title, " ") {
		return roffQuote(title)
	}
	return title
}

// roffQuote is s as one argument of a roff request.
func roffQuote(s string) string {
	return `"` + strings.ReplaceAll(roffText(s), `"`, `""`) + `"`
}
