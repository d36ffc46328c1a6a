package cliapp

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"gitlab.com/sylva-projects/sylva-planner/cell"
	"gitlab.com/sylva-projects/sylva-planner/envelope"
)

// The output contract every command follows: -o picks one of the
// command's formats (OutputOf), and the result is written to standard
// output in it (WriteOutput).

// Format is an output format chosen with -o.
type Format string

// The output formats of the tool, in the order help lists them.
const (
	FormatTable    Format = "table"
	FormatJSON     Format = "json"
	FormatYAML     Format = "yaml"
	FormatMarkdown Format = "markdown"
	FormatHTML     Format = "html"
	FormatGitLabCI Format = "gitlab-ci"
)

var formats = []Format{FormatTable, FormatJSON, FormatYAML, FormatMarkdown, FormatHTML, FormatGitLabCI}

// OutputEnv is the environment variable every command reads its output
// format from when -o is not given. One variable serves every command, so
// a value one command does not support (SYLVA_PLANNER_OUTPUT=html for
// plan) gives that command its default format instead of an error; a value
// that is no format at all is refused (WithOutputEnv).
const OutputEnv = "SYLVA_PLANNER_OUTPUT"

// OutputFlag is -o/--output with the given formats, the first one default.
// Its environment variable (OutputEnv) is read by OutputOf, not by the
// flag, so that an unsupported value falls back to the default.
func OutputFlag(allowed ...Format) *cli.GenericFlag {
	names := make([]string, len(allowed))
	var text []string
	for i, a := range allowed {
		names[i] = string(a)
		if textFormats[a] {
			text = append(text, string(a))
		}
	}
	usage := "output format: " + strings.Join(names, ", ") + " (" + OutputEnv + " when it is one of these)"
	if len(text) > 0 {
		usage += "; " + strings.Join(text, " and ") + " " + cell.Plural(len(text), "shows", "show") + " the control characters of inputs as escapes such as \\x1b"
	}
	return &cli.GenericFlag{
		Name:    "output",
		Aliases: []string{"o"},
		Usage:   usage,
		Value:   NewEnum("output format", allowed...),
	}
}

// OutputOf is the output format: -o when given; else OutputEnv when the
// command supports its value; else the command's default.
func OutputOf(c *cli.Context) Format {
	v := c.Generic("output").(*Enum[Format])
	if env := Format(EnvOf(c).Getenv(OutputEnv)); !c.IsSet("output") && v.Allows(env) {
		return env
	}
	return v.Value()
}

// WithOutputEnv has every command (and subcommand) with -o refuse, before
// it runs, a value of OutputEnv that is no output format of the tool: a
// typo must not pass for "use the default".
func WithOutputEnv(cmds []*cli.Command) {
	for _, cmd := range cmds {
		WithOutputEnv(cmd.Subcommands)
		if !HasFlag(cmd.Flags, "output") {
			continue
		}
		AddBefore(cmd, func(c *cli.Context) error {
			if env := EnvOf(c).Getenv(OutputEnv); env != "" {
				if err := NewEnum("output format", formats...).Set(env); err != nil {
					return fmt.Errorf("%s: %w", OutputEnv, err)
				}
			}
			return nil
		})
	}
}

// Writers are the functions that write a command's result, one per output
// format the command declares with OutputFlag.
type Writers map[Format]func(io.Writer) error

// DocumentWriters write doc in JSON and YAML (with its envelope), and the
// table with table (none when nil); With adds the other text formats.
func DocumentWriters(table func(io.Writer) error, doc any) Writers {
	ws := Writers{
		FormatJSON: func(w io.Writer) error { return envelope.WriteJSON(w, doc) },
		FormatYAML: func(w io.Writer) error { return envelope.WriteYAML(w, doc) },
	}
	if table != nil {
		ws[FormatTable] = table
	}
	return ws
}

// With is ws with the writer of format f too.
func (ws Writers) With(f Format, write func(io.Writer) error) Writers {
	ws[f] = write
	return ws
}

// WriteOutput writes the result in the format of -o to standard output; a
// failed write is an operational error.
func WriteOutput(c *cli.Context, ws Writers) error { return WriteAs(c, OutputOf(c), ws) }

