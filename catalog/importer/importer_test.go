package importer

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/semver"
)

// base is a small values file in the shape of sylva-units', with the
// forms the real refs use.
const base = `
k8s_version_short: "1.30"
_internal:
  k8s_version_map:
    1.29: '{{ .Values.cluster.capi_providers.bootstrap_provider | eq "cabpr" | ternary "v1.29.15+rke2r1" "v1.29.15" }}'
    1.30: >-
      {{- $version := "v1.30.12" -}}
      {{- if .Values.cluster.capi_providers.bootstrap_provider | eq "cabpr" -}}
        {{- $version = "v1.30.12+rke2r1" -}}
      {{- end -}}
      {{- $version -}}
    "1.31": '{{ .Values._internal.other | default "v1.31.8" }}'
calico-versions: &calico-versions
  v3.28.200: '{{ include "k8s-version-match" (tuple ">=1.28.0,<1.29.0" .Values._internal.k8s_version) }}'
  v3.29.101: '{{ include "k8s-version-match" (tuple ">=1.29.0" .Values._internal.k8s_version) }}'
unit_templates:
  base-deps: {}
  flux-common:
    kustomization_spec:
      path: ./kustomize-units/flux-system/base
units:
  cert-manager:
    unit_templates: [base-deps]
    helmrelease_spec:
      chart:
        spec: {chart: cert-manager, version: v1.17.2}
  longhorn:
    helmrelease_spec:
      chart:
        spec: {chart: longhorn, version: 105.2.0+up1.8.1}
  calico:
    unit_templates:
    - '{{ tuple "base-deps" (not .Values._internal.state.is_upgrade) | include "set-only-if" }}'
    helm_chart_versions: *calico-versions
    helmrelease_spec:
      chart:
        spec: {chart: rke2-calico, version: ""}
  ingress-nginx:
    helm_chart_versions:
      4.12.101: '{{ include "k8s-version-match" (tuple ">=1.29.0" .Values._internal.k8s_version) }}'
    helmrelease_spec:
      chart:
        spec: {chart: rke2-ingress-nginx, version: ""}
  metallb:
    helm_chart_versions:
      0.14.8: false
      0.14.9: true
    helmrelease_spec:
      chart:
        spec: {chart: metallb, version: ""}
  kyverno:
    helmrelease_spec:
      chart:
        spec: {chart: kyverno, version: '{{ .Values.kyverno_version }}'}
  flux-system:
    unit_templates: [flux-common]
  capi:
    kustomization_spec:
      path: ./kustomize-units/capi
  capd:
    unit_templates:
    - '{{ "base-deps" }}'
`

const capiKustomization = `
resources:
  - https://github.com/kubernetes-sigs/cluster-api/releases/download/v1.9.7/core-components.yaml
  - https://github.com/kubernetes-sigs/kustomize/issues/3887
`

const fluxKustomization = `
resources:
  - https://github.com/fluxcd/flux2/releases/download/v2.5.1/install.yaml
`

func testFS(files map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for p, s := range files {
		fsys[p] = &fstest.MapFile{Data: []byte(s)}
	}
	return fsys
}

func testCatalog(t *testing.T) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

func readTest(t *testing.T, name string, files map[string]string) *Result {
	t.Helper()
	r, err := Read(Ref{Name: name, Commit: "c0ffee", FS: testFS(files)}, testCatalog(t))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func defaultFiles() map[string]string {
	return map[string]string{
		ValuesPath: base,
		"kustomize-units/capi/kustomization.yaml":             capiKustomization,
		"kustomize-units/flux-system/base/kustomization.yaml": fluxKustomization,
	}
}

func hasNote(r *Result, source, text string) bool {
	for _, n := range r.Notes {
		if strings.HasSuffix(n.Source, source) && strings.Contains(n.Text, text) {
			return true
		}
	}
	return false
}

func TestReadKubernetes(t *testing.T) {
	r := readTest(t, "release-1.3", defaultFiles())
	if got := r.Management.Short(); got != "1.30" || r.ManagementSource != "release-1.3:"+ValuesPath+"#k8s_version_short" {
		t.Errorf("management = %s from %q", got, r.ManagementSource)
	}
	var got []string
	for _, k := range r.KubeVersions {
		got = append(got, k.Minor.Short()+"="+k.Kubeadm.String()+"/"+k.RKE2.String())
	}
	want := []string{"1.29=v1.29.15/v1.29.15+rke2r1", "1.30=v1.30.12/v1.30.12+rke2r1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("k8s_version_map (-want +got):\n%s", diff)
	}
	tests := []struct{ name, source, text string }{
		{"an unquoted 1.30 key is read as written and flagged, as Helm reads it as 1.3", "k8s_version_map.1.30", "which Helm reads as 1.3"},
		{"an entry that reads more than the bootstrap provider is left out", "k8s_version_map.1.31", "needs gotpl interpretation beyond the bootstrap provider"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !hasNote(r, tt.source, tt.text) {
				t.Errorf("no note %q on %s in %+v", tt.text, tt.source, r.Notes)
			}
		})
	}
	if r.Release.Short() != "1.3" || r.Development {
		t.Errorf("release-1.3 read as %s, development %v", r.Release, r.Development)
	}
}

