package reconciler

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/internal/kubetest"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

func TestMain(m *testing.M) {
	// controller-runtime logs through a global logger; the tests read the
	// controllers' Stats instead.
	RouteControllerRuntimeLogs(logr.Discard())
	os.Exit(kubetest.Main(m))
}

var (
	helmReleases   = schema.GroupVersionResource{Group: "helm.toolkit.fluxcd.io", Version: "v2", Resource: "helmreleases"}
	kustomizations = schema.GroupVersionResource{Group: "kustomize.toolkit.fluxcd.io", Version: "v1", Resource: "kustomizations"}
)

// cluster is a real API server and the clients the tests use on it.
type cluster struct {
	cfg  *rest.Config
	core kubernetes.Interface
	dyn  dynamic.Interface
}

func newCluster(t *testing.T) *cluster {
	t.Helper()
	if testing.Short() {
		t.Skip("needs the real API server; skipped with -short")
	}
	cfg := kubetest.Config(t)
	return &cluster{cfg: cfg, core: kubernetes.NewForConfigOrDie(cfg), dyn: dynamic.NewForConfigOrDie(cfg)}
}

func ctxFor(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// fixture is what a release namespace holds in the tests.
type fixture struct {
	configMap     bool // create the status ConfigMap
	configMapData map[string]string
	kustomization bool
	ksReady       bool
	helmRelease   bool
	hrReady       bool
	suspended     bool
	request       string // the Kustomization's request annotation
}

// healthy is a release namespace where a pass is requested and can start.
func healthy() fixture {
	return fixture{configMap: true, kustomization: true, ksReady: true, helmRelease: true, hrReady: true}
}

func loadYAML(t testing.TB, name string) *unstructured.Unstructured {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(b, &u.Object); err != nil {
		t.Fatalf("decode testdata/%s: %v", name, err)
	}
	return u
}

// setup creates the objects of f in a fresh namespace and returns it.
func (c *cluster) setup(t testing.TB, f fixture) string {
	t.Helper()
	ns := kubetest.Namespace(t, c.cfg)
	c.setupIn(t, ns, f)
	return ns
}

func (c *cluster) setupIn(t testing.TB, ns string, f fixture) {
	t.Helper()
	ctx := ctxFor(t)
	if f.configMap {
		cm := &corev1.ConfigMap{}
		u := loadYAML(t, "configmap.yaml")
		if err := runtimeConvert(u, cm); err != nil {
			t.Fatal(err)
		}
		cm.Namespace = ns
		for k, v := range f.configMapData {
			cm.Data[k] = v
		}
		if _, err := c.core.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{FieldManager: status.ChartWriter}); err != nil {
			t.Fatalf("create ConfigMap: %v", err)
		}
	}
	if f.kustomization {
		u := loadYAML(t, "kustomization.yaml")
		if f.request != "" {
			ann := u.GetAnnotations()
			ann[status.AnnotationReconciliationRequested] = f.request
			u.SetAnnotations(ann)
		}
		c.createFlux(t, ctx, kustomizations, ns, u, f.ksReady)
	}
	if f.helmRelease {
		u := loadYAML(t, "helmrelease.yaml")
		if f.suspended {
			if err := unstructured.SetNestedField(u.Object, true, "spec", "suspend"); err != nil {
				t.Fatal(err)
			}
		}
		c.createFlux(t, ctx, helmReleases, ns, u, f.hrReady)
	}
}

func runtimeConvert(u *unstructured.Unstructured, out any) error {
	b, err := u.MarshalJSON()
	if err != nil {
		return err
	}
	return yaml.Unmarshal(b, out)
}

// createFlux creates a Flux object and sets its status as its controller
// would: Ready (or not) at its generation.
func (c *cluster) createFlux(t testing.TB, ctx context.Context, gvr schema.GroupVersionResource, ns string, u *unstructured.Unstructured, ready bool) {
	t.Helper()
	u.SetNamespace(ns)
	created, err := c.dyn.Resource(gvr).Namespace(ns).Create(ctx, u, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create %s %s/%s: %v", gvr.Resource, ns, u.GetName(), err)
	}
	c.setReady(t, ctx, gvr, created, ready, "")
}

