package check

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"gitlab.com/sylva-projects/sylva-planner/internal/sylvacore"
	"gitlab.com/sylva-projects/sylva-planner/internal/valuestest"
	"gitlab.com/sylva-projects/sylva-planner/values/helmengine"
	"gitlab.com/sylva-projects/sylva-planner/values/overlay"
)

// TestChartReadsTheSameFromTheUnitsAsFromTheWholeChart renders, on every
// bundle ref, the chart with its management values, Longhorn enabled and
// a status ConfigMap to look up, once whole (as Chart with WholeChart) and
// once reduced to chartUnits (as Chart by default): Chart reads the same
// from both, so its two modes find the same (helmengine's
// TestRenderUnitsRendersWhatTheWholeChartRenders compares the objects).
func TestChartReadsTheSameFromTheUnitsAsFromTheWholeChart(t *testing.T) {
	if testing.Short() {
		t.Skip("renders the real chart whole on every ref")
	}
	for _, tr := range sylvacore.Trees(t) {
		t.Run(tr.Ref, func(t *testing.T) {
			t.Parallel()
			c, err := helmengine.LoadChart(tr.Chart())
			if err != nil {
				t.Fatal(err)
			}
			files := append(valuestest.ReadFiles[helmengine.File](t, tr.Chart(), "values.yaml", "management.values.yaml"), longhornEnabled)
			src := helmengine.NewObjects(chartStatusObject(helmengine.DefaultNamespace, map[string]string{
				"release-revision": "7", overlay.KeySylvaRelease: "1.1", overlay.KeyAdditionalReconciliationRequired: "false",
			}))
			opts := helmengine.ChartOptions{Source: src, IsUpgrade: true, Revision: 2, SkipSchemaValidation: true}
			in, err := c.Input(files, opts)
			if err != nil {
				t.Fatalf("input: %v", err)
			}
			whole, err := in.Render(context.Background(), opts)
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			reduced, err := in.RenderUnits(context.Background(), opts, chartUnits...)
			if err != nil {
				t.Fatalf("RenderUnits: %v", err)
			}
			got, want := readChart(reduced), readChart(whole)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("what Chart reads differs (-Render +RenderUnits):\n%s", diff)
			}
			for _, k := range []string{"cluster.k8s_version", "additional-info", "longhorn"} {
				if got[k] == "" {
					t.Errorf("RenderUnits gives no %s to compare: %v", k, got)
				}
			}
		})
	}
}