func TestManagementValuesWinOverTheChartDefaults(t *testing.T) {
	files := defaultFiles()
	files[ManagementValuesPath] = "k8s_version_short: \"1.29\"\n"
	r := readTest(t, "main", files)
	if r.Management.Short() != "1.29" || !strings.HasSuffix(r.ManagementSource, ManagementValuesPath+"#k8s_version_short") {
		t.Errorf("management = %s from %s, want 1.29 from %s", r.Management, r.ManagementSource, ManagementValuesPath)
	}
	if !r.Development {
		t.Error("main is not marked as a development line")
	}
}

func TestReadUnits(t *testing.T) {
	r := readTest(t, "1.4.0", defaultFiles())
	units := map[string]catalog.UnitVersion{}
	for _, u := range r.Units {
		units[u.Unit] = u
	}
	comps := map[string]string{}
	for _, c := range r.Components {
		comps[c.Name] = c.Version.String() + "|" + c.Chart
	}
	tests := []struct {
		name, unit, version, source string
		component, compVersion      string
	}{
		{"a chart version is read with its chart and source", "cert-manager", "v1.17.2", "units.cert-manager.helmrelease_spec.chart.spec.version", "cert-manager", "1.17.2|"},
		{"a Rancher chart gives Longhorn's version from its +up suffix", "longhorn", "105.2.0+up1.8.1", "units.longhorn.helmrelease_spec.chart.spec.version", "longhorn", "1.8.1|105.2.0+up1.8.1"},
		{"a single helm_chart_versions entry is the version", "ingress-nginx", "4.12.101", "units.ingress-nginx.helm_chart_versions", "", ""},
		{"the one entry set to a literal true is the version", "metallb", "0.14.9", "units.metallb.helm_chart_versions.0.14.9", "", ""},
		{"a Kustomize unit's version is the upstream release it applies", "capi", "v1.9.7", "kustomize-units/capi/kustomization.yaml#resources", "cluster-api", "1.9.7|"},
		{"a unit template supplies the kustomization path", "flux-system", "v2.5.1", "kustomize-units/flux-system/base/kustomization.yaml#resources", "flux", "2.5.1|"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, ok := units[tt.unit]
			if !ok {
				t.Fatalf("unit %s not read; notes %+v", tt.unit, r.Notes)
			}
			if u.Version != tt.version || !strings.HasSuffix(u.Source, tt.source) {
				t.Errorf("%s = %s from %s, want %s from …%s", tt.unit, u.Version, u.Source, tt.version, tt.source)
			}
			if tt.component != "" && comps[tt.component] != tt.compVersion {
				t.Errorf("component %s = %q, want %q", tt.component, comps[tt.component], tt.compVersion)
			}
		})
	}
	notes := []struct{ name, source, text string }{
		{"several gotpl-chosen chart versions are left out", "units.calico.helm_chart_versions", "picks one of v3.28.200, v3.29.101"},
		{"a gotpl chart version is left out", "units.kyverno.helmrelease_spec.chart.spec.version", "needs gotpl interpretation"},
		{"a field only a gotpl unit template could give is left out", "units.capd.unit_templates", "needs gotpl interpretation"},
		{"a version without a Kubernetes range stays information", "units.ingress-nginx.helm_chart_versions", "ingress-nginx 1.12 is information only"},
	}
	for _, tt := range notes {
		t.Run(tt.name, func(t *testing.T) {
			if !hasNote(r, tt.source, tt.text) {
				t.Errorf("no note %q on %s in %+v", tt.text, tt.source, r.Notes)
			}
		})
	}
	if _, ok := units["calico"]; ok {
		t.Error("calico was read although gotpl picks its version")
	}
}

