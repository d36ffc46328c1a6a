package action

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/fileio"
	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/units"
	"gitlab.com/sylva-projects/sylva-planner/values/helmengine"
	"gitlab.com/sylva-projects/sylva-planner/values/overlay"
)

// PruneAuditRequest is what prune-audit is asked.
type PruneAuditRequest struct {
	Catalog *catalog.Catalog
	// Files are the values files (-f), merged in order; ReadFile reads
	// them, and the Chart.yaml beside the first.
	Files    []string
	ReadFile func(name string) ([]byte, error)
	// Release is --release, unparsed; empty reads it from the values.
	Release string
	// Chart, when set (--chart, as given), resolves the units as the
	// sylva-units chart at ChartPath does; Progress, when set, is told
	// what the chart is doing.
	Chart, ChartPath string
	Progress         func(string)
	ToolVersion      string
	// AsOf is the day of the report's metadata.
	AsOf time.Time
}

// Run reads the values files and audits them against the catalog. With a
// chart directory and no values file, the chart's own values.yaml is the
// file audited, as values render --chart takes it; with neither, the
// request is refused (BadRequestError). The chart is loaded first: a
// --chart that is no chart is refused as such.
func (r PruneAuditRequest) Run(ctx context.Context) (*units.Report, error) {
	var chart *helmengine.Chart
	defaulted := false
	if r.Chart != "" {
		r.say("loading " + r.Chart)
		var err error
		if chart, err = loadChart(r.Chart, r.ChartPath, ""); err != nil {
			return nil, err
		}
		if st, err := fileio.Stat(r.ChartPath); err == nil && st.IsDir() && len(r.Files) == 0 {
			r.Files, defaulted = []string{filepath.Join(r.Chart, "values.yaml")}, true
		}
	}
	if len(r.Files) == 0 {
		return nil, badRequest("prune-audit needs the sylva-units values: -f charts/sylva-units/values.yaml (with --chart DIR, DIR/values.yaml is the default)")
	}
	files := make([]units.File, len(r.Files))
	for i, name := range r.Files {
		data, err := r.ReadFile(name)
		switch {
		case err != nil && defaulted:
			return nil, fmt.Errorf("--chart %s: read its values.yaml: %w; give the values with -f", r.Chart, err)
		case err != nil:
			return nil, fmt.Errorf("read values file (check the -f path): %w", err)
		}
		files[i] = units.File{Name: name, Data: data}
	}
	var resolver units.Resolver
	if chart != nil {
		resolver = r.chartResolver(ctx, chart, files)
	}
	// The files are read once: the units are built from this merge, and
	// it says at the end whether they are sylva-units values at all.
	merged, err := units.Merge(files...)
	if err != nil {
		return nil, err
	}
	values, err := units.BuildWith(resolver, merged)
	if err != nil {
		return nil, err
	}
	var rel semver.Version
	var from, unknown, inferred, chartNote string
	if r.Release != "" {
		if rel, err = semver.Parse(r.Release); err != nil {
			return nil, fmt.Errorf("--release %q: %w; use MAJOR.MINOR, for example --release 1.7", r.Release, err)
		}
		if chart != nil {
			if chartNote, err = r.chartIsOf(rel, values, merged); err != nil {
				return nil, err
			}
		}
	} else {
		example, guess := releaseExample(merged, r.Catalog)
		d, err := units.ReleaseOf(values, chartVersion(r.Files[0], r.ReadFile), example)
		switch {
		case errors.Is(err, units.ErrNoRelease):
			unknown, inferred = strings.TrimPrefix(err.Error(), units.ErrNoRelease.Error()+": "), guess
		case err != nil:
			return nil, err
		}
		rel, from = d.Release, d.From
	}
	report, err := units.Audit(units.AuditInput{
		Values: values, Release: rel, ReleaseFrom: from, ReleaseUnknown: unknown, ReleaseInferred: inferred, Policy: policyOf(r.Catalog),
		ToolVersion: r.ToolVersion, CatalogVersion: r.Catalog.Version, AsOf: r.AsOf, Files: r.Files,
	})
	if err != nil {
		if errors.Is(err, units.ErrUnknownRelease) {
			where := cmp.Or(from, "--release")
			return nil, fmt.Errorf("%s: %w; pass --release with one of %s or later", where, err, strings.Join(r.Catalog.ReleaseNames(), ", "))
		}
		return nil, err
	}
	if chartNote != "" {
		report.Notes = append(report.Notes, chartNote)
	}
	if merged["units"] == nil {
		// An empty or unrelated file would otherwise audit as "nothing to prune".
		return nil, fmt.Errorf("-f %s: no `units:` map, so these are not the sylva-units values; pass the chart's charts/sylva-units/values.yaml (and its overrides)", strings.Join(r.Files, ", "))
	}
	return report, nil
}

// PruneOutcome is the outcome of an audit against --fail-on: prunable
// fails on a prunable, blocked or malformed unit, malformed on a
// malformed one, never passes.
func PruneOutcome(rep *units.Report, f FailOn) Outcome {
	switch f {
	case FailOnMalformed:
		return failIf(rep.Count(units.StateMalformed) > 0)
	case FailOnNever:
		return OutcomePass
	case FailOnPrunable, FailOnBlocker, FailOnWarning:
	}
	return failIf(rep.Count(units.StatePrunable)+rep.Count(units.StateBlocked)+rep.Count(units.StateMalformed) > 0)
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
	p := units.Policy{Releases: make([]units.PolicyRelease, len(cat.Releases)), PastNewest: cat.PastNewest, PastNewestFix: catalog.PastNewestFix}
	for i, r := range cat.Releases {
		p.Releases[i] = units.PolicyRelease{Release: r.Release, UpgradeFrom: r.UpgradeFrom}
	}
	return p
}

