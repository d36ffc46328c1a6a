package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/fileio"
	"gitlab.com/sylva-projects/sylva-planner/skew"
	"gitlab.com/sylva-projects/sylva-planner/units"
)

// pruneFailOn is the --fail-on threshold of prune-audit.
type pruneFailOn string

const (
	pruneFailOnPrunable  pruneFailOn = "prunable"
	pruneFailOnMalformed pruneFailOn = "malformed"
	pruneFailOnNever     pruneFailOn = "never"
)

func pruneAuditCommand() *cli.Command {
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
			"Exit codes: 0 nothing at or above --fail-on; 1 bad input (unreadable or invalid values file,\n" +
			"unknown release); 2 --fail-on prunable (default) found a prunable, blocked or malformed unit, or\n" +
			"--fail-on malformed found a malformed one. --fail-on never always exits 0 once the audit ran.\n\n" +
			"Example: sylva-planner prune-audit -f charts/sylva-units/values.yaml --release 1.7 -o markdown",
		ArgsUsage: " ",
		Flags: append([]cli.Flag{
			&cli.StringSliceFlag{
				Name: "values", Aliases: []string{"f"}, TakesFile: true,
				Usage: "sylva-units values `FILE`; repeat to merge several, later files win; - for standard input",
			},
			&cli.BoolFlag{Name: "show-unresolved", Usage: "list each unresolved gotpl entry in the table and the Markdown (one line with their count otherwise; -o json and -o yaml always list them)"},
			&cli.StringFlag{
				Name: "release", EnvVars: []string{"SYLVA_PLANNER_RELEASE"},
				Usage: "Sylva release to audit for, for example `1.7` (default: read from the values)",
			},
			outputFlag(formatTable, formatJSON, formatYAML, formatMarkdown),
			&cli.GenericFlag{
				Name:    "fail-on",
				Usage:   "exit 2 when a unit is at least this actionable: prunable (also blocked and malformed), malformed, never",
				Value:   &enumValue[pruneFailOn]{what: "--fail-on value", allowed: []pruneFailOn{pruneFailOnPrunable, pruneFailOnMalformed, pruneFailOnNever}, value: pruneFailOnPrunable},
				EnvVars: []string{"SYLVA_PLANNER_PRUNE_FAIL_ON"},
			},
			&cli.BoolFlag{
				Name:  "print-schema-patch",
				Usage: "print the JSON Patch (RFC 6902) that lets values.schema.json accept info.transitional-unit, and exit",
			},
			&cli.StringFlag{
				Name: "schema", TakesFile: true,
				Usage: "with --print-schema-patch: print this values.schema.json `FILE` with the patch applied instead (the rest of the file unchanged)",
			},
			&cli.StringFlag{
				Name: "chart", TakesFile: true,
				Usage: "resolve the units as the sylva-units chart in `DIR` (or .tgz) does: its unit templates and gotpl interpreted with its own helpers",
			},
			catalogFlag(),
		}, renderFlags()...),
		// With --chart, the chart's templates resolve the units.
		Action: budgeted(pruneAuditAction, func(c *cli.Context) bool { return c.String("chart") != "" }),
	}
}

type pruneAuditOptions struct {
	files   []string
	chart   string
	release string
	failOn  pruneFailOn
	// asOf is the day of the report's metadata.
	asOf time.Time
}

func pruneAuditAction(c *cli.Context) error {
	if c.Args().Len() > 0 {
		return usageError(c, fmt.Errorf("prune-audit takes no argument, got %q (give values files with -f)", c.Args().First()), true)
	}
	w := envOf(c).stdout
	if c.Bool("print-schema-patch") {
		return printSchemaPatch(w, c.String("schema"), envOf(c))
	}
	if c.String("schema") != "" {
		return usageError(c, errors.New("--schema goes with --print-schema-patch"), true)
	}
	opts := pruneAuditOptions{
		files: c.StringSlice("values"), chart: c.String("chart"), release: c.String("release"),
		failOn: enumOf[pruneFailOn](c, "fail-on"), asOf: envOf(c).today,
	}
	if len(opts.files) == 0 {
		return usageError(c, errors.New("prune-audit needs the sylva-units values: -f charts/sylva-units/values.yaml"), true)
	}
	cat, err := loadCatalog(c)
	if err != nil {
		return withCode(exitError, err)
	}
	e := envOf(c)
	var resolve func([]units.File) (units.Resolver, error)
	if opts.chart != "" {
		// As for values render --chart: the chart's interpretation
		// allocates heavily and briefly; a larger heap between collections
		// trades some memory for less CPU.
		defer debug.SetGCPercent(debug.SetGCPercent(400))
		p := startProgress(c, "prune-audit --chart")
		resolve = func(files []units.File) (units.Resolver, error) {
			p.say("loading %s", opts.chart)
			return chartResolver(c.Context, e.path(opts.chart), opts.chart, files, p)
		}
	}
	report, err := pruneAudit(opts, cat, func(name string) ([]byte, error) { return e.read(name) }, resolve)
	if err != nil {
		return withCode(exitError, err)
	}
	report.Selection, report.ShowUnresolved = selectionOf(c), c.Bool("show-unresolved")
	if err := writeOutput(c, writers{formatTable: report.WriteTable, formatJSON: report.WriteJSON, formatYAML: report.WriteYAML, formatMarkdown: report.WriteMarkdown}); err != nil {
		return err
	}
	return pruneAuditExit(report, opts.failOn)
}

