package check

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/values/helmengine"
	"gitlab.com/sylva-projects/sylva-planner/values/overlay"
)

// tamperedCheck checks, without a chart, the values values generate gives
// for a 1.2 → 1.4 transition in two passes (Kubernetes 1.30 and Longhorn
// 1.7.3 on pass 1, 1.31 and 1.8.1 on pass 2), changed by tamper.
func tamperedCheck(t *testing.T, tamper func(vals map[string]any)) *Report {
	t.Helper()
	in := planner.Input{Catalog: catalogWith14From12(t), From: semver.MustParse("1.2"), To: semver.MustParse("1.4"), FromSource: "flag", ToolVersion: "test"}
	g, err := overlay.Generate(in)
	if err != nil {
		t.Fatal(err)
	}
	vals := g.Values()
	if tamper != nil {
		tamper(vals)
	}
	data, err := yaml.Marshal(vals)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Values(context.Background(), ValuesInput{Plan: in, Files: []helmengine.File{{Name: "overlay.yaml", Data: data}}})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// setAt sets keys to v in vals, making the maps on the way.
func setAt(vals map[string]any, v any, keys ...string) {
	m := vals
	for _, k := range keys[:len(keys)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	m[keys[len(keys)-1]] = v
}

// TestCheckFindsWhatTheOverlayPassesToTheChart tampers, one at a time,
// with each path of the generated overlay the chart reads: the Kubernetes
// version (cluster.k8s_version, or k8s_version_short through the version
// map), Longhorn's chart version (helmrelease_spec or helm_chart_versions)
// and the status keys of additional_sylva_units_status_info. Without the
// chart, Check must name the path and the scenarios it breaks.
func TestCheckFindsWhatTheOverlayPassesToTheChart(t *testing.T) {
	const (
		fresh = "fresh install of 1.4: "
		pass1 = "pass 1 of 2 (1.2 → 1.4): "
		pre   = "pass 1 of 2 (1.2 → 1.4) from a pre-release status: "
		pass2 = "pass 2 of 2 (1.2 → 1.4): "
	)
	info := func(k string) string { return valuesPath(overlay.StatusInfoKey, k) }
	longhorn := valuesPath(overlay.LonghornVersionPath("longhorn")...)
	crd := valuesPath(overlay.LonghornVersionPath("longhorn-crd")...)
	type finding struct{ code, subject string }
	cases := []struct {
		name   string
		tamper func(map[string]any)
		// want are findings Check must give (a broken status may break
		// later passes too); message is in the first one's message.
		want    []finding
		message string
		// cascades: the status the tampered pass leaves makes the next
		// pass render other values (values-mismatch on pass 2).
		cascades bool
	}{
		{
			name:    "cluster.k8s_version forced to 1.31",
			tamper:  func(v map[string]any) { setAt(v, "v1.31.8", "cluster", "k8s_version") },
			want:    []finding{{CodeKubernetesVersionMismatch, pass1 + "values.cluster.k8s_version"}, {CodeKubernetesVersionMismatch, pre + "values.cluster.k8s_version"}},
			message: `the chart reads cluster.k8s_version "v1.31.8", the plan sets Kubernetes 1.30`,
		},
		{
			name: "k8s_version_short forced to 1.31 instead of cluster.k8s_version",
			tamper: func(v map[string]any) {
				delete(v, "cluster")
				v[overlay.KeyK8sVersionShort] = "1.31"
			},
			want:    []finding{{CodeKubernetesVersionMismatch, pass1 + "values.k8s_version_short"}, {CodeKubernetesVersionMismatch, pre + "values.k8s_version_short"}},
			message: `the chart reads k8s_version_short "1.31" (cluster.k8s_version "v1.31.`,
		},
		{
			name:    "no Kubernetes version",
			tamper:  func(v map[string]any) { delete(v, "cluster") },
			want:    []finding{{CodeKubernetesVersionMismatch, pass1 + "values.cluster.k8s_version"}, {CodeKubernetesVersionMismatch, pre + "values.cluster.k8s_version"}},
			message: "the values set neither cluster.k8s_version nor k8s_version_short: the chart keeps its own Kubernetes 1.31, the plan sets 1.30",
		},
		{
			name: "Longhorn 1.8 forced on pass 1 (a 1.6 → 1.8 jump)",
			tamper: func(v map[string]any) {
				for _, u := range longhornUnits {
					setAt(v, "105.2.0+up1.8.1", overlay.LonghornVersionPath(u)...)
				}
			},
			want: []finding{
				{CodeLonghornVersionMismatch, pass1 + longhorn},
				{CodeLonghornVersionMismatch, pass1 + crd},
				{CodeLonghornVersionMismatch, pre + longhorn},
				{CodeLonghornVersionMismatch, pre + crd},
			},
			message: `the longhorn unit would deploy Longhorn chart "105.2.0+up1.8.1", the plan sets Longhorn 1.7.3 (chart 104.2.2+up1.7.3 in the catalog)`,
		},
		{
			name: "Longhorn 1.8 selected by helm_chart_versions",
			tamper: func(v map[string]any) {
				setAt(v, "", overlay.LonghornVersionPath("longhorn")...)
				setAt(v, map[string]any{"104.2.2+up1.7.3": false, "105.2.0+up1.8.1": true}, "units", "longhorn", "helm_chart_versions")
			},
			want: []finding{
				{CodeLonghornVersionMismatch, pass1 + valuesPath("units", "longhorn", "helm_chart_versions")},
				{CodeLonghornVersionMismatch, pre + valuesPath("units", "longhorn", "helm_chart_versions")},
			},
			message: `the longhorn unit would deploy Longhorn chart "105.2.0+up1.8.1", the plan sets Longhorn 1.7.3`,
		},
		{
			name:   "no Longhorn version",
			tamper: func(v map[string]any) { delete(v, "units") },
			want: []finding{
				{CodeLonghornVersionMismatch, pass1 + longhorn},
				{CodeLonghornVersionMismatch, pass1 + crd},
				{CodeLonghornVersionMismatch, pre + longhorn},
				{CodeLonghornVersionMismatch, pre + crd},
			},
			message: "the values set no Longhorn chart version for the longhorn unit: the chart keeps its own Longhorn 1.8.1, the plan sets Longhorn 1.7.3",
		},
		{
			name:   "sylva_release forced to 1.3",
			tamper: func(v map[string]any) { setAt(v, "1.3", overlay.StatusInfoKey, overlay.KeySylvaRelease) },
			want: []finding{
				{CodeStatusKeyMismatch, fresh + info(overlay.KeySylvaRelease)},
				{CodeStatusKeyMismatch, pass1 + info(overlay.KeySylvaRelease)},
				{CodeStatusKeyMismatch, pre + info(overlay.KeySylvaRelease)},
				{CodeStatusKeyMismatch, pass2 + info(overlay.KeySylvaRelease)},
			},
			message: `the status ConfigMap would record sylva_release "1.3" (additional-info), the plan records "1.4"`,
		},
		{
			name: "additional_reconciliation_required forced to true",
			tamper: func(v map[string]any) {
				setAt(v, "true", overlay.StatusInfoKey, overlay.KeyAdditionalReconciliationRequired)
			},
			want: []finding{
				{CodeFreshInstallTransition, fresh + overlay.KeyAdditionalReconciliationRequired},
				{CodeStatusKeyMismatch, pass2 + info(overlay.KeyAdditionalReconciliationRequired)},
			},
			message: `a fresh install (no sylva-units-status ConfigMap) renders additional_reconciliation_required "true"`,
		},
		{
			name:   "transition_from forced to 1.3",
			tamper: func(v map[string]any) { setAt(v, "1.3", overlay.StatusInfoKey, overlay.KeyTransitionFrom) },
			want: []finding{
				{CodeStatusKeyMismatch, fresh + info(overlay.KeyTransitionFrom)},
				{CodeStatusKeyMismatch, pass1 + info(overlay.KeyTransitionFrom)},
				{CodeStatusKeyMismatch, pre + info(overlay.KeyTransitionFrom)},
			},
			message: `the status ConfigMap would record transition_from "1.3" (additional-info), the plan records ""`,
		},
		{
			name:   "transition_pass forced to 2",
			tamper: func(v map[string]any) { setAt(v, "2", overlay.StatusInfoKey, overlay.KeyTransitionPass) },
			want: []finding{
				{CodeStatusKeyMismatch, fresh + info(overlay.KeyTransitionPass)},
				{CodeStatusKeyMismatch, pass1 + info(overlay.KeyTransitionPass)},
				{CodeStatusKeyMismatch, pre + info(overlay.KeyTransitionPass)},
			},
			message: `the status ConfigMap would record transition_pass "2" (additional-info), the plan records ""`,
		},
		{
			name:     "transition_pass missing",
			tamper:   func(v map[string]any) { delete(v[overlay.StatusInfoKey].(map[string]any), overlay.KeyTransitionPass) },
			want:     []finding{{CodeStatusKeyMissing, info(overlay.KeyTransitionPass)}},
			message:  "the values set no additional_sylva_units_status_info.transition_pass: the sylva-units-status ConfigMap does not record transition_pass",
			cascades: true,
		},
		{
			name:   "status keys missing",
			tamper: func(v map[string]any) { delete(v, overlay.StatusInfoKey) },
			want: []finding{
				{CodeStatusKeyMissing, info(overlay.KeyAdditionalReconciliationRequired)},
				{CodeStatusKeyMissing, info(overlay.KeySylvaRelease)},
				{CodeStatusKeyMissing, info(overlay.KeyTransitionFrom)},
				{CodeStatusKeyMissing, info(overlay.KeyTransitionPass)},
			},
			message: "the values set no additional_sylva_units_status_info.sylva_release",
		},
	}
	t.Run("untampered", func(t *testing.T) {
		for _, f := range tamperedCheck(t, nil).Findings {
			t.Errorf("finding %s %s: %s", f.Code, f.Subject, f.Message)
		}
	})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rep := tamperedCheck(t, tc.tamper)
			var all []string
			for _, f := range rep.Findings {
				all = append(all, fmt.Sprintf("%s %s %s: %s", f.Severity, f.Code, f.Subject, f.Message))
			}
			for _, w := range tc.want {
				i := slices.IndexFunc(rep.Findings, func(f planner.Finding) bool { return f.Code == w.code && f.Subject == w.subject })
				if i < 0 {
					t.Errorf("no %s on %q; findings:\n%s", w.code, w.subject, strings.Join(all, "\n"))
					continue
				}
				if f := rep.Findings[i]; f.Severity != planner.SeverityBlocker || f.Remediation == "" {
					t.Errorf("%s %s: severity %s, remediation %q; want a blocker with a remediation", f.Code, f.Subject, f.Severity, f.Remediation)
				}
			}
			if !slices.ContainsFunc(all, func(s string) bool { return strings.Contains(s, tc.message) }) {
				t.Errorf("no finding says %q; findings:\n%s", tc.message, strings.Join(all, "\n"))
			}
			// The helper values stay the plan's, except on the pass after
			// a status that loses its place.
			for _, f := range rep.Findings {
				if tc.cascades && f.Code == CodeValuesMismatch && strings.HasPrefix(f.Subject, pass2) {
					continue
				}
				if f.Code == CodeValuesMismatch || f.Code == CodeTemplateError {
					t.Errorf("unexpected %s %s: %s", f.Code, f.Subject, f.Message)
				}
			}
		})
	}
}
