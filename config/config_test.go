package config_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/availability"
	"gitlab.com/sylva-projects/sylva-planner/internal/kubetest"
	"gitlab.com/sylva-projects/sylva-planner/inventory"
)

func TestMain(m *testing.M) { os.Exit(kubetest.Main(m)) }

// required reports whether a missing tool fails the test (make test sets
// SYLVA_PLANNER_E2E=1 after building the tools) or skips it.
func required(t *testing.T, tool string) {
	t.Helper()
	if os.Getenv("SYLVA_PLANNER_E2E") == "1" {
		t.Fatalf("%s not found: run make test (it builds kustomize and promtool first: make tools)", tool)
	}
	t.Skipf("%s not found (make test provides it)", tool)
}

// build runs kustomize build on a folder of config/ and returns its objects.
func build(t *testing.T, dir string) []map[string]any {
	t.Helper()
	kustomize := filepath.Join(kubetest.Dir(), "kustomize")
	if _, err := os.Stat(kustomize); err != nil {
		required(t, "kustomize ("+kustomize+")")
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(kustomize, "build", dir)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("kustomize build %s: %v\n%s", dir, err, stderr.String())
	}
	var objs []map[string]any
	for _, doc := range strings.Split(stdout.String(), "\n---\n") {
		if strings.TrimSpace(doc) == "" {
			continue
		}
		var obj map[string]any
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
			t.Fatalf("kustomize build %s: %v", dir, err)
		}
		objs = append(objs, obj)
	}
	return objs
}

func find(objs []map[string]any, kind, name string) map[string]any {
	for _, o := range objs {
		md, _ := o["metadata"].(map[string]any)
		if o["kind"] == kind && md["name"] == name {
			return o
		}
	}
	return nil
}

func TestTheShippedControllerPassesItsOwnDrainCheck(t *testing.T) {
	objs := build(t, "default")
	var buf bytes.Buffer
	for _, o := range objs {
		b, err := yaml.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		buf.WriteString("---\n")
		buf.Write(b)
	}
	facts, err := inventory.Scan(fstest.MapFS{"default.yaml": {Data: buf.Bytes()}}, "config/default")
	if err != nil {
		t.Fatal(err)
	}
	if find(objs, "Deployment", "sylva-planner-controller") == nil || find(objs, "PodDisruptionBudget", "sylva-planner-controller") == nil {
		t.Fatalf("kustomize build default has no controller Deployment and PodDisruptionBudget")
	}
	for _, it := range availability.Check(facts.Snapshot, availability.Options{ProdNamespaces: []string{"*"}}) {
		t.Errorf("drain check on config/default: %s %s: %s", it.Code, it.Object, it.Message)
	}
}