// pruneAudit reads the values files and audits them against cat.
// With resolve (--chart), the units are resolved by the Resolver it
// returns for the files.
func pruneAudit(opts pruneAuditOptions, cat *catalog.Catalog, readFile func(string) ([]byte, error), resolve func([]units.File) (units.Resolver, error)) (*units.Report, error) {
	files := make([]units.File, len(opts.files))
	for i, name := range opts.files {
		data, err := readFile(name)
		if err != nil {
			return nil, fmt.Errorf("read values file (check the -f path): %w", err)
		}
		files[i] = units.File{Name: name, Data: data}
	}
	var resolver units.Resolver
	if resolve != nil {
		var err error
		if resolver, err = resolve(files); err != nil {
			return nil, err
		}
	}
	values, err := units.ParseWith(resolver, files...)
	if err != nil {
		return nil, err
	}
	var rel skew.Version
	var from, unknown string
	if opts.release != "" {
		if rel, err = skew.Parse(opts.release); err != nil {
			return nil, fmt.Errorf("--release %q: %w; use MAJOR.MINOR, for example --release 1.7", opts.release, err)
		}
	} else {
		d, err := units.ReleaseOf(values, chartVersion(opts.files[0], readFile))
		switch {
		case errors.Is(err, units.ErrNoRelease):
			unknown = strings.TrimPrefix(err.Error(), units.ErrNoRelease.Error()+": ")
		case err != nil:
			return nil, err
		}
		rel, from = d.Release, d.From
	}
	report, err := units.Audit(units.AuditInput{
		Values: values, Release: rel, ReleaseFrom: from, ReleaseUnknown: unknown, Policy: policyOf(cat),
		ToolVersion: versionString(), CatalogVersion: cat.Version, AsOf: opts.asOf, Files: opts.files,
	})
	if err != nil {
		if errors.Is(err, units.ErrUnknownRelease) {
			if from != "" {
				err = fmt.Errorf("%s: %w", from, err)
			}
			return nil, fmt.Errorf("%w; pass --release with one of %s or later", err, strings.Join(cat.ReleaseNames(), ", "))
		}
		return nil, err
	}
	if merged, err := units.Merge(files...); err == nil && merged["units"] == nil {
		// An empty or unrelated file would otherwise audit as "nothing to prune".
		return nil, fmt.Errorf("-f %s: no `units:` map, so these are not the sylva-units values; pass the chart's charts/sylva-units/values.yaml (and its overrides)", strings.Join(opts.files, ", "))
	}
	return report, nil
}

// printSchemaPatch writes the schema patch, or the schema file patched.
func printSchemaPatch(w io.Writer, schemaFile string, e *env) error {
	if schemaFile == "" {
		_, err := io.WriteString(w, units.SchemaPatch)
		return err
	}
	data, err := e.readFile("--schema", schemaFile)
	if err != nil {
		return withCode(exitError, fmt.Errorf("read schema (check the --schema path): %w", err))
	}
	patched, err := units.PatchSchema(data)
	if err != nil {
		return withCode(exitError, fmt.Errorf("--schema %s: %w; pass the chart's charts/sylva-units/values.schema.json, or apply the patch printed without --schema", schemaFile, err))
	}
	_, err = w.Write(patched)
	return err
}

// chartVersion returns the version of the Chart.yaml beside the first values
// file (charts/sylva-units/values.yaml sits beside charts/sylva-units/Chart.yaml),
// or "" when there is none.
func chartVersion(valuesFile string, readFile func(string) ([]byte, error)) string {
	if valuesFile == fileio.StdinName {
		return "" // standard input has no directory
	}
	data, err := readFile(filepath.Join(filepath.Dir(valuesFile), "Chart.yaml"))
	if err != nil {
		return ""
	}
	var chart struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	if yaml.Unmarshal(data, &chart) != nil || chart.Name != "sylva-units" {
		return ""
	}
	return chart.Version
}

// policyOf is the upgrade-support policy of the catalog.
func policyOf(cat *catalog.Catalog) units.Policy {
	p := units.Policy{Releases: make([]units.PolicyRelease, len(cat.Releases))}
	for i, r := range cat.Releases {
		p.Releases[i] = units.PolicyRelease{Release: r.Release, UpgradeFrom: r.UpgradeFrom}
	}
	return p
}

// pruneAuditExit maps the report to the exit code --fail-on asks for.
func pruneAuditExit(r *units.Report, failOn pruneFailOn) error {
	var fail bool
	switch failOn {
	case pruneFailOnPrunable:
		fail = r.Count(units.StatePrunable)+r.Count(units.StateBlocked)+r.Count(units.StateMalformed) > 0
	case pruneFailOnMalformed:
		fail = r.Count(units.StateMalformed) > 0
	case pruneFailOnNever:
	}
	if fail {
		return withCode(exitBlocked, nil)
	}
	return nil
}
