package main

import (
	"cmp"
	"time"

	"github.com/urfave/cli/v2"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/cliapp"
	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/fileio"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

// Every JSON or YAML document a command writes (cliapp.WriteOutput)
// carries apiVersion, kind and the metadata of commandInputs.

// commandInputs are what every command that reads the catalog starts
// from: the catalog (--catalog, or the embedded one), the day it runs for
// (--as-of where the command has it, else today), and the metadata of the
// documents it writes (this binary's version, the catalog's, the day).
type commandInputs struct {
	cat  *catalog.Catalog
	asOf time.Time
	md   envelope.Metadata
}

func commandInputsOf(c *cli.Context) (commandInputs, error) {
	cat, err := loadCatalog(c)
	if err != nil {
		return commandInputs{}, err
	}
	asOf, err := cliapp.AsOfOf(c)
	if err != nil {
		return commandInputs{}, err
	}
	return commandInputs{cat: cat, asOf: asOf, md: envelope.NewMetadata(version, cat.Version, asOf)}, nil
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
// would wait on the terminal. Dir is the directory the command runs in,
// which a command suggested to run in another directory joins its
// relative paths to (envelope.Selection.Abs).
func selectionOf(c *cli.Context) envelope.Selection {
	s := envelope.Selection{Program: cmp.Or(c.App.HelpName, c.App.Name), Dir: cliapp.EnvOf(c).WorkDir()}
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
	if hr := get("helmrelease"); hr != status.DefaultHelmRelease {
		s.HelmRelease = hr
	}
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

// progress writes the progress lines of a chart operation that can take
// long (cliapp.StartProgress); nil when none are shown.
func progress(c *cli.Context, what string) func(string) {
	if p := cliapp.StartProgress(c, what); p != nil {
		return func(s string) { p.Say("%s", s) }
	}
	return nil
}