// setReady writes the status of obj: Ready True or False at its current
// generation, and lastHandledReconcileAt when handled is not empty.
func (c *cluster) setReady(t testing.TB, ctx context.Context, gvr schema.GroupVersionResource, obj *unstructured.Unstructured, ready bool, handled string) {
	t.Helper()
	gen := obj.GetGeneration()
	cond := map[string]any{
		"type": "Ready", "status": "True", "reason": "ReconciliationSucceeded", "message": "applied",
		"observedGeneration": gen, "lastTransitionTime": time.Now().UTC().Format(time.RFC3339),
	}
	if !ready {
		cond["status"], cond["reason"], cond["message"] = "False", "DependencyNotReady", "waiting for units"
	}
	st := map[string]any{"observedGeneration": gen, "conditions": []any{cond}}
	if handled != "" {
		st["lastHandledReconcileAt"] = handled
		st["lastHandledForceAt"] = handled
	}
	obj.Object["status"] = st
	if _, err := c.dyn.Resource(gvr).Namespace(obj.GetNamespace()).UpdateStatus(ctx, obj, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update status of %s %s/%s: %v", gvr.Resource, obj.GetNamespace(), obj.GetName(), err)
	}
}

func (c *cluster) helmRelease(t testing.TB, ns string) *unstructured.Unstructured {
	t.Helper()
	u, err := c.dyn.Resource(helmReleases).Namespace(ns).Get(ctxFor(t), status.DefaultHelmRelease, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get HelmRelease: %v", err)
	}
	return u
}

// triggers counts the Events recorded for passes requested in ns.
func (c *cluster) triggers(t testing.TB, ns string) int {
	t.Helper()
	list, err := c.core.CoreV1().Events(ns).List(ctxFor(t), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list events: %v", err)
	}
	n := 0
	for _, e := range list.Items {
		if e.Reason == EventReason && e.InvolvedObject.Kind == "HelmRelease" {
			n++
		}
	}
	return n
}

// eventTriggers waits until the controller's Events (written in the
// background by its manager's recorder) number want, and fails if they
// number more.
func (c *cluster) eventTriggers(t testing.TB, ns string, want int) {
	t.Helper()
	kubetest.Eventually(t, time.Minute, fmt.Sprintf("%d trigger Events in %s", want, ns), func() bool { return c.triggers(t, ns) >= want })
	if n := c.triggers(t, ns); n != want {
		t.Fatalf("%d trigger Events, want %d", n, want)
	}
}

