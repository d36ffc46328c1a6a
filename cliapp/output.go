package cliapp

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

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
	for i, a := range allowed {
		names[i] = string(a)
	}
	return &cli.GenericFlag{
		Name:    "output",
		Aliases: []string{"o"},
		Usage:   "output format: " + strings.Join(names, ", ") + " (" + OutputEnv + " when it is one of these)",
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
// table with table.
func DocumentWriters(table func(io.Writer) error, doc any) Writers {
	return Writers{
		FormatTable: table,
		FormatJSON:  func(w io.Writer) error { return envelope.WriteJSON(w, doc) },
		FormatYAML:  func(w io.Writer) error { return envelope.WriteYAML(w, doc) },
	}
}

// WriteOutput writes the result in the format of -o to standard output; a
// failed write is an operational error.
func WriteOutput(c *cli.Context, ws Writers) error { return WriteAs(c, OutputOf(c), ws) }

// WriteAs is WriteOutput in format f. A table is written whole, with its
// status marks as ASCII words unless Env.Marks.
func WriteAs(c *cli.Context, f Format, ws Writers) error {
	write, ok := ws[f]
	if !ok {
		return fmt.Errorf("%s cannot write %s", c.Command.FullName(), f)
	}
	e := EnvOf(c)
	if f == FormatTable && !e.Marks {
		// The whole table, so that no mark is cut between two writes.
		write = func(w io.Writer) error {
			var buf strings.Builder
			if err := ws[f](&buf); err != nil {
				return err
			}
			_, err := io.WriteString(w, markWords.Replace(buf.String()))
			return err
		}
	}
	if err := write(e.Stdout); err != nil {
		return fmt.Errorf("write the result: %w", err)
	}
	return nil
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

// IsTerminal reports whether w is a character device (a terminal).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
