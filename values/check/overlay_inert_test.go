package check

import (
	"cmp"
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/internal/catalogtest"
	"gitlab.com/sylva-projects/sylva-planner/internal/sylvacore"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/values/helmengine"
	"gitlab.com/sylva-projects/sylva-planner/values/overlay"
)

// inertRender is one render of a bundle ref's chart (the cluster,
// longhorn and longhorn-crd units, the values Secret and the status
// Kustomization), with or without an overlay.
type inertRender struct {
	name    string
	ref     string
	version string // the chart's version; "" keeps the ref's (0.0.0-git)
	overlay *overlay.Generated
	status  map[string]string
	// running, when set, is the chart version of the longhorn
	// HelmRelease the cluster runs, served at runningAPI
	// (helm.toolkit.fluxcd.io/v2 when empty).
	running, runningAPI string
	got                 map[string]string
	err                 error
}

// An overlay rendered in the chart of another release changes none of
// what the overlay sets: the overlay for 1.3 left in place when main's
// chart (the 1.4 line, taken from Git: 0.0.0-git) arrives, with the
// status the 1.3 transition left (settled on 1.3), and the overlay for
// 1.4 wired before the chart moves, in 1.3.10's chart published as
// 1.3.10, with a status settled on 1.3 (which, taken for its own chart,
// would start pass 1 of 1.3 → 1.4). Each gives the chart's own
// Kubernetes version (in the values Secret and the cluster unit),
// Longhorn chart versions and additional-info, as the chart renders them
// without the overlay. A control renders the 1.4 overlay in main's chart:
// there it runs pass 1 of 1.2 → 1.4. Five renders of three units each.
func TestOverlayIsInertInTheChartOfAnotherRelease(t *testing.T) {
	if testing.Short() {
		t.Skip("renders the real chart")
	}
	g13 := generatedFor(t, "1.1", "1.3", "1.3.10", [2]string{
		"  - release: \"1.3\"\n    upgrade_from: [\"1.2\"]\n", "  - release: \"1.3\"\n    upgrade_from: [\"1.1\", \"1.2\"]\n",
	})
	g14 := generatedFor(t, "1.2", "1.4", "main", [2]string{
		"  - release: \"1.4\"\n    upgrade_from: [\"1.3\"]\n", "  - release: \"1.4\"\n    upgrade_from: [\"1.2\", \"1.3\"]\n",
	})
	if !g13.Longhorn || !g14.Longhorn {
		t.Fatalf("overlays set Longhorn: 1.3 %v, 1.4 %v; the test needs both to", g13.Longhorn, g14.Longhorn)
	}
	settled13 := map[string]string{
		"release-revision": "9", "sylva-units-chart-version": "0.0.0-git", "values-checksum": "x",
		overlay.AdditionalInfo: "additional_reconciliation_required: \"false\"\nsylva_release: \"1.3\"\ntransition_from: \"\"\ntransition_pass: \"\"\n",
	}
	from12 := map[string]string{"release-revision": "4", "sylva-units-chart-version": "1.2.1", "values-checksum": "x", overlay.AdditionalInfo: "{}\n"}
	renders := []*inertRender{
		{name: "main", ref: "main", status: settled13},
		{name: "main with the 1.3 overlay", ref: "main", overlay: g13, status: settled13},
		{name: "1.3.10", ref: "1.3.10", version: "1.3.10", status: settled13},
		{name: "1.3.10 with the 1.4 overlay", ref: "1.3.10", version: "1.3.10", overlay: g14, status: settled13},
		{name: "main with the 1.4 overlay, from 1.2", ref: "main", overlay: g14, status: from12},
	}
	start := time.Now()
	var wg sync.WaitGroup
	for _, r := range renders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.got, r.err = renderInert(t, r)
		}()
	}
	wg.Wait()
	t.Logf("%d renders in %s", len(renders), time.Since(start).Round(time.Second))
	for _, r := range renders {
		if r.err != nil {
			t.Fatalf("render %s: %v", r.name, r.err)
		}
		for _, k := range []string{"cluster.k8s_version", "cluster unit k8s_version", "longhorn", "longhorn-crd", "additional-info"} {
			if _, ok := r.got[k]; !ok {
				t.Fatalf("render %s: no %s in %v", r.name, k, r.got)
			}
		}
	}
	for _, pair := range [][2]int{{0, 1}, {2, 3}} {
		without, with := renders[pair[0]], renders[pair[1]]
		if diff := gocmp.Diff(without.got, with.got); diff != "" {
			t.Errorf("%s differs from %s (-without +with):\n%s", with.name, without.name, diff)
		}
	}
	control := renders[4].got
	if v, err := semver.Parse(control["cluster unit k8s_version"]); err != nil || v.Short() != "1.30" {
		t.Errorf("control: cluster unit k8s_version = %q, want 1.30 (pass 1 of 1.2 → 1.4)", control["cluster unit k8s_version"])
	}
	if control["longhorn"] != "104.2.2+up1.7.3" {
		t.Errorf("control: longhorn chart version = %q, want 104.2.2+up1.7.3 (pass 1 of 1.2 → 1.4)", control["longhorn"])
	}
}

