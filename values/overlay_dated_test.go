package values

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"gitlab.com/sylva-projects/sylva-planner/internal/sylvacore"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/skew"
)

// The overlay of 1.3 → 1.4, left in the values of a chart it is not for,
// changes nothing that chart renders alone: the Kubernetes version of the
// cluster unit, Longhorn's chart version and the status keys of
// additional-info. Every tag of the bundle, the head of release-1.3, and
// main's development chart at monthly dates from 2024 on, each with its
// own management values (no status ConfigMap: the chart of another
// release does not read it). Before, the charts up to
// spring 2024, which do not interpret _internal.state before the other
// values, failed with "no k8s version defined for" an empty minor.
func TestOverlayChangesNothingInChartsNotItsOwn(t *testing.T) {
	if testing.Short() {
		t.Skip("renders the real chart")
	}
	in := planner.Input{Catalog: catalogWithLonghornCharts(t), From: skew.MustParse("1.3"), To: skew.MustParse("1.4"), FromSource: "flag", ToolVersion: "test"}
	g, err := Generate(in)
	if err != nil {
		t.Fatal(err)
	}
	overlay := overlayFile(t, in)
	refs := []string{"1.0.0", "1.2.1", "1.3.10", "release-1.3"}
	for _, date := range []string{"2024-01-01", "2024-03-01", "2024-07-01", "2024-09-01", "2024-11-01", "2025-01-01", "2025-03-01"} {
		refs = append(refs, sylvacore.Before(t, "main", date))
	}
	for _, ref := range refs {
		tree := sylvacore.At(t, ref)
		t.Run(ref, func(t *testing.T) {
			t.Parallel()
			c, err := LoadChart(tree.Chart())
			if err != nil {
				t.Fatal(err)
			}
			if rel, _ := g.ChartRelease(c.ch.Values, c.Version()); rel == "1.4" {
				t.Skipf("the chart of %s is 1.4's: the overlay runs there", ref)
			}
			files := readValuesFiles(t, tree.Chart(), "management.values.yaml")
			// As an install: a chart's immutable-values check reads the
			// values of the release it upgrades, which no cluster holds here.
			opts := ChartOptions{KubeVersion: "v1.30.0", Source: NewObjects(), SkipSchemaValidation: true}
			render := func(files []File) (overlayRender, error) {
				m, err := c.RenderUnits(context.Background(), files, opts, chartUnits...)
				if err != nil {
					return overlayRender{}, err
				}
				return overlayFacts(t, m.Objects), nil
			}
			alone, err := render(files)
			if err != nil {
				t.Skipf("the chart of %s does not render with its own management values: %v", ref, err)
			}
			with, err := render(append(files, overlay))
			if err != nil {
				t.Fatalf("with the overlay: %v", err)
			}
			if diff := cmp.Diff(alone, with, cmp.AllowUnexported(overlayRender{})); diff != "" {
				t.Errorf("the overlay changes the render of %s (-alone +with):\n%s", ref, diff)
			}
		})
	}
}
