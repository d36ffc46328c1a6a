package reconciler_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/internal/catalogtest"
	"gitlab.com/sylva-projects/sylva-planner/internal/kubetest"
	"gitlab.com/sylva-projects/sylva-planner/internal/sylvacore"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/reconciler"
	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/status"
	"gitlab.com/sylva-projects/sylva-planner/units"
	"gitlab.com/sylva-projects/sylva-planner/values/overlay"
)

// TestRealChartTransitionWithHelmController installs the sylva-units chart
// of the bundle's main (the 1.4 line) with helm-controller, with the
// overlay `values generate` gives for 1.2 → 1.4 (a test catalog in which
// 1.4 supports 1.2) over the chart's management values, on a cluster whose
// status ConfigMap says 1.2. The test plays kustomize-controller for the
// sylva-units-status Kustomization only (it writes the ConfigMap the
// Kustomization's patch describes, then marks it Ready) and
// source-controller for the chart (a Ready HelmChart whose archive it
// serves); reconciler.Applier.Drive requests the passes. The control plane's
// Kubernetes version rendered into the cluster unit must be 1.30 on the
// first pass and 1.31 on the second, and nothing may be requested after
// it.
//
// Enabled by SYLVA_PLANNER_E2E=1 with the helm-controller binary of
// hack/build-flux.sh; it renders the whole chart three times, which takes
// minutes (run it with -timeout 30m).
func TestRealChartTransitionWithHelmController(t *testing.T) {
	in := planner.Input{Catalog: catalogtest.With12To14(t), From: semver.MustParse("1.2"), To: semver.MustParse("1.4"), FromSource: "flag", ToolVersion: "test"}
	rig := newChartRig(t, in, from12, managementValues)
	rig.wantMinors(t, "1.30 1.31")
	rig.waitPasses(t, 1)
	rig.driveToTheEnd(t, "1.30", "1.31")
}

// from12 is the status ConfigMap of a cluster the chart of 1.2.1 wrote.
var from12 = map[string]string{
	status.KeyReleaseRevision: "9", status.KeyChartVersion: "1.2.1", status.KeyValuesChecksum: "from-1.2", status.KeyAdditionalInfo: "{}\n",
}

