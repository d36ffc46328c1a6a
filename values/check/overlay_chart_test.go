package check

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/internal/catalogtest"
	"gitlab.com/sylva-projects/sylva-planner/internal/sylvacore"
	"gitlab.com/sylva-projects/sylva-planner/internal/valuestest"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/units"
	"gitlab.com/sylva-projects/sylva-planner/values/helmengine"
	"gitlab.com/sylva-projects/sylva-planner/values/overlay"
	"gitlab.com/sylva-projects/sylva-planner/yamldoc"
)

// catalogWithLonghornCharts is the embedded catalog with chart versions
// for the Longhorn versions it has none for. They are test data, not
// Rancher's: they let the overlay of 1.7 (whose passes move Longhorn) be
// generated and simulated.
func catalogWithLonghornCharts(t testing.TB) *catalog.Catalog {
	t.Helper()
	// 1.9.2's chart version is not known (1.11.3's is in the catalog).
	return catalogtest.Edited(t, [2]string{`{name: longhorn, version: "1.9.2"}`, `{name: longhorn, version: "1.9.2", chart: "90.0.0+up1.9.2"}`})
}

func input12To14(t testing.TB) planner.Input {
	t.Helper()
	return planner.Input{Catalog: catalogtest.With12To14(t), From: semver.MustParse("1.2"), To: semver.MustParse("1.4"), FromSource: "flag", ToolVersion: "test"}
}

// loadBundleChart loads the sylva-units chart of a bundle ref.
func loadBundleChart(t testing.TB, ref string) *chart.Chart {
	t.Helper()
	ch, err := loader.Load(sylvacore.At(t, ref).Chart())
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

// overlayCase is one render of main's chart with the overlay of 1.2 → 1.4.
type overlayCase struct {
	name string
	// status is the data of the sylva-units-status ConfigMap served to
	// lookup; nil means none (a fresh install).
	status map[string]string
	// install renders as a fresh install (helm install), not an upgrade.
	install bool
	// objects are other objects served to lookup.
	objects []map[string]any
	// want are the values of the pass the render must apply, or the
	// error it must fail with (wantErr, a substring).
	k8s, longhornChart string
	info               map[string]string
	wantErr            string
}

// statusAfter is the ConfigMap data the chart's status Kustomization
// writes after a pass of the plan: its keys, and the plan's expected
// status as the YAML of additional-info.
func statusAfter(t *testing.T, pass planner.Pass) map[string]string {
	t.Helper()
	info, err := yaml.Marshal(pass.ExpectedStatus)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]string{
		"release-revision": fmt.Sprint(pass.Index + 1), "sylva-units-chart-version": "0.0.0-git",
		"values-checksum": "x", overlay.AdditionalInfo: string(info),
	}
}

// overlayTransition is a transition run by the chart of a bundle ref.
type overlayTransition struct {
	ref      string
	from, to string
	// widen makes the to release of the catalog support from.
	widen [2]string
	// passes is how many passes the plan's last hop must have.
	passes int
}

// The overlay generated for a transition, laid over the chart of its
// target (a bundle ref) with the chart's management values, renders with
// Helm's engine what the plan says on a fresh install and on each pass:
// the Kubernetes version in the values of the cluster unit, Longhorn's
// chart version in the longhorn and longhorn-crd HelmReleases (when the
// overlay sets it), and the status keys in the additional-info the
// sylva-units-status Kustomization writes, also from a status without
// pass keys. Every ref of the bundle that a transition can go to: main
// (the 1.4 line), release-1.3 and 1.3.10 (1.3), 1.2.1 (1.2); 1.0.0 has no
// older release to come from. Test catalogs let them run two passes.
func TestGeneratedOverlayRunsThePlanInTheRealChart(t *testing.T) {
	for _, tr := range []overlayTransition{
		{ref: "main", from: "1.2", to: "1.4", passes: 2, widen: [2]string{
			"  - release: \"1.4\"\n    upgrade_from: [\"1.3\"]\n", "  - release: \"1.4\"\n    upgrade_from: [\"1.2\", \"1.3\"]\n",
		}},
		{ref: "1.3.10", from: "1.1", to: "1.3", passes: 2, widen: [2]string{
			"  - release: \"1.3\"\n    upgrade_from: [\"1.2\"]\n", "  - release: \"1.3\"\n    upgrade_from: [\"1.1\", \"1.2\"]\n",
		}},
		{ref: "release-1.3", from: "1.1", to: "1.3", passes: 2, widen: [2]string{
			"  - release: \"1.3\"\n    upgrade_from: [\"1.2\"]\n", "  - release: \"1.3\"\n    upgrade_from: [\"1.1\", \"1.2\"]\n",
		}},
		{ref: "1.2.1", from: "1.0", to: "1.2", passes: 2, widen: [2]string{
			"  - release: \"1.2\"\n    upgrade_from: [\"1.1\"]\n", "  - release: \"1.2\"\n    upgrade_from: [\"1.0\", \"1.1\"]\n",
		}},
	} {
		t.Run(tr.ref, func(t *testing.T) { runOverlayTransition(t, tr) })
	}
}

