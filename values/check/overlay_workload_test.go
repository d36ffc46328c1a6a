package check

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"gitlab.com/sylva-projects/sylva-planner/internal/sylvacore"
	"gitlab.com/sylva-projects/sylva-planner/internal/valuestest"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/values/helmengine"
	"gitlab.com/sylva-projects/sylva-planner/values/overlay"
)

// workloadNamespace is the namespace of the workload cluster's release in
// these tests (the cluster's name, as workload-cluster.values.yaml sets it).
const workloadNamespace = "wl1"

// workloadFiles are main's workload test values (those of
// test-values/upgrade-workload-cabpk, each read at the file its link
// names), then k8s_version_short pinned to minor.
func workloadFiles(t *testing.T, chartDir, minor string) []helmengine.File {
	t.Helper()
	files := valuestest.ReadFiles[helmengine.File](t, chartDir, "workload-cluster.values.yaml", "test-values/upgrade/upgrade.yaml", "test-values/workload-cluster/shared-settings-mock.values.yaml")
	return append(files, helmengine.File{Name: "k8s-" + minor + ".yaml", Data: fmt.Appendf(nil, "k8s_version_short: %q\n", minor)})
}

// The overlay never moves a cluster past the minor its own values choose.
// A workload cluster of main's chart (the 1.4 line, window 1.29–1.31)
// pinned below the target's management minor keeps its minor on every
// pass, as the chart alone renders it; pinned to 1.31 it gets 1.31. Before,
// the 1.3 → 1.4 overlay rendered v1.31.8 for a cluster pinned to 1.29: the
// control plane would have jumped two minors.
func TestOverlayKeepsTheMinorAWorkloadClusterPins(t *testing.T) {
	if testing.Short() {
		t.Skip("renders the real chart")
	}
	tree := sylvacore.At(t, "main")
	c, err := helmengine.LoadChart(tree.Chart())
	if err != nil {
		t.Fatal(err)
	}
	overlayOf := func(in planner.Input) helmengine.File { return overlayFile(t, in) }
	oneHop := overlayOf(planner.Input{Catalog: catalogWithLonghornCharts(t), From: semver.MustParse("1.3"), To: semver.MustParse("1.4"), FromSource: "flag", ToolVersion: "test"})
	twoPass := input12To14(t)
	twoPassOverlay := overlayOf(twoPass)
	plan, err := planner.Compute(twoPass)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Passes) != 2 {
		t.Fatalf("plan 1.2 → 1.4 has %d passes, want 2", len(plan.Passes))
	}
	from13 := map[string]string{"release-revision": "7", "sylva-units-chart-version": "1.3.10", "values-checksum": "x", overlay.AdditionalInfo: "{}\n"}
	from12 := map[string]string{"release-revision": "7", "sylva-units-chart-version": "1.2.1", "values-checksum": "x", overlay.AdditionalInfo: "{}\n"}
	for _, tc := range []struct {
		name    string
		pin     string
		overlay *helmengine.File
		status  map[string]string
		want    string
	}{
		{name: "the chart alone keeps a cluster pinned to 1.29 on 1.29", pin: "1.29", status: from13, want: "v1.29.15"},
		{name: "the overlay of 1.3 → 1.4 keeps a cluster pinned to 1.29 on 1.29", pin: "1.29", overlay: &oneHop, status: from13, want: "v1.29.15"},
		{name: "the overlay of 1.3 → 1.4 keeps a cluster pinned to 1.30 on 1.30", pin: "1.30", overlay: &oneHop, status: from13, want: "v1.30.12"},
		{name: "the overlay of 1.3 → 1.4 moves a cluster pinned to 1.31 to 1.31", pin: "1.31", overlay: &oneHop, status: from13, want: "v1.31.8"},
		{name: "pass 1 of 1.2 → 1.4 keeps a cluster pinned to 1.29 on 1.29", pin: "1.29", overlay: &twoPassOverlay, status: from12, want: "v1.29.15"},
		{name: "pass 2 of 1.2 → 1.4 keeps a cluster pinned to 1.29 on 1.29", pin: "1.29", overlay: &twoPassOverlay, status: statusAfter(t, plan.Passes[0]), want: "v1.29.15"},
		{name: "pass 1 of 1.2 → 1.4 moves a cluster pinned to 1.31 only to 1.30", pin: "1.31", overlay: &twoPassOverlay, status: from12, want: "v1.30.12"},
		{name: "pass 2 of 1.2 → 1.4 moves a cluster pinned to 1.31 to 1.31", pin: "1.31", overlay: &twoPassOverlay, status: statusAfter(t, plan.Passes[0]), want: "v1.31.8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			files := workloadFiles(t, tree.Chart(), tc.pin)
			if tc.overlay != nil {
				files = append(files, *tc.overlay)
			}
			m, err := renderUnits(context.Background(), c, files, helmengine.ChartOptions{
				Namespace: workloadNamespace, KubeVersion: "v1.31.8", IsUpgrade: true, Revision: 2,
				Source: helmengine.NewObjects(statusObject(workloadNamespace, tc.status)), SkipSchemaValidation: true,
			}, chartUnits...)
			if err != nil {
				t.Fatalf("render: %v", err)
			}
			if got := overlayFacts(t, m.Objects).k8s; got != tc.want {
				t.Errorf("cluster unit k8s_version = %q, want %q", got, tc.want)
			}
		})
	}
}