// generatedFor generates the overlay of from → to with the chart of ref,
// in the embedded catalog edited by widen.
func generatedFor(t *testing.T, from, to, ref string, widen [2]string) *overlay.Generated {
	t.Helper()
	ch := loadBundleChart(t, ref)
	in := planner.Input{Catalog: catalogtest.Edited(t, widen), From: semver.MustParse(from), To: semver.MustParse(to), FromSource: "flag", ToolVersion: "test"}
	g, err := overlay.GenerateFor(in, &overlay.TargetChart{Name: ref, Values: ch.Values})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// renderInert renders r with the ref's management values, Longhorn
// enabled on capd, and r's overlay, and reads what the overlay sets.
func renderInert(t *testing.T, r *inertRender) (map[string]string, error) {
	t.Helper()
	ch := loadBundleChart(t, r.ref)
	if r.version != "" {
		meta := *ch.Metadata
		meta.Version = r.version
		ch.Metadata = &meta
	}
	mgmt, err := os.ReadFile(filepath.Join(sylvacore.At(t, r.ref).Chart(), "management.values.yaml"))
	if err != nil {
		return nil, err
	}
	user, err := yaml.Marshal(map[string]any{
		"cluster": map[string]any{"capi_providers": map[string]any{"infra_provider": "capd", "bootstrap_provider": "cabpr"}},
		"units":   map[string]any{"longhorn": map[string]any{"enabled": true, "enabled_conditions": []any{}}},
	})
	if err != nil {
		return nil, err
	}
	files := []helmengine.File{{Name: "management.values.yaml", Data: mgmt}, {Name: "user", Data: user}}
	if r.overlay != nil {
		b, err := yaml.Marshal(r.overlay.Values())
		if err != nil {
			return nil, err
		}
		files = append(files, helmengine.File{Name: "overlay", Data: b})
	}
	m, err := renderUnits(context.Background(), helmengine.NewChart(ch), files, helmengine.ChartOptions{
		IsUpgrade: true, Revision: 10, SkipSchemaValidation: true,
		Source: helmengine.NewObjects(inertObjects(r)...),
	}, chartUnits...)
	if err != nil {
		return nil, err
	}
	return readChart(m), nil
}

// inertObjects are the objects the cluster of r serves to lookup: the
// status, and the longhorn HelmRelease when r runs one.
func inertObjects(r *inertRender) []map[string]any {
	objs := []map[string]any{chartStatusObject(helmengine.DefaultNamespace, r.status)}
	if r.running != "" {
		objs = append(objs, map[string]any{
			"apiVersion": cmp.Or(r.runningAPI, "helm.toolkit.fluxcd.io/v2"), "kind": "HelmRelease",
			"metadata": map[string]any{"name": "longhorn", "namespace": helmengine.DefaultNamespace},
			"spec":     map[string]any{"chart": map[string]any{"spec": map[string]any{"chart": "longhorn", "version": r.running}}},
		})
	}
	return objs
}

// In the chart of another release, the overlay holds the Longhorn chart
// version the cluster runs, which a cluster running that chart rendered
// from it: release-1.3 of January 2025 ships Longhorn 104.2.1+up1.7.2
// (1.3.10, the catalog's 1.3, ships 104.2.2+up1.7.3). With the 1.4 overlay
// wired before the chart moves, its Longhorn running, the render is the
// chart's own, whether Flux serves HelmRelease at v2 or only at v2beta2
// (the lookup is guarded by .Capabilities.APIVersions, as Helm fails a
// lookup of a kind not served). With nothing running (helm template, a
// first install) the overlay can only take the catalog's version for 1.3:
// the chart's own values are coalesced away before any template runs.
func TestOverlayHoldsTheLonghornTheChartOfAnotherReleaseRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("renders the real chart")
	}
	g14 := generatedFor(t, "1.2", "1.4", "main", [2]string{
		"  - release: \"1.4\"\n    upgrade_from: [\"1.3\"]\n", "  - release: \"1.4\"\n    upgrade_from: [\"1.2\", \"1.3\"]\n",
	})
	if !g14.Longhorn {
		t.Fatal("the 1.4 overlay does not set Longhorn; the test needs it to")
	}
	settled13 := map[string]string{
		"release-revision": "9", "sylva-units-chart-version": "0.0.0-git", "values-checksum": "x",
		overlay.AdditionalInfo: "additional_reconciliation_required: \"false\"\nsylva_release: \"1.3\"\ntransition_from: \"\"\ntransition_pass: \"\"\n",
	}
	const own = "104.2.1+up1.7.2"
	old13 := sylvacore.Before(t, "release-1.3", "2025-02-01")
	renders := []*inertRender{
		{name: "release-1.3 of January 2025", ref: old13, status: settled13, running: own},
		{name: "with the 1.4 overlay, its Longhorn running (v2)", ref: old13, overlay: g14, status: settled13, running: own},
		{name: "with the 1.4 overlay, its Longhorn running (v2beta2)", ref: old13, overlay: g14, status: settled13, running: own, runningAPI: "helm.toolkit.fluxcd.io/v2beta2"},
		{name: "with the 1.4 overlay, nothing running", ref: old13, overlay: g14, status: settled13},
	}
	var wg sync.WaitGroup
	for _, r := range renders {
		wg.Go(func() { r.got, r.err = renderInert(t, r) })
	}
	wg.Wait()
	for _, r := range renders {
		if r.err != nil {
			t.Fatalf("render %s: %v", r.name, r.err)
		}
	}
	alone := renders[0].got
	if alone["longhorn"] != own || alone["longhorn-crd"] != own {
		t.Fatalf("%s renders Longhorn %q and %q alone, want %s: the test's premise", renders[0].name, alone["longhorn"], alone["longhorn-crd"], own)
	}
	for _, r := range renders[1:3] {
		if diff := gocmp.Diff(alone, r.got); diff != "" {
			t.Errorf("%s differs from the chart alone (-alone +with):\n%s", r.name, diff)
		}
	}
	if got := renders[3].got["longhorn"]; got != "104.2.2+up1.7.3" {
		t.Errorf("%s: longhorn = %q, want the catalog's for 1.3, 104.2.2+up1.7.3", renders[3].name, got)
	}
}