func runOverlayTransition(t *testing.T, tr overlayTransition) {
	t.Helper()
	ch := loadBundleChart(t, tr.ref)
	in := planner.Input{Catalog: catalogtest.Edited(t, tr.widen), From: semver.MustParse(tr.from), To: semver.MustParse(tr.to), FromSource: "flag", ToolVersion: "test"}
	g, err := overlay.GenerateFor(in, &overlay.TargetChart{Name: tr.ref, Values: ch.Values})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := planner.Compute(in)
	if err != nil {
		t.Fatal(err)
	}
	hop := overlay.LastHop(plan)
	if len(hop) != tr.passes {
		t.Fatalf("plan %s → %s has %d passes in its last hop, want %d", tr.from, tr.to, len(hop), tr.passes)
	}
	mgmt, err := os.ReadFile(filepath.Join(sylvacore.At(t, tr.ref).Chart(), "management.values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var mv map[string]any
	if err := yaml.Unmarshal(mgmt, &mv); err != nil {
		t.Fatal(err)
	}
	// Longhorn runs on capm3 only (1.3: when enabled); the test enables it
	// on capd.
	user := map[string]any{
		"cluster": map[string]any{"capi_providers": map[string]any{"infra_provider": "capd", "bootstrap_provider": "cabpr"}},
		"units":   map[string]any{"longhorn": map[string]any{"enabled": true, "enabled_conditions": []any{}}},
	}
	vals := units.MergeValues(mv, user, g.Values())

	// Longhorn's chart version of a pass: the overlay's, else the chart's own.
	own, _ := yamldoc.Dig(ch.Values, overlay.LonghornVersionPath("longhorn")...)
	chartOf := func(v string) string {
		if !g.Longhorn {
			s, _ := own.(string)
			return s
		}
		c, ok := in.Catalog.ChartVersion("longhorn", semver.MustParse(v))
		if !ok {
			t.Fatalf("no chart version for Longhorn %s", v)
		}
		return c
	}
	infoOf := func(s planner.ExpectedStatus) map[string]string {
		return map[string]string{overlay.KeySylvaRelease: s.SylvaRelease, overlay.KeyAdditionalReconciliationRequired: s.AdditionalReconciliationRequired, overlay.KeyTransitionFrom: s.TransitionFrom, overlay.KeyTransitionPass: s.TransitionPass}
	}
	last := hop[len(hop)-1]
	cases := []overlayCase{{
		name: "a fresh install applies the release's own versions and records no transition", install: true,
		k8s: last.Values.K8sVersionShort, longhornChart: chartOf(last.Values.LonghornVersion),
		info: map[string]string{overlay.KeySylvaRelease: tr.to, overlay.KeyAdditionalReconciliationRequired: "false", overlay.KeyTransitionFrom: "", overlay.KeyTransitionPass: ""},
	}, {
		// An install not finished yet (its status unit never applied) runs
		// the final values; an upgrade goes on with them.
		name:    "an upgrade before the status unit ever applied keeps the install's final values",
		objects: []map[string]any{statusKustomization(helmengine.DefaultNamespace, "")},
		k8s:     last.Values.K8sVersionShort, longhornChart: chartOf(last.Values.LonghornVersion),
		info: map[string]string{overlay.KeySylvaRelease: tr.to, overlay.KeyAdditionalReconciliationRequired: "false", overlay.KeyTransitionFrom: "", overlay.KeyTransitionPass: ""},
	}, {
		// The ConfigMap deleted (mid-transition or not): the final values
		// could skip a minor, so nothing renders.
		name:    "an upgrade whose status ConfigMap vanished fails, naming the status unit",
		objects: []map[string]any{statusKustomization(helmengine.DefaultNamespace, "main@sha1:0123")},
		wantErr: "cannot read its sylva-units-status ConfigMap",
	}, {
		name:    "an upgrade with no status at all (helm template --is-upgrade) fails, naming the status unit",
		wantErr: "flux reconcile kustomization sylva-units-status -n sylva-system",
	}}
	for i, pass := range hop {
		st := map[string]string{"release-revision": "7", "sylva-units-chart-version": tr.from + ".1", "values-checksum": "x", overlay.AdditionalInfo: "{}\n"}
		if i > 0 {
			st = statusAfter(t, hop[i-1])
		}
		cases = append(cases, overlayCase{
			name: fmt.Sprintf("pass %d of %d", pass.HopPass, pass.HopPasses), status: st,
			k8s: pass.Values.K8sVersionShort, longhornChart: chartOf(pass.Values.LonghornVersion), info: infoOf(pass.ExpectedStatus),
		})
	}
	if tr.passes == 2 {
		// As a chart that runs its own transition writes the status after
		// pass 1: no pass keys. The overlay renders the pass every command
		// places (planner.UnkeyedOf): the hop's last.
		st := map[string]string{"release-revision": "8", "sylva-units-chart-version": "0.0.0-git", "values-checksum": "x", overlay.KeySylvaRelease: tr.to, overlay.KeyAdditionalReconciliationRequired: "true"}
		if pos := locateStatus(t, in, st); pos.Next == nil || pos.Next.Index != last.Index || pos.Next.Values.K8sVersionShort != last.Values.K8sVersionShort {
			t.Errorf("Locate on a status without pass keys says %q, want pass %d (Kubernetes %s)", pos.Summary, last.Index, last.Values.K8sVersionShort)
		}
		cases = append(cases, overlayCase{
			name: "pass 2 of 2 from a status without pass keys", status: st,
			k8s: last.Values.K8sVersionShort, longhornChart: chartOf(last.Values.LonghornVersion), info: infoOf(last.ExpectedStatus),
		})
	}
	reduced := helmengine.NewChart(ch)
	valsYAML, err := yaml.Marshal(vals)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			objs := slices.Clone(tc.objects)
			if tc.status != nil {
				objs = append(objs, statusObject(helmengine.DefaultNamespace, tc.status))
			}
			opts := helmengine.ChartOptions{KubeVersion: "v1.31.8", IsUpgrade: true, Revision: 2, Source: helmengine.NewObjects(objs...), SkipSchemaValidation: true}
			if tc.install {
				opts.IsUpgrade, opts.Revision = false, 1
			}
			// Only what the facts are read from: the cluster and Longhorn
			// units, the values Secret and the status Kustomization, each
			// as a whole render gives it (TestRenderUnitsRendersWhatTheWholeChartRenders).
			m, err := renderUnits(context.Background(), reduced, []helmengine.File{{Name: "values", Data: valsYAML}}, opts, chartUnits...)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("render: %v, want an error with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("render: %v", err)
			}
			got := overlayFacts(t, m.Objects)
			if v, err := semver.Parse(got.k8s); err != nil || v.Short() != tc.k8s {
				t.Errorf("cluster unit k8s_version = %q, want Kubernetes %s", got.k8s, tc.k8s)
			}
			for _, u := range []string{"longhorn", "longhorn-crd"} {
				if got.longhorn[u] != tc.longhornChart {
					t.Errorf("%s HelmRelease chart version = %q, want %q", u, got.longhorn[u], tc.longhornChart)
				}
			}
			if diff := cmp.Diff(tc.info, got.info); diff != "" {
				t.Errorf("sylva-units-status additional-info (-want +got):\n%s", diff)
			}
		})
	}
}