func TestReadRefusesATreeWithoutValues(t *testing.T) {
	_, err := Read(Ref{Name: "main", FS: fstest.MapFS{}}, testCatalog(t))
	if !errors.Is(err, ErrNoValues) {
		t.Errorf("Read(empty tree) error = %v, want ErrNoValues", err)
	}
}

func TestImportAllCountsMainFromTheNewestRelease(t *testing.T) {
	refs := []Ref{
		{Name: "release-1.3", FS: testFS(defaultFiles())},
		{Name: "main", FS: testFS(defaultFiles())},
	}
	rs, err := ImportAll(refs, testCatalog(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	if rs[1].Release.Short() != "1.4" || !rs[1].Development {
		t.Errorf("main = %s (development %v), want 1.4, a development line", rs[1].Release, rs[1].Development)
	}
	if _, err := ImportAll(refs[1:], testCatalog(t), nil); err == nil || !strings.Contains(err.Error(), "--ref main=X.Y") {
		t.Errorf("main alone: error = %v, want a hint to name its release", err)
	}
	// main alone in a checkout with release branches and tags (--ref
	// main): counted from them, as ci-matrix counts it.
	rs, err = ImportAll(refs[1:], testCatalog(t), []semver.Version{semver.MustParse("1.2.1"), semver.MustParse("1.3"), semver.MustParse("1.3.10")})
	if err != nil {
		t.Fatal(err)
	}
	if rs[0].Release.Short() != "1.4" || !slices.ContainsFunc(rs[0].Notes, func(n Note) bool {
		return strings.Contains(n.Text, "after the newest release among the checkout's release tags and branches")
	}) {
		t.Errorf("main with the checkout's releases = %s, notes %v; want 1.4, counted from the checkout", rs[0].Release, rs[0].Notes)
	}
}

func TestImportAllRefusesAComponentThatCannotRunOnItsRelease(t *testing.T) {
	// A component catalog whose cert-manager 1.17 range starts above the
	// 1.30 that the ref's release runs: the import names the component, its
	// source and the minor.
	c := *testCatalog(t)
	c.Components = slices.Clone(c.Components)
	for i := range c.Components {
		if c.Components[i].Name != "cert-manager" {
			continue
		}
		c.Components[i].Versions = slices.Clone(c.Components[i].Versions)
		for j := range c.Components[i].Versions {
			if c.Components[i].Versions[j].Version.Short() == "1.17" {
				c.Components[i].Versions[j].MinK8s = semver.MustParse("1.31")
			}
		}
	}
	_, err := ImportAll([]Ref{{Name: "release-1.3", FS: testFS(defaultFiles())}}, &c, nil)
	want := "release-1.3: catalog: release 1.3: cert-manager 1.17.2 (release-1.3:charts/sylva-units/values.yaml#units.cert-manager.helmrelease_spec.chart.spec.version) does not support Kubernetes 1.30, which release 1.3 runs"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("ImportAll error = %v, want it to contain %q", err, want)
	}
	if _, err := ImportAll([]Ref{{Name: "release-1.3", FS: testFS(defaultFiles())}}, testCatalog(t), nil); err != nil {
		t.Errorf("ImportAll with the embedded component catalog: %v", err)
	}
}

func TestReleasesPreferTheReleaseBranch(t *testing.T) {
	rs := []*Result{
		{Ref: "1.3.10", Release: semver.MustParse("1.3"), Management: semver.MustParse("1.30"), KubeVersions: []catalog.KubeVersion{{Minor: semver.MustParse("1.30")}}},
		{Ref: "release-1.3", Release: semver.MustParse("1.3"), Management: semver.MustParse("1.30"), KubeVersions: []catalog.KubeVersion{{Minor: semver.MustParse("1.30")}}},
		{Ref: "1.3.9", Release: semver.MustParse("1.3"), Management: semver.MustParse("1.30"), KubeVersions: []catalog.KubeVersion{{Minor: semver.MustParse("1.30")}}},
	}
	rels, err := Releases(rs)
	if err != nil {
		t.Fatal(err)
	}
	if len(rels) != 1 || rels[0].ImportedFrom.Ref != "release-1.3" {
		t.Errorf("releases = %+v, want one, from release-1.3", rels)
	}
	rels, _ = Releases([]*Result{rs[0], rs[2]})
	if rels[0].ImportedFrom.Ref != "1.3.10" {
		t.Errorf("between tags, %s won, want 1.3.10", rels[0].ImportedFrom.Ref)
	}
	rs[1].KubeVersions = nil
	if _, err := Releases(rs[1:2]); err == nil {
		t.Error("a release without the management minor's full version was accepted")
	}
}

const catalogFile = `releases:
  - release: "1.3"
    upgrade_from: ["1.2"]
    # BEGIN imported
    kubernetes: {}
    # END imported
  - release: "1.4"
    upgrade_from: ["1.3"]
`

func TestUpdateRewritesOnlyTheImportedBlock(t *testing.T) {
	rel := catalog.Release{
		Release:      semver.MustParse("1.3"),
		ImportedFrom: &catalog.ImportSource{Ref: "release-1.3", Commit: "abc"},
		Kubernetes: catalog.Kubernetes{Management: semver.MustParse("1.30"), ManagementSource: "release-1.3:v#k", Versions: []catalog.KubeVersion{
			{Minor: semver.MustParse("1.30"), Kubeadm: semver.MustParse("v1.30.11"), RKE2: semver.MustParse("v1.30.11+rke2r1"), Source: "release-1.3:v#m"},
		}},
		Components: []catalog.ReleaseComponent{{Name: "longhorn", Version: semver.MustParse("1.7.3"), Chart: "104.2.2+up1.7.3", Source: "release-1.3:v#l"}},
		Units:      []catalog.UnitVersion{{Unit: "longhorn", Chart: "longhorn", Version: "104.2.2+up1.7.3", Source: "release-1.3:v#l"}},
	}
	out, err := Update([]byte(catalogFile), []catalog.Release{rel}, map[string][]Note{"release-1.3": {{Source: "release-1.3:v#c", Text: "picks one of a, b"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := `releases:
  - release: "1.3"
    upgrade_from: ["1.2"]
    # BEGIN imported from sylva-core release-1.3 by ` + "`make catalog`" + `; do not edit these lines
    imported_from: {ref: "release-1.3", commit: "abc"}
    kubernetes:
      management: "1.30"
      management_source: "release-1.3:v#k"
      versions:
        - {minor: "1.30", kubeadm: "v1.30.11", rke2: "v1.30.11+rke2r1", source: "release-1.3:v#m"}
    components:
      - {name: longhorn, version: "1.7.3", chart: "104.2.2+up1.7.3", source: "release-1.3:v#l"}
    units:
      - {unit: longhorn, chart: longhorn, version: "104.2.2+up1.7.3", source: "release-1.3:v#l"}
    # note: release-1.3:v#c: picks one of a, b
    # END imported
  - release: "1.4"
    upgrade_from: ["1.3"]
`
	if diff := cmp.Diff(want, string(out)); diff != "" {
		t.Errorf("Update (-want +got):\n%s", diff)
	}
	again, err := Update(out, []catalog.Release{rel}, map[string][]Note{"release-1.3": {{Source: "release-1.3:v#c", Text: "picks one of a, b"}}})
	if err != nil || string(again) != string(out) {
		t.Errorf("a second Update changed the file (err %v)", err)
	}
	rel.Release = semver.MustParse("1.4")
	if _, err := Update([]byte(catalogFile), []catalog.Release{rel}, nil); err == nil || !strings.Contains(err.Error(), "release 1.4 has no imported block") {
		t.Errorf("Update of a release without markers: error = %v", err)
	}
}

// A remote-tracking release branch (a clone's origin/release-1.3) names
// its release as the branch does.
func TestReadRemoteTrackingReleaseBranch(t *testing.T) {
	for _, name := range []string{"release-1.3", "origin/release-1.3"} {
		r := readTest(t, name, defaultFiles())
		if r.Release.Short() != "1.3" || r.Development {
			t.Errorf("%s: release %s, development %v; want 1.3, a release", name, r.Release.Short(), r.Development)
		}
	}
}
