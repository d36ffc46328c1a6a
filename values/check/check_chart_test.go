package check

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/internal/catalogtest"
	"gitlab.com/sylva-projects/sylva-planner/internal/sylvacore"
	"gitlab.com/sylva-projects/sylva-planner/internal/valuestest"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/values/helmengine"
	"gitlab.com/sylva-projects/sylva-planner/values/overlay"
)

// catalogWith14From12 is the default catalog in which 1.4 supports
// upgrading from 1.2.
func catalogWith14From12(t testing.TB) *catalog.Catalog {
	t.Helper()
	cat := catalogtest.Default(t)
	for i := range cat.Releases {
		if cat.Releases[i].Release.Short() == "1.4" && !slices.ContainsFunc(cat.Releases[i].UpgradeFrom, func(v semver.Version) bool { return v.Short() == "1.2" }) {
			cat.Releases[i].UpgradeFrom = append(cat.Releases[i].UpgradeFrom, semver.MustParse("1.2"))
		}
	}
	return cat
}

func mainChartCheck(t *testing.T, overlay *helmengine.File) *Report {
	t.Helper()
	tr := sylvacore.At(t, "main")
	c, err := helmengine.LoadChart(tr.Chart())
	if err != nil {
		t.Fatal(err)
	}
	in := planner.Input{Catalog: catalogWith14From12(t), From: semver.MustParse("1.2"), To: semver.MustParse("1.4"), FromSource: "flag", ToolVersion: "test"}
	files := append(valuestest.ReadFiles[helmengine.File](t, tr.Chart(), "values.yaml", "management.values.yaml"), longhornEnabled)
	rep, err := Chart(context.Background(), ChartInput{
		Plan: in, Chart: c, Files: files, Overlay: overlay, SkipSchemaValidation: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// longhornEnabled deploys the longhorn and longhorn-crd units.
var longhornEnabled = valuestest.LonghornEnabled[helmengine.File]()

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

// What chartOverlay sets, each a gotpl string read after chartPassState
// (or a plain string): the cluster's Kubernetes version, Longhorn's chart
// version (of both Longhorn units) and the status keys of
// additional_sylva_units_status_info.
const (
	overlayK8s      = "cluster.k8s_version"
	overlayLonghorn = "longhorn"
)

// goodOverlay is what chartOverlay sets by default: Kubernetes 1.30 and
// Longhorn 1.7.3 on pass 1, else 1.31 and 1.8.1 (main's own), and the
// status keys of the pass.
var goodOverlay = map[string]string{
	overlayK8s:              `{{- .Values._internal.k8s_version_map | dig (eq $pass "1" | ternary "1.30" "1.31") "" | required "no k8s version" -}}`,
	overlayLonghorn:         `{{- eq $pass "1" | ternary "104.2.2+up1.7.3" "105.2.0+up1.8.1" -}}`,
	overlay.KeySylvaRelease: "1.4",
	overlay.KeyAdditionalReconciliationRequired: `{{- eq $pass "1" | ternary "true" "false" -}}`,
	overlay.KeyTransitionFrom:                   `{{- has $pass (list "1" "2") | ternary "1.2" "" -}}`,
	overlay.KeyTransitionPass:                   `{{- has $pass (list "1" "2") | ternary $pass "" -}}`,
}

// chartOverlay is a helper values file that reaches what main's chart
// reads for a 1.2 → 1.4 transition in two passes: the cluster's Kubernetes
// version, Longhorn's chart version and the status keys through
// additional_sylva_units_status_info, each value reading the ConfigMap
// itself. tamper replaces goodOverlay's entries; an empty one leaves the
// value out. extra is YAML appended as is.
func chartOverlay(tamper map[string]string, extra string) *helmengine.File {
	set := maps.Clone(goodOverlay)
	maps.Copy(set, tamper)
	q := func(tpl string) string {
		if strings.Contains(tpl, "{{") {
			tpl = chartPassState + tpl
		}
		b, _ := json.Marshal(tpl)
		return string(b)
	}
	var b strings.Builder
	if v := set[overlayK8s]; v != "" {
		b.WriteString("cluster:\n  k8s_version: " + q(v) + "\n")
	}
	if v := set[overlayLonghorn]; v != "" {
		b.WriteString("units:\n")
		for _, u := range []string{"longhorn", "longhorn-crd"} {
			b.WriteString("  " + u + ":\n    helmrelease_spec:\n      chart:\n        spec:\n          version: " + q(v) + "\n")
		}
	}
	b.WriteString("additional_sylva_units_status_info:\n")
	for _, k := range overlay.StatusKeys() {
		if v := set[k]; v != "" {
			b.WriteString("  " + k + ": " + q(v) + "\n")
		}
	}
	b.WriteString(extra)
	return &helmengine.File{Name: "overlay.yaml", Data: []byte(b.String())}
}

func TestCheckChartOnMainFindsNoDivergenceWithAnOverlayThatReachesTheChart(t *testing.T) {
	if testing.Short() {
		t.Skip("renders the real chart")
	}
	rep := mainChartCheck(t, chartOverlay(nil, ""))
	if len(rep.Scenarios) != 6 {
		t.Errorf("%d scenarios, want a fresh install, two passes, a pre-release, a branch and a release-branch status", len(rep.Scenarios))
	}
	for _, f := range rep.Findings {
		t.Errorf("finding %s %s: %s", f.Code, f.Subject, f.Message)
	}
	for _, sc := range rep.Scenarios {
		for _, k := range []string{"cluster.k8s_version", "cluster unit k8s_version", "longhorn", "longhorn-crd", "additional-info"} {
			if sc.Got[k] == "" {
				t.Errorf("%s: read %v, want %s", sc.Name, sc.Got, k)
			}
		}
		if strings.HasPrefix(sc.Name, "pass 1 ") && sc.Got["longhorn"] != "104.2.2+up1.7.3" {
			t.Errorf("%s: Longhorn chart %q, want pass 1's 104.2.2+up1.7.3", sc.Name, sc.Got["longhorn"])
		}
	}
	// Longhorn is deployed and 1.4's chart cannot hold the workers (they
	// are compared on each pass): nothing is left unchecked.
	for _, n := range rep.Notes {
		t.Errorf("note %q, want none", n)
	}
}

// TestCheckChartOnMainFindsEveryTamperedPath renders once an overlay that
// breaks every compared path, each in its own scenarios: Kubernetes 1.31
// on pass 1 (the values Secret, the cluster unit and so the workers),
// Longhorn's 1.8 chart on pass 1 (an illegal 1.6 → 1.8 jump, in both
// Longhorn units), additional_reconciliation_required on a fresh install,
// transition_pass on pass 1, sylva_release and transition_from on pass 2,
// and machine_deployments_paused, which 1.4's chart does not read. Each
// subtest expects its path's findings and no other path may diverge.
func TestCheckChartOnMainFindsEveryTamperedPath(t *testing.T) {
	if testing.Short() {
		t.Skip("renders the real chart")
	}
	rep := mainChartCheck(t, chartOverlay(map[string]string{
		overlayK8s:      `{{- .Values._internal.k8s_version_map | dig "1.31" "" -}}`,
		overlayLonghorn: "105.2.0+up1.8.1",
		overlay.KeyAdditionalReconciliationRequired: `{{- has $pass (list "1" "fresh") | ternary "true" "false" -}}`,
		overlay.KeyTransitionPass:                   `{{- has $pass (list "1" "2") | ternary "2" "" -}}`,
		overlay.KeySylvaRelease:                     `{{- eq $pass "2" | ternary "1.3" "1.4" -}}`,
		overlay.KeyTransitionFrom:                   `{{- eq $pass "1" | ternary "1.2" (eq $pass "2" | ternary "1.3" "") -}}`,
	}, "machine_deployments_paused: true\n"))
	const (
		fresh = "fresh install of 1.4"
		pass1 = "pass 1 of 2 (1.2 → 1.4)"
		pre   = "pass 1 of 2 (1.2 → 1.4) from a pre-release status"
		byBr  = "pass 1 of 2 (1.2 → 1.4) from a status naming its release branch"
		pass2 = "pass 2 of 2 (1.2 → 1.4)"
	)
	status := func(k string) string { return chartStatusPath + "." + k }
	cases := []struct {
		name string
		code string
		// subjects are the findings' subjects, each with its scenario.
		subjects []string
		// message is in every finding's message.
		message string
	}{
		{"kubernetes version of the values Secret", CodeChartDivergence, []string{pass1 + ": " + chartK8sPath, pre + ": " + chartK8sPath, byBr + ": " + chartK8sPath}, `the plan sets Kubernetes 1.30, the chart renders "v1.31`},
		{"kubernetes version of the cluster unit", CodeChartDivergence, []string{pass1 + ": " + chartClusterK8sPath, pre + ": " + chartClusterK8sPath, byBr + ": " + chartClusterK8sPath}, `the plan sets Kubernetes 1.30, the cluster unit substitutes "v1.31`},
		{"worker rollout", CodeChartDivergence, []string{pass1 + ": " + chartWorkersPath, pre + ": " + chartWorkersPath, byBr + ": " + chartWorkersPath}, "the plan has the workers roll from 1.29 to 1.30 in this pass; the chart cannot hold the MachineDeployments back, so they roll from 1.29 to 1.31"},
		{"longhorn chart version", CodeChartDivergence, []string{pass1 + ": " + fmt.Sprintf(chartLonghornPath, "longhorn"), pre + ": " + fmt.Sprintf(chartLonghornPath, "longhorn"), byBr + ": " + fmt.Sprintf(chartLonghornPath, "longhorn")}, `the plan sets Longhorn 1.7.3, the longhorn unit renders chart version "105.2.0+up1.8.1"`},
		{"longhorn-crd chart version", CodeChartDivergence, []string{pass1 + ": " + fmt.Sprintf(chartLonghornPath, "longhorn-crd"), pre + ": " + fmt.Sprintf(chartLonghornPath, "longhorn-crd"), byBr + ": " + fmt.Sprintf(chartLonghornPath, "longhorn-crd")}, `the plan sets Longhorn 1.7.3, the longhorn-crd unit renders chart version "105.2.0+up1.8.1"`},
		{overlay.KeySylvaRelease, CodeChartDivergence, []string{pass2 + ": " + status(overlay.KeySylvaRelease)}, `the plan records sylva_release "1.4" in the status, additional-info has "1.3"`},
		{overlay.KeyAdditionalReconciliationRequired, CodeChartDivergence, []string{fresh + ": " + status(overlay.KeyAdditionalReconciliationRequired)}, `the plan records additional_reconciliation_required "false" in the status, additional-info has "true"`},
		{overlay.KeyTransitionFrom, CodeChartDivergence, []string{pass2 + ": " + status(overlay.KeyTransitionFrom)}, `the plan records transition_from "1.2" in the status, additional-info has "1.3"`},
		{overlay.KeyTransitionPass, CodeChartDivergence, []string{pass1 + ": " + status(overlay.KeyTransitionPass), pre + ": " + status(overlay.KeyTransitionPass), byBr + ": " + status(overlay.KeyTransitionPass)}, `the plan records transition_pass "1" in the status, additional-info has "2"`},
		{overlay.KeyMachineDeploymentsPaused, CodeValueNotRead, []string{"values." + overlay.KeyMachineDeploymentsPaused}, "which the 1.4 chart does not read"},
	}
	matched := map[string]bool{}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, f := range rep.Findings {
				if !slices.Contains(tc.subjects, f.Subject) {
					continue
				}
				got = append(got, f.Subject)
				if f.Code != tc.code || f.Severity != planner.SeverityBlocker || !strings.Contains(f.Message, tc.message) {
					t.Errorf("finding %s %s %s: %s; want a %s blocker saying %q", f.Severity, f.Code, f.Subject, f.Message, tc.code, tc.message)
				}
			}
			slices.Sort(got)
			want := slices.Sorted(slices.Values(tc.subjects))
			if !slices.Equal(got, want) {
				t.Errorf("findings on %q, want %q", got, want)
			}
		})
		for _, s := range tc.subjects {
			matched[s] = true
		}
	}
	for _, f := range rep.Findings {
		if !matched[f.Subject] {
			t.Errorf("unexpected finding %s %s: %s", f.Code, f.Subject, f.Message)
		}
	}
}

