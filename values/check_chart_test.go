package values

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

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
		"pass 1 of 2 (1.2 → 1.4) from a pre-release status: " + chartK8sPath,
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