// statusKustomization is the chart's sylva-units-status Kustomization as
// kustomize-controller leaves it: applied at revision applied ("" for
// never).
func statusKustomization(ns, applied string) map[string]any {
	st := map[string]any{"observedGeneration": int64(1)}
	if applied != "" {
		st["lastAppliedRevision"] = applied
	}
	return map[string]any{
		"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
		"metadata": map[string]any{"name": helmengine.StatusConfigMap, "namespace": ns},
		"spec":     map[string]any{"path": statusKustomizationPath},
		"status":   st,
	}
}

// overlayRender are what a render of the chart says of a transition.
type overlayRender struct {
	k8s      string
	longhorn map[string]string
	info     map[string]string
}

// overlayFacts reads the cluster unit's values (the VALUES_B64 of its
// substitution Secret), the chart version of the longhorn and
// longhorn-crd HelmReleases (the /spec patch of their Kustomizations) and
// the additional-info of the sylva-units-status Kustomization's patch.
func overlayFacts(t *testing.T, objs []map[string]any) overlayRender {
	t.Helper()
	f := overlayRender{longhorn: map[string]string{}}
	for _, o := range objs {
		kind, _ := o["kind"].(string)
		name, _ := stringAt(o, "metadata", "name")
		switch {
		case kind == "Secret" && strings.HasPrefix(name, "kustomization-unit-substitute-cluster-"):
			b64, _ := stringAt(o, "stringData", "VALUES_B64")
			raw, err := base64.StdEncoding.DecodeString(b64)
			if err != nil {
				t.Fatalf("%s VALUES_B64: %v", name, err)
			}
			var v map[string]any
			if err := yaml.Unmarshal(raw, &v); err != nil {
				t.Fatalf("%s values: %v", name, err)
			}
			f.k8s, _ = v["k8s_version"].(string)
		case kind == "Kustomization" && (name == "longhorn" || name == "longhorn-crd"):
			for _, p := range patchesOf(t, o) {
				var ops []map[string]any
				if yaml.Unmarshal([]byte(p), &ops) != nil {
					continue
				}
				for _, op := range ops {
					if op["path"] != "/spec" {
						continue
					}
					if spec, ok := op["value"].(map[string]any); ok {
						f.longhorn[name], _ = stringAt(spec, "chart", "spec", "version")
					}
				}
			}
		case kind == "Kustomization" && name == helmengine.StatusConfigMap:
			for _, p := range patchesOf(t, o) {
				var cm map[string]any
				if yaml.Unmarshal([]byte(p), &cm) != nil {
					continue
				}
				info, ok := stringAt(cm, "data", overlay.AdditionalInfo)
				if !ok {
					continue
				}
				var m map[string]any
				if err := yaml.Unmarshal([]byte(info), &m); err != nil {
					t.Fatalf("additional-info %q: %v", info, err)
				}
				f.info = map[string]string{}
				for k, v := range m {
					f.info[k] = overlay.ScalarString(v)
				}
			}
		}
	}
	return f
}

