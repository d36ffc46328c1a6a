package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"gitlab.com/sylva-projects/sylva-planner/action"
	"gitlab.com/sylva-projects/sylva-planner/cliapp"
)

func catalogImportCommand() *cli.Command {
	return &cli.Command{
		Name:  "import",
		Usage: "read what sylva-core's release tags and branches prove about each release",
		Description: "Reads, at each --ref of a sylva-core git checkout (a tag such as 1.3.10, a branch such as\n" +
			"release-1.3 or main; by default every release tag, release branch and main), the management\n" +
			"cluster's k8s_version_short, the full Kubernetes version per bootstrap provider of\n" +
			"_internal.k8s_version_map, and the version each known unit deploys (Helm chart versions, or\n" +
			"the upstream release a Kustomize unit applies), each with its source REF:PATH#KEY. A value\n" +
			"that needs gotpl interpretation is left out with a note, never guessed. A unit version\n" +
			"becomes a component the gate judges only when the component catalog (--catalog, or the\n" +
			"embedded one) has its Kubernetes range.\n\n" +
			"--update FILE rewrites the imported block of each release entry of that ReleaseCatalog file\n" +
			"(one release per Sylva minor: a release branch wins over tags of its minor, the highest tag\n" +
			"over the others, main is a development line). A ref's release is its tag's or branch's minor;\n" +
			"main's is its sylva_release, else the one after the newest other ref or release tag or branch of\n" +
			"the checkout, or name it: --ref main=1.4. The file is written once, atomically, after the\n" +
			"catalog of its directory loaded with the new file in memory (its other *.yaml files read as\n" +
			"--catalog DIR reads them); if it does not load, the file is not touched.\n\n" +
			"Example: sylva-planner catalog import --sylva-core ../sylva-core --ref 1.3.10 --ref main",
		ArgsUsage: " ",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "sylva-core", Usage: "the top `DIR` of a sylva-core git checkout or clone (required; git does not search its parents)", EnvVars: []string{"SYLVA_PLANNER_SYLVA_CORE"}, TakesFile: true},
			&cli.StringSliceFlag{Name: "ref", Usage: "a tag or branch to read, as `REF` or REF=RELEASE (repeatable; default: every release tag and branch, and main)"},
			&cli.StringFlag{Name: "update", Usage: "rewrite the imported blocks of this ReleaseCatalog `FILE`", TakesFile: true},
			cliapp.OutputFlag(cliapp.FormatTable, cliapp.FormatJSON, cliapp.FormatYAML),
			catalogFlag(),
			cliapp.AsOfFlag(),
		},
		Action: catalogImport,
	}
}

func catalogImport(c *cli.Context) error {
	if c.String("sylva-core") == "" {
		// Checked here, not by urfave/cli's Required, which prints the
		// whole help: a usage error is one line.
		return cliapp.FlagError(c, errors.New("--sylva-core is required: give a sylva-core git checkout, for example --sylva-core ../sylva-core"))
	}
	e := cliapp.EnvOf(c)
	req := action.CatalogImportRequest{
		SylvaCore: c.String("sylva-core"), SylvaCorePath: e.Path(c.String("sylva-core")),
		Refs: c.StringSlice("ref"), Update: c.String("update"),
	}
	if req.Update != "" {
		req.UpdatePath = e.Path(req.Update)
	}
	in, err := commandInputsOf(c)
	if err != nil {
		return err
	}
	req.Catalog, req.Metadata = in.cat, in.md
	rep, err := req.Run(c.Context)
	if err != nil {
		return err
	}
	if req.Update != "" {
		fmt.Fprintf(e.Stderr, "updated %s: %s\n", req.Update, strings.Join(rep.Updated, ", "))
	}
	return cliapp.WriteOutput(c, cliapp.DocumentWriters(rep.WriteTable, rep))
}