func (c *cluster) applier(t testing.TB) *Applier {
	t.Helper()
	cl, err := client.New(c.cfg, client.Options{Scheme: Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	rec := NewOneShotRecorder(c.core.CoreV1(), "sylva-planner")
	t.Cleanup(rec.Close)
	return &Applier{Reader: cl, Writer: cl, Recorder: rec, Now: time.Now}
}

func TestApplyTriggersExactlyOncePerRequestValue(t *testing.T) {
	c := newCluster(t)
	ns := c.setup(t, healthy())
	a := c.applier(t)
	ctx := ctxFor(t)
	target := Target{Namespace: ns}

	first, err := a.Apply(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	if !first.Triggered || first.Decision.Source != SourceStatus {
		t.Fatalf("first Apply = %s (triggered %v), want a trigger from the status", first.Decision, first.Triggered)
	}
	if first.EventErr != nil {
		t.Fatal(first.EventErr)
	}
	checkPassedOn(t, c.helmRelease(t, ns).GetAnnotations(), first)
	for i := 0; i < 3; i++ {
		again, err := a.Apply(ctx, target)
		if err != nil {
			t.Fatal(err)
		}
		if again.Triggered || again.Decision.Outcome != ConclusionAlreadyHandled {
			t.Fatalf("Apply #%d = %s, want already handled", i+2, again.Decision)
		}
	}
	if n := c.triggers(t, ns); n != 1 {
		t.Fatalf("%d trigger events, want 1", n)
	}

	// The chart asks for a further pass with a new value.
	ks, err := c.dyn.Resource(kustomizations).Namespace(ns).Get(ctx, status.KustomizationName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	anns := ks.GetAnnotations()
	anns[status.AnnotationReconciliationRequested] = "pass-3"
	ks.SetAnnotations(anns)
	if _, err := c.dyn.Resource(kustomizations).Namespace(ns).Update(ctx, ks, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	second, err := a.Apply(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	if !second.Triggered || second.Decision.Request != "pass-3" {
		t.Fatalf("Apply after a new request = %s, want a trigger of pass-3", second.Decision)
	}
	if n := c.triggers(t, ns); n != 2 {
		t.Fatalf("%d trigger events, want 2", n)
	}
}

func TestRacingAppliesTriggerOnce(t *testing.T) {
	c := newCluster(t)
	for round := 0; round < 5; round++ {
		ns := c.setup(t, healthy())
		const racers = 6
		appliers := make([]*Applier, racers)
		for i := range appliers {
			appliers[i] = c.applier(t)
		}
		var (
			wg        sync.WaitGroup
			start     = make(chan struct{})
			mu        sync.Mutex
			triggered int
			conflicts int
		)
		for _, a := range appliers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				res, err := a.Apply(context.Background(), Target{Namespace: ns})
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					t.Errorf("Apply: %v", err)
					return
				}
				conflicts += res.Conflicts
				if res.Triggered {
					triggered++
				} else if res.Decision.Outcome != ConclusionAlreadyHandled {
					t.Errorf("a racer decided %s, want already handled", res.Decision)
				}
			}()
		}
		close(start)
		wg.Wait()
		if triggered != 1 {
			t.Fatalf("round %d: %d racers triggered, want 1", round, triggered)
		}
		if n := c.triggers(t, ns); n != 1 {
			t.Fatalf("round %d: %d trigger events, want 1", round, n)
		}
		t.Logf("round %d: 1 trigger, %d conflicts re-decided", round, conflicts)
	}
}

func TestApplyReportsWithoutTriggering(t *testing.T) {
	c := newCluster(t)
	tests := []struct {
		name string
		f    fixture
		want Conclusion
	}{
		{name: "a suspended helmrelease is reported", f: func() fixture { f := healthy(); f.suspended = true; return f }(), want: ConclusionSuspended},
		{name: "a kustomization that is not ready makes it wait", f: func() fixture { f := healthy(); f.ksReady = false; return f }(), want: ConclusionWaiting},
		{name: "a helmrelease that is not ready makes it wait", f: func() fixture { f := healthy(); f.hrReady = false; return f }(), want: ConclusionWaiting},
		{name: "a missing helmrelease is reported", f: func() fixture { f := healthy(); f.helmRelease = false; return f }(), want: ConclusionMissing},
		{name: "a missing kustomization is reported", f: func() fixture { f := healthy(); f.kustomization = false; return f }(), want: ConclusionMissing},
		{name: "an empty namespace is reported", f: fixture{}, want: ConclusionMissing},
		{name: "a malformed status value is reported", f: func() fixture {
			f := healthy()
			f.configMapData = map[string]string{status.KeySylvaRelease: "banana"}
			return f
		}(), want: ConclusionInvalid},
		{name: "a status without a pending pass asks nothing", f: func() fixture {
			f := healthy()
			f.configMapData = map[string]string{status.KeyAdditionalReconciliationRequired: "false"}
			return f
		}(), want: ConclusionNothingRequested},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ns := c.setup(t, tt.f)
			res, err := c.applier(t).Apply(ctxFor(t), Target{Namespace: ns})
			if err != nil {
				t.Fatal(err)
			}
			if res.Triggered || res.Decision.Outcome != tt.want {
				t.Fatalf("Apply = %s (triggered %v), want %s", res.Decision, res.Triggered, tt.want)
			}
			if n := c.triggers(t, ns); n != 0 {
				t.Fatalf("%d trigger events, want 0", n)
			}
			t.Log(res.Decision)
		})
	}
}

func TestDryRunChangesNothing(t *testing.T) {
	c := newCluster(t)
	ns := c.setup(t, healthy())
	before := c.helmRelease(t, ns).GetResourceVersion()
	a := c.applier(t)
	a.DryRun = true
	res, err := a.Apply(ctxFor(t), Target{Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	if res.Triggered || res.Decision.Outcome != ConclusionTrigger {
		t.Fatalf("dry-run Apply = %s (triggered %v), want a trigger decided and not written", res.Decision, res.Triggered)
	}
	if after := c.helmRelease(t, ns).GetResourceVersion(); after != before {
		t.Fatalf("the HelmRelease changed in dry-run: resourceVersion %s → %s", before, after)
	}
	if n := c.triggers(t, ns); n != 0 {
		t.Fatalf("%d trigger events in dry-run, want 0", n)
	}
}

func TestApplyRefusedIsAnError(t *testing.T) {
	c := newCluster(t)
	ns := c.setup(t, healthy())
	cl, err := client.New(kubetest.Impersonate(c.cfg, "nobody"), client.Options{Scheme: Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	a := &Applier{Reader: cl, Writer: cl, Now: time.Now}
	_, err = a.Apply(ctxFor(t), Target{Namespace: ns})
	if !apierrors.IsForbidden(err) {
		t.Fatalf("Apply as an unauthorised user: %v, want Forbidden", err)
	}
}