func TestThePrometheusRulesPassPromtool(t *testing.T) {
	// make tools builds promtool into the test binaries' folder; one on
	// PATH serves as well.
	promtool := filepath.Join(kubetest.Dir(), "promtool")
	if _, err := os.Stat(promtool); err != nil {
		if promtool, err = exec.LookPath("promtool"); err != nil {
			required(t, "promtool ("+filepath.Join(kubetest.Dir(), "promtool")+" or on PATH)")
		}
	}
	rule := find(build(t, "prometheus"), "PrometheusRule", "sylva-planner")
	if rule == nil {
		t.Fatal("kustomize build prometheus has no PrometheusRule sylva-planner")
	}
	if find(build(t, "prometheus"), "ServiceMonitor", "sylva-planner-controller") == nil {
		t.Fatal("kustomize build prometheus has no ServiceMonitor sylva-planner-controller")
	}
	rules, err := yaml.Marshal(rule["spec"])
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tests, err := os.ReadFile(filepath.Join("testdata", "alerts_test.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"rules.yaml": rules, "alerts_test.yaml": tests} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"check", "rules", "rules.yaml"}, {"test", "rules", "alerts_test.yaml"}} {
		cmd := exec.Command(promtool, args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

var (
	helmReleases = schema.GroupVersionResource{Group: "helm.toolkit.fluxcd.io", Version: "v2", Resource: "helmreleases"}
	controllerSA = "system:serviceaccount:sylva-planner-system:sylva-planner-controller"
)

// apply creates the cluster-scoped and namespaced objects of config/default
// on the test API server, as kubectl apply -k would.
func apply(t *testing.T, ctx context.Context, cfg *rest.Config, dyn dynamic.Interface, objs []map[string]any) {
	t.Helper()
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(discovery.NewDiscoveryClientForConfigOrDie(cfg)))
	for _, o := range objs {
		u := &unstructured.Unstructured{Object: o}
		gvk := u.GroupVersionKind()
		m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			t.Fatalf("%s %s: %v", gvk, u.GetName(), err)
		}
		gvr := m.Resource
		// kustomize's namespace transformer does not know that admission
		// policies are cluster-scoped and sets a namespace on them; kubectl
		// drops it for cluster-scoped kinds, and so does this.
		if ns := u.GetNamespace(); ns != "" && m.Scope.Name() == meta.RESTScopeNameNamespace {
			_, err = dyn.Resource(gvr).Namespace(ns).Create(ctx, u, metav1.CreateOptions{})
		} else {
			_, err = dyn.Resource(gvr).Create(ctx, u, metav1.CreateOptions{})
		}
		if err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("create %s %s: %v", gvk.Kind, u.GetName(), err)
		}
	}
}

func TestTheControllerServiceAccountMayOnlyChangeTheReconcileAnnotations(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server (-short)")
	}
	objs := build(t, "default")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	admin, _ := installDefault(t, ctx, objs)
	adminDyn := dynamic.NewForConfigOrDie(admin)

	ns := kubetest.Namespace(t, admin)
	// The controller's rights in a release namespace are a RoleBinding
	// there, as config/rbac/role_binding.yaml grants them in sylva-system.
	binding := find(objs, "RoleBinding", "sylva-planner-controller")
	if binding == nil {
		t.Fatal("config/default has no RoleBinding sylva-planner-controller")
	}
	binding = (&unstructured.Unstructured{Object: binding}).DeepCopy().Object
	binding["metadata"].(map[string]any)["namespace"] = ns
	apply(t, ctx, admin, adminDyn, []map[string]any{binding})
	hr := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
		"metadata": map[string]any{"name": "sylva-units", "namespace": ns, "labels": map[string]any{"team": "platform"}},
		"spec": map[string]any{
			"interval": "10m",
			"chart": map[string]any{"spec": map[string]any{
				"chart":     "sylva-units",
				"sourceRef": map[string]any{"kind": "GitRepository", "name": "sylva-core"},
			}},
		},
	}}
	if _, err := adminDyn.Resource(helmReleases).Namespace(ns).Create(ctx, hr, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	sa := kubetest.Impersonate(admin, controllerSA, "system:serviceaccounts", "system:serviceaccounts:sylva-planner-system", "system:authenticated")
	saDyn := dynamic.NewForConfigOrDie(sa).Resource(helmReleases).Namespace(ns)
	patch := func(body string) error {
		_, err := saDyn.Patch(ctx, "sylva-units", types.MergePatchType, []byte(body), metav1.PatchOptions{})
		return err
	}
	denied := func(err error) bool { return apierrors.IsInvalid(err) || apierrors.IsForbidden(err) }

	// The API server loads a new policy asynchronously: wait until it is
	// enforced (a spec patch denied) before asserting anything.
	attacker := `{"spec":{"chart":{"spec":{"chart":"attacker-chart"}}}}`
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := patch(attacker)
		if denied(err) && strings.Contains(err.Error(), "sylva-planner controller") {
			break
		}
		if err == nil {
			// The policy was not loaded yet and the patch went through:
			// put the chart back and try again.
			if _, err := adminDyn.Resource(helmReleases).Namespace(ns).Patch(ctx, "sylva-units", types.MergePatchType,
				[]byte(`{"spec":{"chart":{"spec":{"chart":"sylva-units"}}}}`), metav1.PatchOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("a spec patch by the controller's ServiceAccount is not denied by the admission policy: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}

	cases := []struct {
		name, patch string
		allowed     bool
	}{
		{"a reconcile request with the tracking annotation passes", `{"metadata":{"annotations":{"reconcile.fluxcd.io/requestedAt":"r1","reconcile.fluxcd.io/forceAt":"r1","planner.sylva-project.org/handled-request":"r1"}}}`, true},
		{"the next request passes", `{"metadata":{"annotations":{"reconcile.fluxcd.io/requestedAt":"r2","reconcile.fluxcd.io/forceAt":"r2","planner.sylva-project.org/handled-request":"r2"}}}`, true},
		{"a spec change is denied", attacker, false},
		{"suspending the release is denied", `{"spec":{"suspend":true}}`, false},
		{"another annotation is denied", `{"metadata":{"annotations":{"example.com/owner":"me"}}}`, false},
		{"a label change is denied", `{"metadata":{"labels":{"team":"attacker"}}}`, false},
		{"a finalizer is denied", `{"metadata":{"finalizers":["example.com/hold"]}}`, false},
		{"values smuggled with an allowed annotation are denied", `{"metadata":{"annotations":{"reconcile.fluxcd.io/requestedAt":"r3"}},"spec":{"values":{"x":1}}}`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := patch(tc.patch)
			switch {
			case tc.allowed && err != nil:
				t.Errorf("patch %s: %v, want allowed", tc.patch, err)
			case !tc.allowed && !denied(err):
				t.Errorf("patch %s: %v, want denied", tc.patch, err)
			}
		})
	}
	got, err := adminDyn.Resource(helmReleases).Namespace(ns).Get(ctx, "sylva-units", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if chart, _, _ := unstructured.NestedString(got.Object, "spec", "chart", "spec", "chart"); chart != "sylva-units" {
		t.Errorf("spec.chart.spec.chart = %q after the denied patches, want sylva-units", chart)
	}

	t.Run("creating or deleting a HelmRelease is denied", func(t *testing.T) {
		other := hr.DeepCopy()
		other.SetResourceVersion("")
		if _, err := saDyn.Create(ctx, other, metav1.CreateOptions{}); !denied(err) && !apierrors.IsAlreadyExists(err) {
			t.Errorf("create: %v, want denied", err)
		}
		if err := saDyn.Delete(ctx, "sylva-units", metav1.DeleteOptions{}); !denied(err) {
			t.Errorf("delete: %v, want denied", err)
		}
	})

	t.Run("events only about a HelmRelease in its namespace", func(t *testing.T) {
		events := kubernetes.NewForConfigOrDie(sa).CoreV1()
		event := func(ns, kind, apiVersion string) *corev1.Event {
			return &corev1.Event{
				ObjectMeta:     metav1.ObjectMeta{GenerateName: "sylva-units.", Namespace: ns},
				InvolvedObject: corev1.ObjectReference{Kind: kind, APIVersion: apiVersion, Namespace: ns, Name: "sylva-units"},
				Reason:         "ReconcileRequested", Message: "test", Type: corev1.EventTypeNormal,
				Source: corev1.EventSource{Component: "sylva-planner"},
			}
		}
		if _, err := events.Events(ns).Create(ctx, event(ns, "HelmRelease", "helm.toolkit.fluxcd.io/v2"), metav1.CreateOptions{}); err != nil {
			t.Errorf("an Event about the HelmRelease: %v, want allowed", err)
		}
		if _, err := events.Events(ns).Create(ctx, event(ns, "Pod", "v1"), metav1.CreateOptions{}); !denied(err) {
			t.Errorf("an Event about a Pod: %v, want denied", err)
		}
		if _, err := events.Events("kube-system").Create(ctx, event("kube-system", "Node", "v1"), metav1.CreateOptions{}); !denied(err) {
			t.Errorf("an Event in kube-system: %v, want denied", err)
		}
		spoofed := event(ns, "HelmRelease", "helm.toolkit.fluxcd.io/v2")
		spoofed.InvolvedObject.Namespace = "kube-system"
		if _, err := events.Events(ns).Create(ctx, spoofed, metav1.CreateOptions{}); !denied(err) {
			t.Errorf("an Event about a HelmRelease of another namespace: %v, want denied", err)
		}
	})

	t.Run("other users are not restricted by the policy", func(t *testing.T) {
		_, err := adminDyn.Resource(helmReleases).Namespace(ns).Patch(ctx, "sylva-units", types.MergePatchType,
			[]byte(`{"metadata":{"labels":{"team":"platform-2"}}}`), metav1.PatchOptions{})
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("admin label patch: %v", err)
		}
	})
}