func patchesOf(t *testing.T, ks map[string]any) []string {
	t.Helper()
	spec, _ := ks["spec"].(map[string]any)
	list, _ := spec["patches"].([]any)
	var out []string
	for _, p := range list {
		if pm, ok := p.(map[string]any); ok {
			if s, ok := pm["patch"].(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

func stringAt(m map[string]any, path ...string) (string, bool) {
	v, ok := yamldoc.Dig(m, path...)
	if !ok {
		return "", false
	}
	s, ok := v.(string)
	return s, ok
}

// TestOverlayRunsAnEarlierHopInItsReleasesChart: on the route 1.1 → 1.3 →
// 1.4 (a catalog where 1.3 accepts 1.1), the hop to 1.3 takes two passes
// (Kubernetes 1.28 → 1.29 → 1.30, Longhorn 1.5.5 → 1.6.3 → 1.7.3). The one
// overlay generated for 1.1 → 1.4 runs them in the chart of 1.3 (the
// 1.3.10 tag): values check --chart of the plan 1.1 → 1.3 on that chart,
// with that overlay, finds nothing (each pass renders the plan's
// Kubernetes version, Longhorn chart and status keys), where the overlay
// of the last hop alone would set 1.3's own Kubernetes 1.30 on the first
// pass, skipping 1.29.
func TestOverlayRunsAnEarlierHopInItsReleasesChart(t *testing.T) {
	if testing.Short() {
		t.Skip("renders the real chart")
	}
	cat := catalogtest.Edited(t, [2]string{"  - release: \"1.3\"\n    upgrade_from: [\"1.2\"]\n", "  - release: \"1.3\"\n    upgrade_from: [\"1.1\", \"1.2\"]\n"})
	whole := planner.Input{Catalog: cat, From: semver.MustParse("1.1"), To: semver.MustParse("1.4"), FromSource: "flag", ToolVersion: "test"}
	plan, err := planner.Compute(whole)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(plan.Route, " ") != "1.1 1.3 1.4" || len(plan.Passes) != 3 {
		t.Fatalf("route %v with %d passes, want 1.1 → 1.3 (two passes) → 1.4", plan.Route, len(plan.Passes))
	}
	g, err := overlay.Generate(whole)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Hops) != 1 || g.Hops[0].To != "1.3" {
		t.Fatalf("hops %v, want the hop to 1.3", g.Hops)
	}
	var y bytes.Buffer
	if err := g.WriteYAML(&y); err != nil {
		t.Fatal(err)
	}
	tr := sylvacore.At(t, "1.3.10")
	c, err := helmengine.LoadChart(tr.Chart())
	if err != nil {
		t.Fatal(err)
	}
	hop := whole
	hop.To = semver.MustParse("1.3")
	rep, err := Chart(context.Background(), ChartInput{
		Plan: hop, Chart: c, Files: append(valuestest.ReadFiles[helmengine.File](t, tr.Chart(), "values.yaml", "management.values.yaml"), longhornEnabled),
		Overlay: &helmengine.File{Name: "overlay-1.1-to-1.4.yaml", Data: y.Bytes()}, SkipSchemaValidation: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	passes := 0
	for _, sc := range rep.Scenarios {
		if strings.HasPrefix(sc.Name, "pass ") {
			passes++
		}
	}
	if passes < 2 {
		t.Errorf("%d pass scenarios rendered, want the hop's two passes at least", passes)
	}
	for _, f := range rep.Findings {
		t.Errorf("%s %s: %s", f.Code, f.Subject, f.Message)
	}
	for _, n := range rep.Notes {
		t.Logf("note: %s", n)
	}
}
