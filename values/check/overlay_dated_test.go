package check

import (
	"bytes"
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"gitlab.com/sylva-projects/sylva-planner/internal/sylvacore"
	"gitlab.com/sylva-projects/sylva-planner/internal/valuestest"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/values/helmengine"
	"gitlab.com/sylva-projects/sylva-planner/values/overlay"
)

// The overlay of 1.3 → 1.4, left in the values of a chart it is not for,
// changes nothing that chart renders alone: the Kubernetes version of the
// cluster unit, Longhorn's chart version and the status keys of
// additional-info. Every tag of the bundle, the head of release-1.3, and
// main's development chart at monthly dates from 2024 on, each with its
// own management values and Longhorn deployed (no status ConfigMap: the
// chart of another release does not read it; the cluster runs the
// Longhorn chart version the chart renders alone, eight different ones
// across these charts, which the catalog's one per release cannot give). Before, the charts up to
// spring 2024, which do not interpret _internal.state before the other
// values, failed with "no k8s version defined for" an empty minor.
func TestOverlayChangesNothingInChartsNotItsOwn(t *testing.T) {
	if testing.Short() {
		t.Skip("renders the real chart")
	}
	in := planner.Input{Catalog: catalogWithLonghornCharts(t), From: semver.MustParse("1.3"), To: semver.MustParse("1.4"), FromSource: "flag", ToolVersion: "test"}
	g, err := overlay.Generate(in)
	if err != nil {
		t.Fatal(err)
	}
	overlay := overlayFile(t, in)
	// The two-pass 1.2 → 1.4 overlay also sets Longhorn (1.3 → 1.4 takes
	// one pass and leaves it to the chart): in the chart of another
	// release it holds the Longhorn the cluster runs.
	g12 := generatedFor(t, "1.2", "1.4", "main", [2]string{
		"  - release: \"1.4\"\n    upgrade_from: [\"1.3\"]\n", "  - release: \"1.4\"\n    upgrade_from: [\"1.2\", \"1.3\"]\n",
	})
	if !g12.Longhorn {
		t.Fatal("the 1.2 → 1.4 overlay does not set Longhorn; the test needs it to")
	}
	var y12 bytes.Buffer
	if err := g12.WriteYAML(&y12); err != nil {
		t.Fatal(err)
	}
	overlays := []helmengine.File{overlay, {Name: "overlay-1.2-to-1.4.yaml", Data: y12.Bytes()}}
	refs := []string{"1.0.0", "1.2.1", "1.3.10", "release-1.3"}
	for _, date := range []string{"2024-01-01", "2024-03-01", "2024-07-01", "2024-09-01", "2024-11-01", "2025-01-01", "2025-03-01"} {
		refs = append(refs, sylvacore.Before(t, "main", date))
	}
	for _, ref := range refs {
		tree := sylvacore.At(t, ref)
		t.Run(ref, func(t *testing.T) {
			t.Parallel()
			c, err := helmengine.LoadChart(tree.Chart())
			if err != nil {
				t.Fatal(err)
			}
			if rel, _ := g.ChartRelease(c.Defaults(), c.Version()); rel == "1.4" {
				t.Skipf("the chart of %s is 1.4's: the overlay runs there", ref)
			}
			// Longhorn deployed, so that its chart version is compared.
			files := append(valuestest.ReadFiles[helmengine.File](t, tree.Chart(), "management.values.yaml"), helmengine.File{Name: "longhorn", Data: []byte("units: {longhorn: {enabled: true, enabled_conditions: []}}\n")})
			// As an install: a chart's immutable-values check reads the
			// values of the release it upgrades, which no cluster holds here.
			opts := helmengine.ChartOptions{KubeVersion: "v1.30.0", Source: helmengine.NewObjects(), SkipSchemaValidation: true}
			render := func(files []helmengine.File) (overlayRender, error) {
				m, err := renderUnits(context.Background(), c, files, opts, chartUnits...)
				if err != nil {
					return overlayRender{}, err
				}
				return overlayFacts(t, m.Objects), nil
			}
			alone, err := render(files)
			if err != nil {
				t.Skipf("the chart of %s does not render with its own management values: %v", ref, err)
			}
			// The cluster running the chart runs the Longhorn it renders:
			// the overlay holds that one (TestOverlayHoldsTheLonghorn…).
			if v := alone.longhorn["longhorn"]; v != "" {
				opts.Source = helmengine.NewObjects(map[string]any{
					"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
					"metadata": map[string]any{"name": "longhorn", "namespace": helmengine.DefaultNamespace},
					"spec":     map[string]any{"chart": map[string]any{"spec": map[string]any{"chart": "longhorn", "version": v}}},
				})
			}
			for _, o := range overlays {
				with, err := render(append(files, o))
				if err != nil {
					t.Fatalf("with %s: %v", o.Name, err)
				}
				if diff := cmp.Diff(alone, with, cmp.AllowUnexported(overlayRender{})); diff != "" {
					t.Errorf("%s changes the render of %s (-alone +with):\n%s", o.Name, ref, diff)
				}
			}
		})
	}
}