func TestCheckChartOnMainWithTheGeneratedOverlay(t *testing.T) {
	if testing.Short() {
		t.Skip("renders the real chart")
	}
	rep := mainChartCheck(t, nil)
	for _, f := range rep.Findings {
		if f.Code == CodeChartRenderError {
			// The very failure this test is here to catch.
			t.Fatalf("the generated overlay does not render on main's chart: %s", f.Message)
		}
		t.Errorf("finding %s %s: %s", f.Code, f.Subject, f.Message)
	}
}

// TestCheckChartReportsValuesEveryScenarioFailsOnOnce checks values that
// do not meet main's schema: what every scenario starts from fails, so the
// report has one finding for all of them, each scenario listed as not
// rendered, and nothing rendered to be compared.
func TestCheckChartReportsValuesEveryScenarioFailsOnOnce(t *testing.T) {
	tr := sylvacore.At(t, "main")
	c, err := helmengine.LoadChart(tr.Chart())
	if err != nil {
		t.Fatal(err)
	}
	in := planner.Input{Catalog: catalogWith14From12(t), From: semver.MustParse("1.2"), To: semver.MustParse("1.4"), FromSource: "flag", ToolVersion: "test"}
	files := append(valuestest.ReadFiles[helmengine.File](t, tr.Chart(), "values.yaml", "management.values.yaml"), helmengine.File{Name: "bad.yaml", Data: []byte("units: 3\n")})
	rep, err := Chart(context.Background(), ChartInput{Plan: in, Chart: c, Files: files})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) != 1 {
		t.Fatalf("%d findings, want 1: %v", len(rep.Findings), rep.Findings)
	}
	f := rep.Findings[0]
	want := fmt.Sprintf("the chart does not render in any of the %d scenarios: values do not meet the schema of chart sylva-units", len(rep.Scenarios))
	if f.Code != CodeChartRenderError || f.Subject != "every scenario" || !strings.HasPrefix(f.Message, want) {
		t.Errorf("finding %s %s: %s; want %s every scenario: %s…", f.Code, f.Subject, f.Message, CodeChartRenderError, want)
	}
	if len(rep.Scenarios) < 2 {
		t.Fatalf("%d scenarios, want every scenario of the plan", len(rep.Scenarios))
	}
	for _, s := range rep.Scenarios {
		if len(s.Errors) != 1 || len(s.Got) != 0 {
			t.Errorf("scenario %s: errors %q, got %v; want the one error and nothing rendered", s.Name, s.Errors, s.Got)
		}
	}
	var b strings.Builder
	if err := rep.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	if head := fmt.Sprintf("%d scenarios, none rendered:", len(rep.Scenarios)); !strings.Contains(b.String(), head) || strings.Contains(b.String(), "Not checked") {
		t.Errorf("table:\n%s\nwant %q and no note of what was not checked (nothing was)", b.String(), head)
	}
}
