package kubetest_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"gitlab.com/sylva-projects/sylva-planner/internal/kubetest"
)

func TestMain(m *testing.M) { os.Exit(kubetest.Main(m)) }

var (
	helmReleases   = schema.GroupVersionResource{Group: "helm.toolkit.fluxcd.io", Version: "v2", Resource: "helmreleases"}
	kustomizations = schema.GroupVersionResource{Group: "kustomize.toolkit.fluxcd.io", Version: "v1", Resource: "kustomizations"}
)

func TestDir(t *testing.T) {
	t.Setenv(kubetest.EnvDir, "")
	dir := kubetest.Dir()
	if !filepath.IsAbs(dir) {
		t.Errorf("Dir() = %q, want an absolute path", dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "..", "..", "go.mod")); err != nil {
		t.Errorf("Dir() = %q, want .cache/testbin beside go.mod: %v", dir, err)
	}

	other := t.TempDir()
	t.Setenv(kubetest.EnvDir, other)
	if got := kubetest.Dir(); got != other {
		t.Errorf("with %s=%s, Dir() = %q", kubetest.EnvDir, other, got)
	}
}

func TestServerVersion(t *testing.T) {
	cfg := kubetest.Config(t)
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	v, err := dc.ServerVersion()
	if err != nil {
		t.Fatalf("server version: %v", err)
	}
	if v.GitVersion != "v1.37.2" || v.Major != "1" || v.Minor != "37" {
		t.Errorf("server version = %s (major %q, minor %q), want v1.37.2", v.GitVersion, v.Major, v.Minor)
	}
}

func TestFluxObjectsWithStatus(t *testing.T) {
	cfg := kubetest.Config(t)
	ns := kubetest.Namespace(t, cfg)
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()

	hr := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "helm.toolkit.fluxcd.io/v2",
		"kind":       "HelmRelease",
		"metadata":   map[string]any{"name": "sylva-units", "namespace": ns},
		"spec": map[string]any{
			"interval": "1h",
			"chart": map[string]any{"spec": map[string]any{
				"chart":     "./charts/sylva-units",
				"sourceRef": map[string]any{"kind": "GitRepository", "name": "sylva-core"},
			}},
		},
	}}
	setReady(t, ctx, dc.Resource(helmReleases).Namespace(ns), hr)

	ks := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kustomize.toolkit.fluxcd.io/v1",
		"kind":       "Kustomization",
		"metadata":   map[string]any{"name": "sylva-units", "namespace": ns},
		"spec": map[string]any{
			"interval":  "1h",
			"prune":     true,
			"path":      "./kustomize-units/sylva-units",
			"sourceRef": map[string]any{"kind": "GitRepository", "name": "sylva-core"},
		},
	}}
	setReady(t, ctx, dc.Resource(kustomizations).Namespace(ns), ks)
}

// setReady creates obj, then sets a Ready condition through the status
// subresource and checks that it is stored.
func setReady(t *testing.T, ctx context.Context, rc dynamic.ResourceInterface, obj *unstructured.Unstructured) {
	t.Helper()
	created, err := rc.Create(ctx, obj, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create %s: %v", obj.GetKind(), err)
	}
	cond := map[string]any{
		"type":               "Ready",
		"status":             "True",
		"reason":             "ReconciliationSucceeded",
		"message":            "set by the test",
		"lastTransitionTime": time.Now().UTC().Format(time.RFC3339),
		"observedGeneration": created.GetGeneration(),
	}
	if err := unstructured.SetNestedSlice(created.Object, []any{cond}, "status", "conditions"); err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedField(created.Object, created.GetGeneration(), "status", "observedGeneration"); err != nil {
		t.Fatal(err)
	}
	if _, err := rc.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update %s status: %v", obj.GetKind(), err)
	}
	got, err := rc.Get(ctx, obj.GetName(), metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get %s: %v", obj.GetKind(), err)
	}
	conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
	if len(conds) != 1 || conds[0].(map[string]any)["status"] != "True" {
		t.Errorf("%s status.conditions = %v, want one Ready=True", obj.GetKind(), conds)
	}
	// A status update does not change the generation: the spec is untouched.
	if got.GetGeneration() != created.GetGeneration() {
		t.Errorf("%s generation went from %d to %d on a status update", obj.GetKind(), created.GetGeneration(), got.GetGeneration())
	}
}

func TestImpersonatedUserWithoutRBACIsForbidden(t *testing.T) {
	cfg := kubetest.Config(t)
	ns := kubetest.Namespace(t, cfg)

	restricted, err := kubernetes.NewForConfig(kubetest.Impersonate(cfg, "alice", "sylva-operators"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = restricted.CoreV1().ConfigMaps(ns).List(t.Context(), metav1.ListOptions{})
	if !apierrors.IsForbidden(err) {
		t.Fatalf("list configmaps as alice: got %v, want 403 Forbidden", err)
	}

	dc, err := dynamic.NewForConfig(kubetest.Impersonate(cfg, "alice"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = dc.Resource(helmReleases).Namespace(ns).List(t.Context(), metav1.ListOptions{})
	if !apierrors.IsForbidden(err) {
		t.Fatalf("list helmreleases as alice: got %v, want 403 Forbidden", err)
	}
}

func TestNamespacesAreDistinct(t *testing.T) {
	cfg := kubetest.Config(t)
	a := kubetest.Namespace(t, cfg)
	b := kubetest.Namespace(t, cfg)
	if a == b {
		t.Fatalf("Namespace returned %q twice", a)
	}
	if want := "testnamespacesaredistinct-"; len(a) <= len(want) || a[:len(want)] != want {
		t.Errorf("Namespace() = %q, want the prefix %q", a, want)
	}
}

// TestRestart runs last: it restarts the API server and checks that objects
// (kept in etcd) and configurations obtained before the restart still work.
func TestRestart(t *testing.T) {
	cfg := kubetest.Config(t)
	ns := kubetest.Namespace(t, cfg)
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}

	kubetest.Restart(t)

	if _, err := c.CoreV1().Namespaces().Get(t.Context(), ns, metav1.GetOptions{}); err != nil {
		t.Fatalf("get namespace %s after restart: %v", ns, err)
	}
	dc, err := dynamic.NewForConfig(kubetest.Config(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dc.Resource(helmReleases).Namespace(ns).List(t.Context(), metav1.ListOptions{}); err != nil {
		t.Fatalf("list helmreleases after restart: %v", err)
	}
}