// driveToTheEnd runs reconcile --wait (reconciler.Applier.Drive) on the
// rig from its first pass on, then checks what helm-controller rendered:
// one pass per minor of want, each rendering that Kubernetes minor in the
// cluster unit; one request from the planner per pass after the first;
// nothing requested after the last, whose status says the target release
// and no additional reconciliation.
func (r *chartRig) driveToTheEnd(t *testing.T, want ...string) {
	t.Helper()
	ctx, k := r.ctx, r.player
	cl, err := client.New(r.cfg, client.Options{Scheme: reconciler.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	rec := reconciler.NewOneShotRecorder(r.core.CoreV1(), "sylva-planner")
	defer rec.Close()
	a := &reconciler.Applier{Reader: cl, Writer: cl, Recorder: rec, Now: time.Now}
	var decisions []string
	res, err := a.Drive(ctx, reconciler.Target{Namespace: r.ns}, reconciler.DriveOptions{
		Wait: true, Interval: time.Second,
		OnDecision: func(r reconciler.Result) { decisions = append(decisions, r.Decision.String()) },
		OnProgress: func(p reconciler.WaitProgress) {
			t.Logf("[%s] %s: %s", p.Elapsed.Round(time.Second), p.Request, p.State)
		},
	})
	if perr := k.err(); perr != nil {
		t.Fatal(perr)
	}
	if err != nil {
		t.Fatalf("Drive: %v\ndecisions:\n%s", err, strings.Join(decisions, "\n"))
	}
	t.Logf("decisions:\n%s", strings.Join(decisions, "\n"))
	if res.Decision.Outcome != reconciler.ConclusionNothingRequested {
		t.Errorf("Drive ended with %s, want nothing requested", res.Decision)
	}
	var got []string
	for _, p := range k.passes() {
		got = append(got, p.k8s+" ("+p.info+")")
	}
	t.Logf("passes seen: %v", got)
	if len(got) != len(want) {
		t.Fatalf("%d passes rendered, want %d: %v", len(got), len(want), got)
	}
	for i, p := range k.passes() {
		if v, err := semver.Parse(p.k8s); err != nil || v.Short() != want[i] {
			t.Errorf("pass %d: cluster unit k8s_version %q, want Kubernetes %s", i+1, p.k8s, want[i])
		}
	}
	// Nothing is requested after the last pass: one request per pass
	// after the first, which installing the release renders.
	if n := r.triggers(t); n != len(want)-1 {
		t.Errorf("%d passes requested, want %d", n, len(want)-1)
	}
	cm, err := r.core.CoreV1().ConfigMaps(r.ns).Get(ctx, status.ConfigMapName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := status.Decode(configMapYAML(t, cm))
	if err != nil {
		t.Fatal(err)
	}
	if st.AdditionalReconciliationRequired == nil || *st.AdditionalReconciliationRequired || st.SylvaRelease.Short() != r.plan.To.Release {
		t.Errorf("final status: sylva_release %s, additional_reconciliation_required %v; want %s, false", st.SylvaRelease, st.AdditionalReconciliationRequired, r.plan.To.Release)
	}
}

// managementValues are main's management values (capd, cabpr) in the
// chart dir.
func managementValues(t *testing.T, dir string) map[string]any {
	t.Helper()
	var mv map[string]any
	if err := yaml.Unmarshal(mustRead(t, filepath.Join(dir, "management.values.yaml")), &mv); err != nil {
		t.Fatal(err)
	}
	user := map[string]any{
		"cluster": map[string]any{"capi_providers": map[string]any{"infra_provider": "capd", "bootstrap_provider": "cabpr"}},
	}
	return units.MergeValues(mv, user)
}

// chartRig is main's chart installed by helm-controller with the overlay
// of a plan, a cluster whose status ConfigMap says where it starts, and a
// stand-in for kustomize-controller that writes the status of each pass.
type chartRig struct {
	ctx    context.Context
	core   kubernetes.Interface
	dyn    dynamic.Interface
	cfg    *rest.Config
	ns     string
	player *kustomizePlayer
	plan   *planner.Plan
}

// newChartRig starts the rig for in on a status ConfigMap with data
// start: the overlay values generate gives for in, over the values
// valuesOf reads from main's chart directory; helm-controller (the test plays source-controller:
// a Ready HelmChart whose archive it serves) installs the chart. The test
// is skipped without SYLVA_PLANNER_E2E=1 and fails without the
// helm-controller binary of hack/build-flux.sh.
func newChartRig(t *testing.T, in planner.Input, start map[string]string, valuesOf func(t *testing.T, dir string) map[string]any) *chartRig {
	t.Helper()
	if os.Getenv("SYLVA_PLANNER_E2E") != "1" {
		t.Skip("set SYLVA_PLANNER_E2E=1 to run the end-to-end test of the real chart with helm-controller")
	}
	helmController := filepath.Join(kubetest.Dir(), "helm-controller")
	if _, err := os.Stat(helmController); err != nil {
		t.Fatalf("%s not found; run `make testbin-flux` (hack/build-flux.sh)", helmController)
	}
	tree := sylvacore.At(t, "main")
	cfg := kubetest.Config(t)
	core := kubernetes.NewForConfigOrDie(cfg)
	dyn := dynamic.NewForConfigOrDie(cfg)
	ns := kubetest.Namespace(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute)
	t.Cleanup(cancel)

	plan, err := planner.Compute(in)
	if err != nil {
		t.Fatal(err)
	}
	chartValues := map[string]any{}
	if err := yaml.Unmarshal(mustRead(t, filepath.Join(tree.Chart(), "values.yaml")), &chartValues); err != nil {
		t.Fatal(err)
	}
	g, err := overlay.GenerateFor(in, &overlay.TargetChart{Name: "main", Values: chartValues})
	if err != nil {
		t.Fatal(err)
	}
	vals := units.MergeValues(valuesOf(t, tree.Chart()), g.Values())

	// Where the cluster starts: its status ConfigMap, as the chart of its
	// release wrote it.
	if _, err := core.CoreV1().ConfigMaps(ns).Create(ctx, configMap(ns, start), metav1.CreateOptions{FieldManager: status.ChartWriter}); err != nil {
		t.Fatal(err)
	}

	repoURL, tgz := serveChart(t, tree.Chart())
	kubetest.ReadyHelmChart(t, ctx, dyn, ns, "sylva-core", repoURL, tgz)
	kubeconfig := kubetest.WriteKubeconfig(t, cfg)
	kubetest.RunController(t, kubeconfig, ns, helmController, "--metrics-addr=0", "--health-addr=127.0.0.1:0", "--log-level=info")

	hr := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
		"metadata": map[string]any{"name": status.DefaultHelmRelease, "namespace": ns},
		"spec": map[string]any{
			"interval": "1h", "timeout": "15m",
			"chartRef": map[string]any{"kind": "HelmChart", "name": "sylva-units"},
			// No workload runs here: nothing to wait for, and the chart's
			// pre-upgrade hook Job would never complete. Helm v3.22 refuses
			// every sylva-units values on cluster_virtual_ip (see
			// docs/values.md), hence no schema validation.
			"install": map[string]any{"disableWait": true, "disableHooks": true, "disableSchemaValidation": true},
			"upgrade": map[string]any{"disableWait": true, "disableHooks": true, "disableSchemaValidation": true},
			"values":  vals,
		},
	}}
	if _, err := dyn.Resource(kubetest.HelmReleases).Namespace(ns).Create(ctx, hr, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	// kustomize-controller's part, for sylva-units-status only.
	// A player that fails cancels ctx: nothing would end the waits.
	k := &kustomizePlayer{core: core, dyn: dyn, ns: ns, abort: cancel}
	playCtx, stopPlaying := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { k.run(playCtx) })
	t.Cleanup(func() { stopPlaying(); wg.Wait() })
	return &chartRig{ctx: ctx, core: core, dyn: dyn, cfg: cfg, ns: ns, player: k, plan: plan}
}

// kustomizePlayer does what kustomize-controller does for the
// sylva-units-status Kustomization: on each new generation it writes the
// ConfigMap its patch describes and marks it Ready at that generation. It
// records, for each, the Kubernetes version of the cluster unit's values
// rendered by the same Helm release.
type kustomizePlayer struct {
	abort context.CancelFunc
	core  kubernetes.Interface
	dyn   dynamic.Interface
	ns    string

	mu     sync.Mutex
	seen   []renderedPass
	failed error
}

type renderedPass struct {
	generation int64
	k8s        string
	info       string
}

func (k *kustomizePlayer) passes() []renderedPass {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]renderedPass(nil), k.seen...)
}

