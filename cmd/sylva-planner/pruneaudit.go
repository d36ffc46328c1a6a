package main

import (
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/urfave/cli/v2"

	"gitlab.com/sylva-projects/sylva-planner/action"
	"gitlab.com/sylva-projects/sylva-planner/cliapp"
)

func pruneAuditCommand() *cli.Command {
	o := &pruneAuditOptions{}
	return &cli.Command{
		Name:  "prune-audit",
		Usage: "list the transitional units of sylva-units that a release may delete",
		Description: "Reads sylva-units values (several -f files merge as Helm merges them) and classifies every unit\n" +
			"marked `info: {transitional-unit: from-X.Y}` for the release: a unit from-X.Y is needed while\n" +
			"the release supports upgrading from X.Y or older (the catalog's supported sources; n-2 from 1.6).\n\n" +
			"States: prunable (delete it), blocked (prunable, but units that stay depend on it), malformed\n" +
			"(the metadata does not parse), untracked (one_shot, or its description says it will be removed,\n" +
			"but it has no metadata: the line to add is suggested), keep (a supported source still needs it).\n\n" +
			"The release comes from --release, else sylva_release (1.7-pre is 1.7), else\n" +
			"_internal.sylva_branch (release-1.6), else the version in the Chart.yaml beside the first -f file.\n\n" +
			"The chart's schema forbids unknown keys under info: --print-schema-patch prints the JSON Patch\n" +
			"that adds info.transitional-unit; --print-schema-patch --schema charts/sylva-units/values.schema.json\n" +
			"prints that file patched.\n\n" +
			"Without a release in the values or --release, the audit still runs: transitional units are\n" +
			"undecided. Gotpl entries are read literally and listed as unresolved. With --chart DIR the units\n" +
			"are resolved as that chart resolves them (unit_definition_defaults, then unit_templates in order,\n" +
			"then the unit; gotpl interpreted by the chart's own helpers; enabled and depends_on as the chart\n" +
			"decides them), and nothing the chart decides is left unresolved.\n\n" +
			"Examples:\n" +
			"  # the units release 1.7 may delete, as Markdown\n" +
			"  sylva-planner prune-audit -f charts/sylva-units/values.yaml --release 1.7 -o markdown\n\n" +
			"  # the units resolved as the chart resolves them\n" +
			"  sylva-planner prune-audit --chart charts/sylva-units -f environment-values/my-env/values.yaml\n\n" +
			"  # the chart's schema patched to accept info.transitional-unit\n" +
			"  sylva-planner prune-audit --print-schema-patch --schema charts/sylva-units/values.schema.json\n\n" +
			"Exit codes:\n" +
			"  0 the audit ran and nothing reached --fail-on (--fail-on never: always, once the audit ran)\n" +
			"  1 bad input: an unreadable or invalid values file, a release that is not one or is older than\n" +
			"    the catalog, a --schema file the patch does not apply to\n" +
			"  2 --fail-on prunable (default) found a prunable, blocked or malformed unit, or --fail-on\n" +
			"    malformed found a malformed one",
		ArgsUsage: " ",
		Flags: append([]cli.Flag{
			&cli.StringSliceFlag{
				Name: "values", Aliases: []string{"f"}, TakesFile: true,
				Usage:       "sylva-units values `FILE`; repeat to merge several, later files win; - for standard input",
				Destination: &o.values,
			},
			&cli.BoolFlag{Name: "show-unresolved", Usage: "list each unresolved gotpl entry in the table and the Markdown (one line with their count otherwise; -o json and -o yaml always list them)", Destination: &o.showUnresolved},
			&cli.StringFlag{
				Name: "release", EnvVars: []string{"SYLVA_PLANNER_RELEASE"}, Destination: &o.req.Release,
				Usage: "Sylva release to audit for, for example `1.7` (default: read from the values)",
			},
			cliapp.OutputFlag(cliapp.FormatTable, cliapp.FormatJSON, cliapp.FormatYAML, cliapp.FormatMarkdown),
			cliapp.FailOnFlag("exit 2 when a unit is at least in this `STATE`: prunable (also blocked and malformed), malformed, never", "SYLVA_PLANNER_PRUNE_FAIL_ON",
				action.FailOnPrunable, action.FailOnMalformed, action.FailOnNever),
			&cli.BoolFlag{
				Name: "print-schema-patch", Destination: &o.printSchemaPatch,
				Usage: "print the JSON Patch (RFC 6902) that lets values.schema.json accept info.transitional-unit, and exit",
			},
			&cli.StringFlag{
				Name: "schema", TakesFile: true, Destination: &o.schema,
				Usage: "with --print-schema-patch: print this values.schema.json `FILE` with the patch applied instead (the rest of the file unchanged)",
			},
			&cli.StringFlag{
				Name: "chart", TakesFile: true, Destination: &o.req.Chart,
				Usage: "resolve the units as the sylva-units chart in `DIR` (or .tgz) does: its unit templates and gotpl interpreted with its own helpers",
			},
			catalogFlag(),
			cliapp.AsOfFlag(),
		}, cliapp.RenderFlags()...),
		// With --chart, the chart's templates resolve the units.
		Action: cliapp.Budgeted(o.run, func(*cli.Context) bool { return o.req.Chart != "" }),
	}
}

// pruneAuditOptions are the flags of prune-audit, bound.
type pruneAuditOptions struct {
	req                              action.PruneAuditRequest
	values                           cli.StringSlice
	schema                           string
	showUnresolved, printSchemaPatch bool
}

func (o *pruneAuditOptions) run(c *cli.Context) error {
	w := cliapp.EnvOf(c).Stdout
	if o.printSchemaPatch {
		// It prints the schema patch and nothing of an audit.
		for _, name := range []string{"values", "release", "chart", "output", "show-unresolved", "fail-on"} {
			if cliapp.Typed(c, name) {
				return cliapp.FlagError(c, fmt.Errorf("--print-schema-patch prints the schema patch and audits nothing: drop --%s", name))
			}
		}
		return action.SchemaPatch{Schema: o.schema, ReadFile: cliapp.EnvOf(c).ReadFile}.Write(w)
	}
	if o.schema != "" {
		return cliapp.FlagError(c, errors.New("--schema goes with --print-schema-patch"))
	}
	e := cliapp.EnvOf(c)
	req := o.req
	req.Files, req.ReadFile, req.ToolVersion = o.values.Value(), e.Read, versionString()
	in, err := commandInputsOf(c)
	if err != nil {
		return err
	}
	req.Catalog, req.AsOf = in.cat, in.asOf
	if req.Chart != "" {
		req.ChartPath = e.Path(req.Chart)
		// As for values render --chart: the chart's interpretation
		// allocates heavily and briefly; a larger heap between collections
		// trades some memory for less CPU.
		defer debug.SetGCPercent(debug.SetGCPercent(400))
		req.Progress = progress(c, "prune-audit --chart")
	}
	report, err := req.Run(c.Context)
	if err != nil {
		return err
	}
	report.Selection, report.ShowUnresolved = selectionOf(c), o.showUnresolved
	if err := cliapp.WriteOutput(c, cliapp.DocumentWriters(report.WriteTable, report.Document()).With(cliapp.FormatMarkdown, report.WriteMarkdown)); err != nil {
		return err
	}
	return outcomeExit(action.PruneOutcome(report, failOnOf(c)))
}
