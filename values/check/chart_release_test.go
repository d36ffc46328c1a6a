package check

import (
	"context"
	"strings"
	"testing"

	"gitlab.com/sylva-projects/sylva-planner/internal/catalogtest"
	"gitlab.com/sylva-projects/sylva-planner/internal/sylvacore"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/values/helmengine"
	"gitlab.com/sylva-projects/sylva-planner/values/overlay"
)

// The release of a chart, as the overlay tells it in the chart: its own
// sylva_release, else a release's chart version, else its newest
// Kubernetes.
func TestChartRelease(t *testing.T) {
	g, err := overlay.Generate(planner.Input{Catalog: catalogtest.Default(t), From: semver.MustParse("1.4"), To: semver.MustParse("1.6"), FromSource: "flag"})
	if err != nil {
		t.Fatal(err)
	}
	maps := func(minors ...string) map[string]any {
		m := map[string]any{}
		for _, k := range minors {
			m[k] = "v" + k + ".1"
		}
		return map[string]any{"_internal": map[string]any{"k8s_version_map": m}}
	}
	withRelease := maps("1.30", "1.31")
	withRelease["sylva_release"] = "1.5.2"
	templated := maps("1.30", "1.31")
	templated["sylva_release"] = "{{ .Values.x }}"
	tests := []struct {
		name, version string
		values        map[string]any
		want          string
	}{
		{"its sylva_release wins", "1.3.10", withRelease, "1.5"},
		{"a release's chart version", "1.3.10", maps("1.29", "1.30"), "1.3"},
		{"a chart from Git by its newest Kubernetes", "0.0.0-git", maps("1.30", "1.31"), g.Charts["1.31"]},
		{"a templated sylva_release tells nothing", "0.0.0-git", templated, g.Charts["1.31"]},
		{"a Kubernetes no release maps", "0.0.0-git", maps("1.99"), "Kubernetes 1.99"},
	}
	for _, tc := range tests {
		if got, how := g.ChartRelease(tc.values, tc.version); got != tc.want || how == "" {
			t.Errorf("%s: ChartRelease = %q (%q), want %q", tc.name, got, how, tc.want)
		}
	}
	if g.Charts["1.31"] == "" {
		t.Fatal("the catalog maps no release to Kubernetes 1.31; the test needs one")
	}
}

// values check --chart refuses the chart of another release in one line,
// before rendering: the overlay is inert there, and every comparison would
// be a divergence (main's chart is the 1.4 line's).
func TestCheckChartRefusesTheChartOfAnotherRelease(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the real chart")
	}
	c, err := helmengine.LoadChart(sylvacore.At(t, "main").Chart())
	if err != nil {
		t.Fatal(err)
	}
	in := planner.Input{Catalog: catalogtest.Default(t), From: semver.MustParse("1.4"), To: semver.MustParse("1.6"), FromSource: "flag"}
	_, err = Chart(context.Background(), ChartInput{Plan: in, Chart: c, SkipSchemaValidation: true})
	if err == nil || !strings.Contains(err.Error(), "is Sylva 1.4's") || !strings.Contains(err.Error(), "not the chart of --to 1.6") {
		t.Errorf("Chart(main's chart, --to 1.6) error = %v, want the chart named as 1.4's", err)
	}
}