// A workload cluster pinned to a minor outside the chart's window fails
// the render with the overlay as without it, and the overlay's message
// says which minor and what to do.
func TestOverlayOnAWorkloadClusterOutsideTheWindowFailsNamingTheMinor(t *testing.T) {
	if testing.Short() {
		t.Skip("renders the real chart")
	}
	tree := sylvacore.At(t, "main")
	c, err := helmengine.LoadChart(tree.Chart())
	if err != nil {
		t.Fatal(err)
	}
	files := append(workloadFiles(t, tree.Chart(), "1.28"), overlayFile(t, planner.Input{Catalog: catalogWithLonghornCharts(t), From: semver.MustParse("1.3"), To: semver.MustParse("1.4"), FromSource: "flag", ToolVersion: "test"}))
	_, err = renderUnits(context.Background(), c, files, helmengine.ChartOptions{
		Namespace: workloadNamespace, KubeVersion: "v1.31.8", IsUpgrade: true, Revision: 2,
		Source:               helmengine.NewObjects(statusObject(workloadNamespace, map[string]string{"release-revision": "7", "sylva-units-chart-version": "1.3.10", "values-checksum": "x"})),
		SkipSchemaValidation: true,
	}, chartUnits...)
	if err == nil || !strings.Contains(err.Error(), "no k8s version defined for 1.28") || !strings.Contains(err.Error(), "outside the window of this chart") {
		t.Fatalf("render: %v, want the chart's no k8s version defined for 1.28, with the overlay's fix", err)
	}
}

// values check --chart proves a workload cluster's plan on main's chart
// with main's workload test values: the plan of a cluster that keeps its
// minor (1.3 on 1.29 → 1.4; 1.2 on 1.29 → 1.4 in two passes, a test
// catalog) renders that minor in the cluster unit on every pass, with no
// finding; a cluster on 1.28, which 1.4's chart does not map, is caught
// before anything renders by a kubernetes-pin blocker naming the step.
func TestCheckChartProvesWorkloadPlansOnTheRealChart(t *testing.T) {
	if testing.Short() {
		t.Skip("renders the real chart")
	}
	tree := sylvacore.At(t, "main")
	c, err := helmengine.LoadChart(tree.Chart())
	if err != nil {
		t.Fatal(err)
	}
	workload := func(in planner.Input, kube string) planner.Input {
		in.Cluster, in.Kubernetes = planner.ClusterWorkload, semver.MustParse(kube)
		return in
	}
	from13 := planner.Input{Catalog: catalogWithLonghornCharts(t), From: semver.MustParse("1.3"), To: semver.MustParse("1.4"), FromSource: "flag", ToolVersion: "test"}
	for _, tc := range []struct {
		name      string
		in        planner.Input
		pin       string
		passes    int
		wantCodes []string
	}{
		{name: "a 1.3 workload cluster on 1.29 keeps it in 1.4", in: workload(from13, "1.29"), pin: "1.29", passes: 1},
		{name: "a 1.2 workload cluster on 1.29 keeps it through both passes into 1.4", in: workload(input12To14(t), "1.29"), pin: "1.29", passes: 2},
		{name: "a 1.3 workload cluster on 1.28 is told to step into 1.4's window first", in: workload(from13, "1.28"), pin: "1.28", wantCodes: []string{CodeKubernetesPin}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rep, err := Chart(context.Background(), ChartInput{
				Plan: tc.in, Chart: c, Files: workloadFiles(t, tree.Chart(), tc.pin), Namespace: workloadNamespace, SkipSchemaValidation: true,
			})
			if err != nil {
				t.Fatal(err)
			}
			codes := map[string]bool{}
			for _, f := range rep.Findings {
				codes[f.Code] = true
				if len(tc.wantCodes) == 0 {
					t.Errorf("%s %s: %s", f.Code, f.Subject, f.Message)
				}
			}
			for _, code := range tc.wantCodes {
				if !codes[code] {
					t.Errorf("no %s finding", code)
				}
			}
			if tc.passes == 0 {
				return
			}
			seen := 0
			for _, sc := range rep.Scenarios {
				if !strings.HasPrefix(sc.Name, "pass ") {
					continue
				}
				seen++
				if got := sc.Got["cluster.k8s_version"]; !strings.HasPrefix(got, "v"+tc.pin+".") {
					t.Errorf("%s: cluster.k8s_version %q, want Kubernetes %s", sc.Name, got, tc.pin)
				}
			}
			if seen < tc.passes {
				t.Errorf("%d pass scenarios rendered, want %d at least", seen, tc.passes)
			}
		})
	}
}

// overlayFile is the overlay values generate writes for in, as a values
// file named after its releases.
func overlayFile(t *testing.T, in planner.Input) helmengine.File {
	t.Helper()
	g, err := overlay.Generate(in)
	if err != nil {
		t.Fatal(err)
	}
	var y bytes.Buffer
	if err := g.WriteYAML(&y); err != nil {
		t.Fatal(err)
	}
	return helmengine.File{Name: "overlay-" + in.From.Short() + "-to-" + in.To.Short() + ".yaml", Data: y.Bytes()}
}
