package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"gitlab.com/sylva-projects/sylva-planner/action"
	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/cliapp"
)

// loadCatalog returns the catalog named by --catalog, or the embedded one.
// Standard input is read once (cliapp.Env keeps its bytes), so a catalog
// from - loads again on the next call.
func loadCatalog(c *cli.Context) (*catalog.Catalog, error) { return catalogFile(c).Load() }

// catalogFile is the catalog --catalog names.
func catalogFile(c *cli.Context) action.CatalogFile {
	e, name := cliapp.EnvOf(c), c.String("catalog")
	return action.CatalogFile{Name: name, Path: e.Path(name), MaxInput: e.MaxInput, Stdin: func() ([]byte, error) { return e.ReadFile("--catalog", name) }}
}

func catalogCommand() *cli.Command {
	return &cli.Command{
		Name:  "catalog",
		Usage: "show the release catalog the plans are computed from (alone: catalog list)",
		// Alone, with or without -o, it is catalog list.
		Flags:     documentFlags(),
		Action:    catalogList,
		ArgsUsage: " ",
		Subcommands: []*cli.Command{
			{
				Name:      "list",
				Usage:     "list the releases of the catalog",
				Flags:     documentFlags(),
				Action:    catalogList,
				ArgsUsage: " ",
			},
			{
				Name:      "show",
				Usage:     "show what one release ships",
				ArgsUsage: "RELEASE",
				Flags:     documentFlags(),
				Action:    catalogShow,
			},
			catalogImportCommand(),
		},
	}
}

// documentFlags are the flags of the commands that print a document of
// the catalog (catalog list and show, version): the catalog, -o, and
// --as-of, the date of the document's metadata.
func documentFlags() []cli.Flag {
	return []cli.Flag{catalogFlag(), cliapp.OutputFlag(cliapp.FormatTable, cliapp.FormatJSON, cliapp.FormatYAML), cliapp.AsOfFlag()}
}

func catalogList(c *cli.Context) error {
	in, err := commandInputsOf(c)
	if err != nil {
		return err
	}
	// The whole catalog in one document that --catalog reads back.
	l := action.CatalogList{Catalog: in.cat}
	return cliapp.WriteOutput(c, cliapp.DocumentWriters(l.WriteTable, l.Document(in.md)))
}

func catalogShow(c *cli.Context) error {
	if c.Args().Len() != 1 {
		return cliapp.FlagError(c, fmt.Errorf("catalog show takes one release, for example: catalog show 1.6"))
	}
	in, err := commandInputsOf(c)
	if err != nil {
		return err
	}
	doc, err := action.CatalogShowRequest{Catalog: in.cat, Release: c.Args().First(), Metadata: in.md}.Run()
	if err != nil {
		return err
	}
	return cliapp.WriteOutput(c, cliapp.DocumentWriters(doc.WriteTable, doc))
}

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:      "version",
		Usage:     "print the tool and catalog versions",
		ArgsUsage: " ",
		Flags:     documentFlags(),
		Action: func(c *cli.Context) error {
			in, err := commandInputsOf(c)
			if err != nil {
				return err
			}
			doc := action.NewVersion(in.md, action.BuildToolVersion(version, commit), in.cat)
			return cliapp.WriteOutput(c, cliapp.DocumentWriters(doc.WriteTable, doc))
		},
	}
}