// chartResolver resolves the units with the chart, as the chart resolves
// them (its own unit-def and unit-enabled helpers, through the engine of
// values render --chart), for the same values files. The schema is not
// validated: the audit reads the units, and Helm's validator rejects
// values the chart's CI accepts.
func (r PruneAuditRequest) chartResolver(ctx context.Context, c *helmengine.Chart, files []units.File) units.Resolver {
	vf := make([]helmengine.File, len(files))
	for i, f := range files {
		vf[i] = helmengine.File{Name: f.Name, Data: f.Data}
	}
	return units.ResolverFunc(func(map[string]any) (map[string]map[string]any, error) {
		r.say("resolving the units with the chart")
		defs, err := c.Units(ctx, vf, helmengine.ChartOptions{SkipSchemaValidation: true})
		r.say("resolved")
		if err != nil {
			return nil, fmt.Errorf("--chart %s: %w", r.Chart, err)
		}
		return defs, nil
	})
}

// chartIsOf refuses a --release that is not the release of the --chart
// it audits (as values check refuses a chart that is not the plan's
// target): the units a chart resolves are its own release's, so the audit
// would judge them by another release's policy. The chart's release is
// told as values check tells it: its values' sylva_release (or release
// branch), its version, else, for a development chart, the release whose
// chart maps the same newest Kubernetes minor. A development chart may be
// audited as the release after that one too (the line it becomes, before
// its chart maps a newer Kubernetes), which the returned note says.
func (r PruneAuditRequest) chartIsOf(rel semver.Version, v *units.Values, merged map[string]any) (string, error) {
	own, how, next := "", "", ""
	if d, err := units.ReleaseOf(v, chartVersion(r.Files[0], r.ReadFile), ""); err == nil {
		own, how = d.Release.Short(), d.From
	} else if _, inferred := releaseExample(merged, r.Catalog); inferred != "" {
		own, how = inferred, "its _internal.k8s_version_map, whose newest Kubernetes minor is Sylva "+inferred+"'s"
		if o, err := semver.Parse(inferred); err == nil {
			next = o.AddMinor(1).Short()
		}
	}
	switch rel.Short() {
	case own, "":
		return "", nil
	case next:
		return fmt.Sprintf("--chart %s is a development chart of Sylva %s's line (told by %s), audited as %s, the release that line becomes, as --release says", r.Chart, own, how, rel.Short()), nil
	}
	if own == "" {
		return "", nil
	}
	also := ""
	if next != "" {
		also = " or " + next
	}
	return "", fmt.Errorf("--release %s: --chart %s is the chart of Sylva %s (told by %s), whose units are not %s's; give the charts/sylva-units of Sylva %s, or --release %s%s", rel.Short(), r.Chart, own, how, rel.Short(), rel.Short(), own, also)
}

// say tells Progress, when set, what the chart is doing.
func (r PruneAuditRequest) say(s string) {
	if r.Progress != nil {
		r.Progress(s)
	}
}

// releaseExample is the --release to suggest when the values name no
// release: the one whose chart maps the newest Kubernetes minor of their
// _internal.k8s_version_map (as the overlay tells a chart taken from Git),
// returned as inferred too, else the catalog's newest, as an example.
func releaseExample(merged map[string]any, cat *catalog.Catalog) (example, inferred string) {
	if newest, err := semver.Parse(overlay.NewestMappedMinor(merged)); err == nil {
		if rel, ok := cat.ReleaseMappingNewest(newest); ok {
			return fmt.Sprintf("its _internal.k8s_version_map goes up to Kubernetes %s, as Sylva %s's does: --release %s", newest.Short(), rel.Short(), rel.Short()), rel.Short()
		}
	}
	if names := cat.ReleaseNames(); len(names) > 0 {
		return "for example --release " + names[len(names)-1], ""
	}
	return "for example --release X.Y", ""
}

// SchemaPatch is prune-audit --print-schema-patch: the JSON Patch that
// lets the chart's values.schema.json accept info.transitional-unit, or,
// with Schema (--schema FILE, read with ReadFile), that file patched.
type SchemaPatch struct {
	Schema   string
	ReadFile func(flag, name string) ([]byte, error)
}

// Write writes the patch, or the schema patched.
func (p SchemaPatch) Write(w io.Writer) error {
	if p.Schema == "" {
		_, err := io.WriteString(w, units.SchemaPatch)
		return err
	}
	data, err := p.ReadFile("--schema", p.Schema)
	if err != nil {
		return fmt.Errorf("read schema (check the --schema path): %w", err)
	}
	patched, err := units.PatchSchema(data)
	if err != nil {
		return fmt.Errorf("--schema %s: %w; pass the chart's charts/sylva-units/values.schema.json, or apply the patch printed without --schema", p.Schema, err)
	}
	_, err = w.Write(patched)
	return err
}
