package main

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/cliapp"
	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/fileio"
)

// This file holds the output contract every command follows: -o picks one
// of the command's formats (outputOf), and every JSON or YAML document
// carries apiVersion, kind and the metadata of metadataOf.

// metadataOf is the metadata of the documents a command writes: this
// binary's version, the version of the catalog cat, and the date the
// command runs for (--as-of where the command has it, else today).
func metadataOf(c *cli.Context, cat *catalog.Catalog) (envelope.Metadata, error) {
	asOf, err := asOfOf(c)
	if err != nil {
		return envelope.Metadata{}, err
	}
	return envelope.NewMetadata(version, cat.Version, asOf), nil
}

// catalogMetadata loads the catalog (loadCatalog) and the metadata of the
// documents the command writes with it (metadataOf).
func catalogMetadata(c *cli.Context) (*catalog.Catalog, envelope.Metadata, error) {
	cat, err := loadCatalog(c)
	if err != nil {
		return nil, envelope.Metadata{}, err
	}
	md, err := metadataOf(c, cat)
	return cat, md, err
}

// writers are the functions that write a command's result, one per output
// format the command declares with outputFlag.
type writers map[format]func(io.Writer) error

// writeOutput writes the result in the format of -o to standard output; a
// failed write is an operational error.
func writeOutput(c *cli.Context, ws writers) error { return writeAs(c, outputOf(c), ws) }

// writeAs is writeOutput in format f.
func writeAs(c *cli.Context, f format, ws writers) error {
	write, ok := ws[f]
	if !ok {
		return withCode(exitError, fmt.Errorf("%s cannot write %s", c.Command.FullName(), f))
	}
	out := envOf(c).stdout
	if f == formatTable && !envOf(c).marks {
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
	if err := write(out); err != nil {
		return withCode(exitError, fmt.Errorf("write the result: %w", err))
	}
	return nil
}

// documentWriters write doc in JSON and YAML, and the table with table.
func documentWriters(table func(io.Writer) error, doc any) writers {
	return writers{
		formatTable: table,
		formatJSON:  func(w io.Writer) error { return envelope.WriteJSON(w, doc) },
		formatYAML:  func(w io.Writer) error { return envelope.WriteYAML(w, doc) },
	}
}

// rerunCommand is the command line that computes the same result again
// (cliapp.Rerun), without the flags that only say where and how it is
// written.
func rerunCommand(c *cli.Context) string {
	return cliapp.Rerun(c, shellQuote, "output", "metrics-file", "help")
}

// selectionOf is what c was told to read: the selecting flags of
// envelope.Selection that c's command declares and that were given (on the
// command line or from the environment), and how the user runs the tool. A
// value read from standard input (-) is not repeated: a suggested command
// would wait on the terminal.
func selectionOf(c *cli.Context) envelope.Selection {
	s := envelope.Selection{Program: cmp.Or(c.App.HelpName, c.App.Name)}
	get := func(name string) string {
		if c.Command == nil || !cliapp.HasFlag(c.Command.Flags, name) || !c.IsSet(name) {
			return ""
		}
		if v := c.String(name); v != fileio.StdinName {
			return v
		}
		return ""
	}
	s.Kubeconfig, s.Context, s.Namespace = get("kubeconfig"), get("context"), get("namespace")
	s.Catalog, s.Chart, s.To = get("catalog"), get("chart"), get("to")
	switch c.Command.Name {
	case "status", "reconcile":
		s.State = get("file")
	case "plan", "report", "verify", "render":
		s.State = get("status")
	}
	return s
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string { return envelope.ShellQuote(s) }

// terminalMarks reports whether the table may carry Unicode status marks,
// as a terminal shows them: out is a terminal, NO_COLOR
// (https://no-color.org) is unset and TERM is not dumb. Like kubectl and
// flux, the tool writes no colour at all; where the marks are off, they
// are ASCII words, so that logs, pipes and files stay plain.
func terminalMarks(out *os.File, getenv func(string) string) bool {
	if getenv("NO_COLOR") != "" || getenv("TERM") == "dumb" {
		return false
	}
	st, err := out.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// markWords are the ASCII words of the status marks, as wide as each
// other so that columns stay aligned.
var markWords = strings.NewReplacer("✔ ", "OK   ", "✘ ", "FAIL ")
