package main

import (
	"cmp"

	"github.com/urfave/cli/v2"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/cliapp"
	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/fileio"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

// Every JSON or YAML document a command writes (cliapp.WriteOutput)
// carries apiVersion, kind and the metadata of metadataOf.

// metadataOf is the metadata of the documents a command writes: this
// binary's version, the version of the catalog cat, and the date the
// command runs for (--as-of where the command has it, else today).
func metadataOf(c *cli.Context, cat *catalog.Catalog) (envelope.Metadata, error) {
	asOf, err := cliapp.AsOfOf(c)
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
