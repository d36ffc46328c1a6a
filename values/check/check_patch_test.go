package check

import "testing"

// TestHelmReleaseChartVersionReadsEveryPatchForm reads Longhorn's chart
// version from each patch form a Kustomization of the chart can carry: a
// strategic-merge HelmRelease, and JSON 6902 operations that set /spec
// (the form of every bundle ref), a part of it, or the version itself, the
// last one winning as in the patched object.
func TestHelmReleaseChartVersionReadsEveryPatchForm(t *testing.T) {
	tests := []struct {
		name, patch, want string
		ok                bool
	}{
		{"strategic merge", "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: longhorn}\nspec:\n  chart:\n    spec: {chart: longhorn, version: 105.2.0+up1.8.1}\n", "105.2.0+up1.8.1", true},
		{"strategic merge of another kind", "kind: ConfigMap\nspec:\n  chart:\n    spec: {version: 1.0.0}\n", "", false},
		{"json 6902 replace /spec", "- op: replace\n  path: /spec\n  value:\n    chart:\n      spec: {chart: longhorn, version: 104.2.2+up1.7.3}\n", "104.2.2+up1.7.3", true},
		{"json 6902 add /spec/chart/spec", "- op: add\n  path: /spec/chart/spec\n  value: {chart: longhorn-crd, version: 104.2.2+up1.7.3}\n", "104.2.2+up1.7.3", true},
		{"json 6902 version itself, last wins", "- op: replace\n  path: /spec\n  value:\n    chart:\n      spec: {version: 104.2.2+up1.7.3}\n- op: replace\n  path: /spec/chart/spec/version\n  value: 105.2.0+up1.8.1\n", "105.2.0+up1.8.1", true},
		{"json 6902 elsewhere", "- op: replace\n  path: /spec/values\n  value: {chart: {spec: {version: 1.0.0}}}\n- op: remove\n  path: /spec/chart/spec/version\n", "", false},
		{"json 6902 path sharing a prefix", "- op: replace\n  path: /spec/chart/spec/versionx\n  value: 1.0.0\n", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := helmReleaseChartVersion(tc.patch)
			if got != tc.want || ok != tc.ok {
				t.Errorf("helmReleaseChartVersion = %q, %v; want %q, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}
