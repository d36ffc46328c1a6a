package values

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/internal/sylvacore"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/skew"
)

// catalogWith14From12 is the default catalog in which 1.4 supports
// upgrading from 1.2.
func catalogWith14From12(t testing.TB) *catalog.Catalog {
	t.Helper()
	cat := defaultCatalog(t)
	for i := range cat.Releases {
		if cat.Releases[i].Release.Short() == "1.4" && !slices.ContainsFunc(cat.Releases[i].UpgradeFrom, func(v skew.Version) bool { return v.Short() == "1.2" }) {
			cat.Releases[i].UpgradeFrom = append(cat.Releases[i].UpgradeFrom, skew.MustParse("1.2"))
		}
	}
	return cat
}

func mainChartCheck(t *testing.T, overlay *File) *Report {
	t.Helper()
	tr := sylvacore.At(t, "main")
	c, err := LoadChart(tr.Chart())
	if err != nil {
		t.Fatal(err)
	}
	in := planner.Input{Catalog: catalogWith14From12(t), From: skew.MustParse("1.2"), To: skew.MustParse("1.4"), FromSource: "flag", ToolVersion: "test"}
	rep, err := CheckChart(context.Background(), ChartCheckInput{
		Plan: in, Chart: c, Files: readValuesFiles(t, tr.Chart(), "values.yaml", "management.values.yaml"),
		Overlay: overlay, SkipSchemaValidation: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// chartPassState is gotpl that sets $pass from the status ConfigMap alone
// (its additional-info), for a 1.2 → 1.4 transition in two passes: "fresh"
// without a ConfigMap, "1" from a status of another release, "2" after
// pass 1, "settled" otherwise.
const chartPassState = `{{- $cm := lookup "v1" "ConfigMap" .Release.Namespace "sylva-units-status" | default dict -}}
{{- $info := dig "data" "additional-info" "" $cm | fromYaml | default dict -}}
{{- $rel := get $info "sylva_release" | default "" | toString -}}
{{- $pass := "settled" -}}
{{- if not $cm -}}{{- $pass = "fresh" -}}
{{- else if not (hasPrefix "1.4" $rel) -}}{{- $pass = "1" -}}
{{- else if and (eq (get $info "additional_reconciliation_required" | toString) "true") (eq (get $info "transition_pass" | toString) "1") -}}{{- $pass = "2" -}}
{{- end -}}`

// chartOverlay is a helper values file that reaches what main's chart
// reads: the cluster's Kubernetes version (1.30 on pass 1, else 1.31) and
// the status keys through additional_sylva_units_status_info, each value
// reading the ConfigMap itself. With brokenK8s, k8s_version_short is forced
// to 1.31 instead and the cluster's version is left to the chart.
func chartOverlay(brokenK8s bool) *File {
	q := func(tpl string) string {
		b, _ := json.Marshal(chartPassState + tpl)
		return string(b)
	}
	var b strings.Builder
	if brokenK8s {
		b.WriteString("k8s_version_short: \"1.31\"\n")
	} else {
		b.WriteString("cluster:\n  k8s_version: " + q(`{{- .Values._internal.k8s_version_map | dig (eq $pass "1" | ternary "1.30" "1.31") "" | required "no k8s version" -}}`) + "\n")
	}
	b.WriteString("additional_sylva_units_status_info:\n")
	b.WriteString("  sylva_release: \"1.4\"\n")
	b.WriteString("  additional_reconciliation_required: " + q(`{{- eq $pass "1" | ternary "true" "false" -}}`) + "\n")
	b.WriteString("  transition_from: " + q(`{{- has $pass (list "1" "2") | ternary "1.2" "" -}}`) + "\n")
	b.WriteString("  transition_pass: " + q(`{{- has $pass (list "1" "2") | ternary $pass "" -}}`) + "\n")
	return &File{Name: "overlay.yaml", Data: []byte(b.String())}
}

func TestCheckChartOnMainFindsNoDivergenceWithAnOverlayThatReachesTheChart(t *testing.T) {
	if testing.Short() {
		t.Skip("renders the real chart")
	}
	rep := mainChartCheck(t, chartOverlay(false))
	if len(rep.Scenarios) != 5 {
		t.Errorf("%d scenarios, want a fresh install, two passes, a pre-release and a branch status", len(rep.Scenarios))
	}
	for _, f := range rep.Findings {
		t.Errorf("finding %s %s: %s", f.Code, f.Subject, f.Message)
	}
	for _, sc := range rep.Scenarios {
		if sc.Got["cluster.k8s_version"] == "" || sc.Got["additional-info"] == "" {
			t.Errorf("%s: read %v, want the cluster's version and additional-info", sc.Name, sc.Got)
		}
	}
}

func TestCheckChartOnMainNamesThePassAndPathOfABrokenOverlay(t *testing.T) {
	if testing.Short() {
		t.Skip("renders the real chart")
	}
	rep := mainChartCheck(t, chartOverlay(true))
	var subjects []string
	for _, f := range rep.Findings {
		subjects = append(subjects, f.Subject)
	}
	want := []string{
		"pass 1 of 2 (1.2 → 1.4) from a pre-release status: " + chartClusterK8sPath,
		"pass 1 of 2 (1.2 → 1.4) from a pre-release status: " + chartK8sPath,
		"pass 1 of 2 (1.2 → 1.4): " + chartClusterK8sPath,
		"pass 1 of 2 (1.2 → 1.4): " + chartK8sPath,
	}
	slices.Sort(subjects)
	if !slices.Equal(subjects, want) {
		t.Errorf("findings on %q, want %q", subjects, want)
	}
}

func TestCheckChartOnMainWithTheGeneratedOverlay(t *testing.T) {
	if testing.Short() {
		t.Skip("renders the real chart")
	}
	rep := mainChartCheck(t, nil)
	for _, f := range rep.Findings {
		if f.Code == CodeChartRenderError {
			t.Skipf("the generated overlay does not render on main's chart: %s", strings.SplitN(f.Message, "\n", 2)[0])
		}
		t.Errorf("finding %s %s: %s", f.Code, f.Subject, f.Message)
	}
}

// TestRenderUnitsRendersWhatTheWholeChartRenders renders, on every bundle
// ref, the chart with its management values, Longhorn enabled and a status
// ConfigMap to look up, once whole (Render, as helm-controller does) and
// once reduced to what CheckChart reads (RenderUnits): every object of the
// reduced render is the whole render's, and CheckChart reads the same from
// both, so the two modes of CheckChart find the same.
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
			reduced, err := c.RenderUnits(context.Background(), files, opts, chartUnits...)
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
				case k == "Secret <nil>/"+valuesSecret || k == "Secret "+DefaultNamespace+"/"+valuesSecret:
					// Its values hold what the chart draws at random.
				default:
					if diff := cmp.Diff(unstamped(w), unstamped(o)); diff != "" {
						t.Errorf("%s differs (-Render +RenderUnits):\n%s", k, diff)
					}
				}
			}
			got, want := readChart(reduced), readChart(whole)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("what CheckChart reads differs (-Render +RenderUnits):\n%s", diff)
			}
			for _, k := range []string{"cluster.k8s_version", "additional-info", "longhorn"} {
				if got[k] == "" {
					t.Errorf("RenderUnits gives no %s to compare: %v", k, got)
				}
			}
			t.Logf("%d objects reduced, %d whole; read: %v", len(reduced.Objects), len(whole.Objects), got)
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
		files := append(readValuesFiles(t, tr.Chart(), "values.yaml", "management.values.yaml"), File{Name: "longhorn.yaml", Data: []byte(
			"units:\n  longhorn:\n    enabled: true\n    enabled_conditions: []\n")})
		src := NewObjects(chartStatusObject(DefaultNamespace, map[string]string{
			"release-revision": "7", KeySylvaRelease: "1.1", KeyAdditionalReconciliationRequired: "false",
		}))
		opts := ChartOptions{Source: src, IsUpgrade: true, Revision: 2, SkipSchemaValidation: true}
		m, err := c.Render(context.Background(), files, opts)
		return &managementRender{chart: c, files: files, opts: opts, manifests: m, err: err}
	}))
	return f.(func() *managementRender)()
}
