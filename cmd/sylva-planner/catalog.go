package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing/fstest"

	"github.com/urfave/cli/v2"

	"gitlab.com/sylva-projects/sylva-planner/action"
	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/cliapp"
	"gitlab.com/sylva-projects/sylva-planner/fileio"
)

// loadCatalog returns the catalog named by --catalog, or the embedded one.
// Standard input is read once (cliapp.Env keeps its bytes), so a catalog
// from - loads again on the next call.
func loadCatalog(c *cli.Context) (*catalog.Catalog, error) {
	name := c.String("catalog")
	switch name {
	case "":
		cat, err := catalog.Default()
		if err != nil {
			return nil, fmt.Errorf("embedded catalog: %w", err)
		}
		return cat, nil
	case fileio.StdinName:
		data, err := cliapp.EnvOf(c).ReadFile("--catalog", name)
		if err != nil {
			return nil, err
		}
		cat, err := catalog.LoadFile(fstest.MapFS{"stdin.yaml": {Data: data}}, "stdin.yaml")
		if err != nil {
			return nil, fmt.Errorf("--catalog -: %w", err)
		}
		return cat, nil
	}
	abs, err := filepath.Abs(cliapp.EnvOf(c).Path(name))
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(abs); err != nil {
		// Named whole: the catalog reads its base name within its folder.
		return nil, fmt.Errorf("--catalog %s: %w; give a catalog file (sylva-planner catalog list -o yaml > catalog.yaml writes one)", name, err)
	}
	cat, err := catalog.LoadFile(fileio.DirFS(filepath.Dir(abs), cliapp.EnvOf(c).MaxInput), filepath.Base(abs))
	if err != nil {
		return nil, fmt.Errorf("--catalog %s: %w", name, err)
	}
	return cat, nil
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
	cat, md, err := catalogMetadata(c)
	if err != nil {
		return err
	}
	// The whole catalog in one document that --catalog reads back.
	l := action.CatalogList{Catalog: cat}
	return cliapp.WriteOutput(c, cliapp.DocumentWriters(l.WriteTable, l.Document(md)))
}

func catalogShow(c *cli.Context) error {
	if c.Args().Len() != 1 {
		return cliapp.FlagError(c, fmt.Errorf("catalog show takes one release, for example: catalog show 1.6"))
	}
	cat, md, err := catalogMetadata(c)
	if err != nil {
		return err
	}
	doc, err := action.CatalogShowRequest{Catalog: cat, Release: c.Args().First(), Metadata: md}.Run()
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
			cat, md, err := catalogMetadata(c)
			if err != nil {
				return err
			}
			doc := action.NewVersion(md, action.ToolVersion{Version: toolVersionString(), Commit: commitString(), GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}, cat)
			return cliapp.WriteOutput(c, cliapp.DocumentWriters(doc.WriteTable, doc))
		},
	}
}

// toolVersionString is the version stamped at build time, or, for a
// `go install …@vX` build, the module version Go recorded.
// commitString is the commit stamped by make build, else the one Go
// recorded when it built from a git checkout (vcs.revision, -dirty when
// modified), else "".
func commitString() string {
	if commit != "" {
		return commit
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	rev, dirty := "", ""
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision":
			rev = s.Value
		case s.Key == "vcs.modified" && s.Value == "true":
			dirty = "-dirty"
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev == "" {
		return ""
	}
	return rev + dirty
}

func toolVersionString() string {
	if version != "dev" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return version
}
