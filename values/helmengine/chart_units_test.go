package helmengine

import (
	"context"
	"slices"
	"sort"
	"testing"

	"gitlab.com/sylva-projects/sylva-planner/internal/sylvacore"
	"gitlab.com/sylva-projects/sylva-planner/internal/valuestest"
)

// renderedUnits reads, from a whole render of the chart, the units it
// deploys: every object labelled sylva-units.unit that is a Flux
// Kustomization, by unit, with its name and its dependsOn entries
// (namespace/name when a namespace is given).
func renderedUnits(objs []map[string]any) (names map[string]string, deps map[string][]string) {
	names, deps = map[string]string{}, map[string][]string{}
	for _, o := range objs {
		if o["kind"] != "Kustomization" || o["apiVersion"] == "kustomize.config.k8s.io/v1beta1" {
			continue
		}
		md, _ := o["metadata"].(map[string]any)
		labels, _ := md["labels"].(map[string]any)
		unit, _ := labels["sylva-units.unit"].(string)
		if unit == "" {
			continue
		}
		name, _ := md["name"].(string)
		names[unit] = name
		spec, _ := o["spec"].(map[string]any)
		list, _ := spec["dependsOn"].([]any)
		d := []string{}
		for _, e := range list {
			m, _ := e.(map[string]any)
			n, _ := m["name"].(string)
			if ns, _ := m["namespace"].(string); ns != "" {
				n = ns + "/" + n
			}
			d = append(d, n)
		}
		sort.Strings(d)
		deps[unit] = d
	}
	return names, deps
}

func TestUnitsResolvesEveryUnitAsAWholeRenderOfTheRealChartDeploysIt(t *testing.T) {
	if testing.Short() {
		t.Skip("renders the real chart")
	}
	for _, tr := range sylvacore.Trees(t) {
		for _, set := range []string{"values.yaml", "management.values.yaml"} {
			t.Run(tr.Ref+"/"+set, func(t *testing.T) {
				t.Parallel()
				var c *Chart
				var files []File
				var opts ChartOptions
				var m *Manifests
				if set == "values.yaml" {
					var err error
					if c, err = LoadChart(tr.Chart()); err != nil {
						t.Fatal(err)
					}
					files, opts = valuestest.ReadFiles[File](t, tr.Chart(), set), ChartOptions{SkipSchemaValidation: true}
					if m, err = c.Render(context.Background(), files, opts); err != nil {
						t.Fatalf("Render: %v", err)
					}
				} else {
					// The whole render the other real-chart tests share:
					// management values, Longhorn on, an upgrade.
					w := wholeManagementRender(t, tr)
					if w.err != nil {
						t.Fatalf("Render: %v", w.err)
					}
					c, files, opts, m = w.chart, w.files, w.opts, w.manifests
				}
				defs, err := c.Units(context.Background(), files, opts)
				if err != nil {
					t.Fatalf("Units: %v", err)
				}
				names, deps := renderedUnits(m.Objects)
				if len(names) == 0 && set != "values.yaml" {
					t.Fatal("the render deploys no unit with management values")
				}
				for unit, def := range defs {
					enabled, ok := def["enabled"].(bool)
					if !ok {
						t.Fatalf("unit %s: enabled is %T, want a bool", unit, def["enabled"])
					}
					if _, deployed := names[unit]; deployed != enabled {
						t.Errorf("unit %s: resolved enabled %v, the render deploys it: %v", unit, enabled, deployed)
					}
				}
				for unit := range names {
					if _, ok := defs[unit]; !ok {
						t.Errorf("unit %s is deployed but not resolved", unit)
					}
				}
				for unit, got := range deps {
					dm, _ := defs[unit]["depends_on"].(map[string]any)
					want := []string{}
					for k := range dm {
						if n, ok := names[k]; ok {
							want = append(want, n)
						} else {
							want = append(want, k)
						}
					}
					slices.Sort(want)
					if !slices.Equal(got, want) {
						t.Errorf("unit %s: resolved depends_on %v, the render's dependsOn %v", unit, want, got)
					}
				}
			})
		}
	}
}
