package check

import (
	"context"
	"testing"

	"gitlab.com/sylva-projects/sylva-planner/internal/benchcpu"
	"gitlab.com/sylva-projects/sylva-planner/internal/sylvacore"
	"gitlab.com/sylva-projects/sylva-planner/internal/valuestest"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/values/helmengine"
)

// BenchmarkCheckChart is the `values check --chart` of hack/bench-chart.sh:
// a three-pass plan (1.1 → 1.4, 1.4 accepting 1.1 and 1.2) on sylva-core
// main's chart with its management values (seven scenarios), one at a time. It
// reports the process's CPU time per check too (cpu-s/op), the figure a
// loaded machine disturbs least.
func BenchmarkCheckChart(b *testing.B) {
	tr := sylvacore.At(b, "main")
	c, err := helmengine.LoadChart(tr.Chart())
	if err != nil {
		b.Fatal(err)
	}
	cat := catalogWith14From12(b)
	for i := range cat.Releases {
		if cat.Releases[i].Release.Short() == "1.4" {
			cat.Releases[i].UpgradeFrom = append(cat.Releases[i].UpgradeFrom, semver.MustParse("1.1"))
		}
	}
	in := planner.Input{Catalog: cat, From: semver.MustParse("1.1"), To: semver.MustParse("1.4"), FromSource: "flag", ToolVersion: "bench"}
	files := valuestest.ReadFiles[helmengine.File](b, tr.Chart(), "values.yaml", "management.values.yaml")
	ctx := context.Background()
	defer benchcpu.Report(b)()
	for b.Loop() {
		rep, err := Chart(ctx, ChartInput{Plan: in, Chart: c, Files: files, SkipSchemaValidation: true, Parallel: 1})
		if err != nil {
			b.Fatal(err)
		}
		// A fresh install, three passes, and pass 1 from a pre-release,
		// a branch-named and a release-branch-named status.
		if len(rep.Scenarios) != 7 {
			b.Fatalf("%d scenarios", len(rep.Scenarios))
		}
	}
}
