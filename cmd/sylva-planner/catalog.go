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
		Description: "The catalog says, for each Sylva release, the Kubernetes minors it runs, its components and\n" +
			"their versions, and the releases it upgrades from. The embedded one is used unless --catalog\n" +
			"names another. catalog alone (with or without -o, --catalog, --as-of) is catalog list.\n\n" +
			"Examples:\n" +
			"  sylva-planner catalog list\n\n" +
			"  # one release, with its full Kubernetes versions and its components\n" +
			"  sylva-planner catalog show 1.6\n\n" +
			"  # the whole catalog in one document that --catalog reads back\n" +
			"  sylva-planner catalog list -o yaml > catalog.yaml\n\n" +
			"Exit codes:\n" +
			"  0 done\n" +
			"  1 bad input: a --catalog that does not load, a release the catalog does not have, a bad\n" +
			"    --as-of",
		// Alone, with or without -o, it is catalog list.
		Flags:     documentFlags(),
		Action:    catalogList,
		ArgsUsage: " ",
		Subcommands: []*cli.Command{
			{
				Name:  "list",
				Usage: "list the releases of the catalog",
				Description: "One line per release: its management Kubernetes minor, its workload minors, its components\n" +
					"and the releases it upgrades from. -o yaml is the whole catalog in one document that\n" +
					"--catalog reads back.\n\n" +
					"Examples:\n" +
					"  sylva-planner catalog list\n\n" +
					"  # the catalog of a directory of *.yaml files, as one document\n" +
					"  sylva-planner catalog list --catalog my-catalog -o yaml\n\n" +
					"Exit codes:\n" +
					"  0 done\n" +
					"  1 bad input: a --catalog that does not load, a bad --as-of",
				Flags:     documentFlags(),
				Action:    catalogList,
				ArgsUsage: " ",
			},
			{
				Name:  "show",
				Usage: "show what one release ships",
				Description: "One release: its full Kubernetes versions per bootstrap provider and its component versions\n" +
					"with their Kubernetes ranges. -o yaml is the release and the components it names.\n\n" +
					"Examples:\n" +
					"  sylva-planner catalog show 1.6\n\n" +
					"  sylva-planner catalog show 1.7 -o json\n\n" +
					"Exit codes:\n" +
					"  0 done\n" +
					"  1 bad input: no release or a release the catalog does not have, a --catalog that does\n" +
					"    not load",
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
		Name:  "version",
		Usage: "print the tool and catalog versions",
		Description: "Without -o, the tool version and the catalog version, date and range. -o json or -o yaml is a\n" +
			"Version document: the tool version, the commit, Go version and platform, and the catalog\n" +
			"version, date and releases.\n\n" +
			"Examples:\n" +
			"  sylva-planner version\n\n" +
			"  sylva-planner version -o json\n\n" +
			"Exit codes:\n" +
			"  0 done\n" +
			"  1 bad input: a --catalog that does not load, a bad --as-of",
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
