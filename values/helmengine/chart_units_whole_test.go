package helmengine

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/internal/sylvacore"
	"gitlab.com/sylva-projects/sylva-planner/internal/valuestest"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

// checkUnits are the units values check --chart renders.
var checkUnits = []string{"cluster", "longhorn", "longhorn-crd"}

// statusKustomizationPath is the sylva-units-status Kustomization's
// spec.path.
const statusKustomizationPath = "./kustomize-units/sylva-units-status"

// longhornEnabled deploys the longhorn and longhorn-crd units.
var longhornEnabled = valuestest.LonghornEnabled[File]()

// upgradeStatus is the status ConfigMap of a release upgraded to 1.1 and
// settled, its status keys also in additional-info, as the
// sylva-units-status unit writes them.
func upgradeStatus(t testing.TB, ns string) map[string]any {
	t.Helper()
	keys := map[string]any{status.KeySylvaRelease: "1.1", status.KeyAdditionalReconciliationRequired: "false"}
	info, err := yaml.Marshal(keys)
	if err != nil {
		t.Fatal(err)
	}
	data := map[string]any{"release-revision": "7", "additional-info": string(info)}
	maps.Copy(data, keys)
	return map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": StatusConfigMap, "namespace": ns},
		"data":     data,
	}
}

// TestRenderUnitsRendersWhatTheWholeChartRenders renders, on every bundle
// ref, the chart with its management values, Longhorn enabled and a status
// ConfigMap to look up, once whole (Render, as helm-controller does) and
// once reduced to the units values check --chart reads (RenderUnits):
// every object of the reduced render is the whole render's.
func TestRenderUnitsRendersWhatTheWholeChartRenders(t *testing.T) {
	if testing.Short() {
		t.Skip("renders the real chart whole on every ref")
	}
	for _, tr := range sylvacore.Trees(t) {
		t.Run(tr.Ref, func(t *testing.T) {
			t.Parallel()
			w := wholeManagementRender(t, tr)
			c, files, opts, whole := w.chart, w.files, w.opts, w.manifests
			if w.err != nil {
				t.Fatalf("Render: %v", w.err)
			}
			reduced, err := c.RenderUnits(context.Background(), files, opts, checkUnits...)
			if err != nil {
				t.Fatalf("RenderUnits: %v", err)
			}
			key := func(o map[string]any) string {
				md, _ := o["metadata"].(map[string]any)
				return fmt.Sprintf("%v %v/%v", o["kind"], md["namespace"], md["name"])
			}
			byKey := map[string]map[string]any{}
			for _, o := range whole.Objects {
				byKey[key(o)] = o
			}
			for _, o := range reduced.Objects {
				k := key(o)
				w, ok := byKey[k]
				switch {
				case !ok:
					t.Errorf("RenderUnits renders %s, Render does not", k)
				case k == "Secret <nil>/"+ValuesSecret || k == "Secret "+DefaultNamespace+"/"+ValuesSecret:
					// Its values hold what the chart draws at random.
				default:
					if diff := cmp.Diff(unstamped(w), unstamped(o)); diff != "" {
						t.Errorf("%s differs (-Render +RenderUnits):\n%s", k, diff)
					}
				}
			}
			t.Logf("%d objects reduced, %d whole", len(reduced.Objects), len(whole.Objects))

			// The check's render (Input.RenderUnits): two instances of one
			// input (prepared for an install, rendered as an upgrade), the
			// status Kustomizations' loop over the units restricted to
			// checkUnits. It renders every object of RenderUnits but the
			// status Kustomizations as RenderUnits does.
			if loc := docSplit.FindStringIndex(c.values); loc == nil || !statusLoop.MatchString(c.values[loc[1]:]) {
				t.Errorf("%s has no loop over the units after the values Secret for CheckChart to restrict", secretTemplate)
			}
			in, err := c.Input(files, ChartOptions{SkipSchemaValidation: true})
			if err != nil {
				t.Fatalf("input: %v", err)
			}
			for run := range 2 {
				checked, err := in.RenderUnits(context.Background(), opts, checkUnits...)
				if err != nil {
					t.Fatalf("render %d of the check: %v", run+1, err)
				}
				byKey := map[string]map[string]any{}
				for _, o := range reduced.Objects {
					byKey[key(o)] = o
				}
				if len(checked.Objects) != len(reduced.Objects) {
					t.Errorf("render %d of the check: %d objects, RenderUnits %d", run+1, len(checked.Objects), len(reduced.Objects))
				}
				for _, o := range checked.Objects {
					k := key(o)
					spec, _ := o["spec"].(map[string]any)
					switch r, ok := byKey[k]; {
					case !ok:
						t.Errorf("render %d of the check renders %s, RenderUnits does not", run+1, k)
					case k == "Secret <nil>/"+ValuesSecret || k == "Secret "+DefaultNamespace+"/"+ValuesSecret, spec["path"] == statusKustomizationPath:
					default:
						if diff := cmp.Diff(unstamped(r), unstamped(o)); diff != "" {
							t.Errorf("render %d of the check: %s differs (-RenderUnits +check):\n%s", run+1, k, diff)
						}
					}
				}
			}
		})
	}
}

// stampedLine matches, in a patch's text, what a render stamps that
// changes from render to render: release-time (`now`) and values-checksum
// (a checksum of values the chart draws in part at random).
var stampedLine = regexp.MustCompile(`(?m)^(\s*(?:release-time|values-checksum):).*$`)

// unstamped is a copy of v with what a render stamps blanked, as a map key
// (an annotation) or as a line of a string (a patch).
func unstamped(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			switch k {
			case "release-time", "values-checksum", "target-values-checksum":
				out[k] = "-"
			default:
				out[k] = unstamped(x)
			}
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = unstamped(x)
		}
		return out
	case string:
		return stampedLine.ReplaceAllString(t, "$1 -")
	}
	return v
}

// managementRender is one whole render of a bundle ref's chart, shared by
// the tests that need it: its management values with Longhorn enabled, as
// an upgrade from a status ConfigMap.
type managementRender struct {
	chart     *Chart
	files     []File
	opts      ChartOptions
	manifests *Manifests
	err       error
}

var managementRenders sync.Map // ref → func() *managementRender

// wholeManagementRender renders the chart of tr whole once per test binary.
func wholeManagementRender(t *testing.T, tr sylvacore.Tree) *managementRender {
	t.Helper()
	f, _ := managementRenders.LoadOrStore(tr.Ref, sync.OnceValue(func() *managementRender {
		c, err := LoadChart(tr.Chart())
		if err != nil {
			return &managementRender{err: err}
		}
		files := append(valuestest.ReadFiles[File](t, tr.Chart(), "values.yaml", "management.values.yaml"), longhornEnabled)
		src := NewObjects(upgradeStatus(t, DefaultNamespace))
		opts := ChartOptions{Source: src, IsUpgrade: true, Revision: 2, SkipSchemaValidation: true}
		m, err := c.Render(context.Background(), files, opts)
		return &managementRender{chart: c, files: files, opts: opts, manifests: m, err: err}
	}))
	return f.(func() *managementRender)()
}