// err is the error that stopped the player, if one did.
func (k *kustomizePlayer) err() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.failed
}

func (k *kustomizePlayer) run(ctx context.Context) {
	var handled int64
	for ctx.Err() == nil {
		if gen, err := k.step(ctx, handled); err != nil {
			if ctx.Err() == nil {
				k.mu.Lock()
				k.failed = fmt.Errorf("playing kustomize-controller: %w", err)
				k.mu.Unlock()
				k.abort()
			}
			return
		} else if gen > handled {
			handled = gen
		}
		select {
		case <-ctx.Done():
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func (k *kustomizePlayer) step(ctx context.Context, handled int64) (int64, error) {
	ks, err := k.dyn.Resource(kubetest.Kustomizations).Namespace(k.ns).Get(ctx, status.KustomizationName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	gen := ks.GetGeneration()
	if gen <= handled {
		return gen, nil
	}
	data, err := statusPatchData(ks)
	if err != nil {
		return 0, err
	}
	k8s, ok, err := k.clusterVersion(ctx, ks.GetAnnotations()[helmRevision])
	if err != nil {
		return 0, err
	}
	if !ok {
		// Helm has not written the cluster unit of this revision yet.
		return handled, nil
	}
	cm, err := k.core.CoreV1().ConfigMaps(k.ns).Get(ctx, status.ConfigMapName, metav1.GetOptions{})
	if err != nil {
		return 0, err
	}
	// The Kustomization owns the whole data of the ConfigMap.
	cm.Data = data
	if _, err := k.core.CoreV1().ConfigMaps(k.ns).Update(ctx, cm, metav1.UpdateOptions{FieldManager: status.ChartWriter}); err != nil {
		return 0, err
	}
	ks.Object["status"] = map[string]any{
		// The chart's overlay reads it: the status unit applied once.
		"lastAppliedRevision": fmt.Sprintf("test@gen%d", gen),
		"observedGeneration":  gen,
		"conditions": []any{map[string]any{
			"type": "Ready", "status": "True", "reason": "ReconciliationSucceeded", "message": "applied by the test",
			"observedGeneration": gen, "lastTransitionTime": time.Now().UTC().Format(time.RFC3339),
		}},
	}
	if _, err := k.dyn.Resource(kubetest.Kustomizations).Namespace(k.ns).UpdateStatus(ctx, ks, metav1.UpdateOptions{}); err != nil {
		return 0, err
	}
	k.mu.Lock()
	k.seen = append(k.seen, renderedPass{generation: gen, k8s: k8s, info: strings.TrimSpace(strings.ReplaceAll(data[status.KeyAdditionalInfo], "\n", "; "))})
	k.mu.Unlock()
	return gen, nil
}

// statusPatchData is the data of the ConfigMap patch of the
// sylva-units-status Kustomization.
func statusPatchData(ks *unstructured.Unstructured) (map[string]string, error) {
	patches, _, _ := unstructured.NestedSlice(ks.Object, "spec", "patches")
	for _, p := range patches {
		pm, _ := p.(map[string]any)
		text, _ := pm["patch"].(string)
		var cm struct {
			Data map[string]string `json:"data"`
		}
		if err := yaml.Unmarshal([]byte(text), &cm); err == nil && cm.Data != nil {
			return cm.Data, nil
		}
	}
	return nil, fmt.Errorf("Kustomization %s has no ConfigMap patch", ks.GetName())
}

// helmRevision is the annotation with which the chart stamps each unit's
// Kustomization with the Helm release revision that wrote it.
const helmRevision = "sylva-units-helm-revision"

// clusterVersion reads k8s_version from the values of the cluster unit of
// Helm release revision rev: the VALUES_B64 of the Secret its Kustomization
// substitutes from. ok is false while the cluster Kustomization is of
// another revision.
func (k *kustomizePlayer) clusterVersion(ctx context.Context, rev string) (string, bool, error) {
	ks, err := k.dyn.Resource(kubetest.Kustomizations).Namespace(k.ns).Get(ctx, "cluster", metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		// Helm creates the chart's objects one by one: the
		// sylva-units-status Kustomization may exist before the cluster one.
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	if ks.GetAnnotations()[helmRevision] != rev {
		return "", false, nil
	}
	from, _, _ := unstructured.NestedSlice(ks.Object, "spec", "postBuild", "substituteFrom")
	var name string
	for _, f := range from {
		if fm, ok := f.(map[string]any); ok && fm["kind"] == "Secret" && strings.HasPrefix(fmt.Sprint(fm["name"]), "kustomization-unit-substitute-cluster-") {
			name = fmt.Sprint(fm["name"])
		}
	}
	if name == "" {
		return "", false, errors.New("the cluster Kustomization substitutes from no kustomization-unit-substitute-cluster-* Secret")
	}
	s, err := k.core.CoreV1().Secrets(k.ns).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	raw, err := base64.StdEncoding.DecodeString(string(s.Data["VALUES_B64"]))
	if err != nil {
		return "", false, fmt.Errorf("secret %s: %w", name, err)
	}
	var v struct {
		K8sVersion string `json:"k8s_version"`
	}
	if err := yaml.Unmarshal(raw, &v); err != nil {
		return "", false, fmt.Errorf("secret %s: %w", name, err)
	}
	return v.K8sVersion, true, nil
}

func configMap(ns string, data map[string]string) *corev1.ConfigMap {
	cm := &corev1.ConfigMap{Data: data}
	cm.Name, cm.Namespace = status.ConfigMapName, ns
	return cm
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// configMapYAML is cm as `kubectl get -o yaml` prints it.
func configMapYAML(t *testing.T, cm *corev1.ConfigMap) []byte {
	t.Helper()
	b, err := yaml.Marshal(cm)
	if err != nil {
		t.Fatal(err)
	}
	return append([]byte("apiVersion: v1\nkind: ConfigMap\n"), b...)
}

// serveChart packs the chart directory as Helm does (its .helmignore
// applies) into sylva-units-0.1.0.tgz and serves it on loopback; it
// returns the base URL and the archive.
func serveChart(t *testing.T, dir string) (string, []byte) {
	t.Helper()
	ch, err := loader.Load(dir)
	if err != nil {
		t.Fatalf("load %s: %v", dir, err)
	}
	// The archive's version is the one the HelmChart names.
	ch.Metadata.Version = "0.1.0"
	path, err := chartutil.Save(ch, t.TempDir())
	if err != nil {
		t.Fatalf("pack %s: %v", dir, err)
	}
	tgz := mustRead(t, path)
	mux := http.NewServeMux()
	mux.HandleFunc("/sylva-units-0.1.0.tgz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(tgz) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL, tgz
}