// WriteAs is WriteOutput in format f. A text output (a table, Markdown or
// HTML) is written whole, with every character that could drive a
// terminal shown as an escape (cell.Visible: \x1b for ESC), so that a
// value read from a cluster or a file cannot clear the screen or paint
// over the result, on a terminal or in a log read later; a table's
// status marks are ASCII words unless Env.Marks. JSON, YAML and GitLab CI
// are written as their encoders write them.
func WriteAs(c *cli.Context, f Format, ws Writers) error {
	write, ok := ws[f]
	if !ok {
		return fmt.Errorf("%s cannot write %s", c.Command.FullName(), f)
	}
	e := EnvOf(c)
	if textFormats[f] {
		// The whole output, so that no mark or escape is cut between two
		// writes.
		write = func(w io.Writer) error {
			var buf strings.Builder
			if err := ws[f](&buf); err != nil {
				return err
			}
			out := cell.Visible(buf.String())
			if f == FormatTable && !e.Marks {
				out = markWords.Replace(out)
			}
			_, err := io.WriteString(w, out)
			return err
		}
	}
	if err := write(e.Stdout); err != nil {
		return fmt.Errorf("write the result: %w", err)
	}
	return nil
}

// textFormats are the formats people read as they are written, whose
// output WriteAs makes visible.
var textFormats = map[Format]bool{FormatTable: true, FormatMarkdown: true, FormatHTML: true}

// VisibleWriter is w with every write shown as cell.Visible shows it: the
// standard error of a run (Run), the standard logger (RouteStdLog), and
// any text a command writes as it goes. A UTF-8 sequence cut between two
// writes is shown whole. It is safe for concurrent use.
func VisibleWriter(w io.Writer) io.Writer {
	if v, ok := w.(*visibleWriter); ok {
		return v
	}
	return &visibleWriter{w: w}
}

type visibleWriter struct {
	mu sync.Mutex
	w  io.Writer
	// tail is the start of a UTF-8 sequence that the last write ended in.
	tail []byte
}

func (v *visibleWriter) Write(p []byte) (int, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	data := p
	if len(v.tail) > 0 {
		data = slices.Concat(v.tail, p)
	}
	cut := len(data) - cutRune(data)
	out := cell.Visible(string(data[:cut]))
	v.tail = append([]byte(nil), data[cut:]...)
	if _, err := io.WriteString(v.w, out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// flush writes what is left of a cut UTF-8 sequence, shown as bytes.
func (v *visibleWriter) flush() {
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.tail) > 0 {
		_, _ = io.WriteString(v.w, cell.Visible(string(v.tail)))
		v.tail = nil
	}
}

// Unwrap is the writer written to, for IsTerminal.
func (v *visibleWriter) Unwrap() io.Writer { return v.w }

// cutRune is the length of the start of a UTF-8 sequence that p ends in,
// or 0 when p ends with a whole character (or with bytes no further byte
// can make one).
func cutRune(p []byte) int {
	for i := len(p) - 1; i >= 0 && i >= len(p)-utf8.UTFMax; i-- {
		if p[i]&0xc0 == 0x80 {
			continue // a continuation byte: the start is further back
		}
		if p[i] >= 0xc0 && !utf8.FullRune(p[i:]) {
			return len(p) - i
		}
		return 0
	}
	return 0
}

// TerminalMarks reports whether a table may carry Unicode status marks,
// as a terminal shows them: out is a terminal, NO_COLOR
// (https://no-color.org) is unset and TERM is not dumb. Like kubectl and
// flux, the tool writes no colour at all; where the marks are off, they
// are ASCII words, so that logs, pipes and files stay plain.
func TerminalMarks(out *os.File, getenv func(string) string) bool {
	return getenv("NO_COLOR") == "" && getenv("TERM") != "dumb" && IsTerminal(out)
}

// markWords are the ASCII words of the status marks, as wide as each
// other so that columns stay aligned.
var markWords = strings.NewReplacer("✔ ", "OK   ", "✘ ", "FAIL ")

// innermost is the writer w writes to in the end, through every writer
// that wraps another (Unwrap, as VisibleWriter does).
func innermost(w io.Writer) io.Writer {
	for {
		u, ok := w.(interface{ Unwrap() io.Writer })
		if !ok {
			return w
		}
		w = u.Unwrap()
	}
}

// IsTerminal reports whether w is a character device (a terminal), or
// writes to one (VisibleWriter).
func IsTerminal(w io.Writer) bool {
	f, ok := innermost(w).(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
