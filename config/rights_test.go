package config_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"gitlab.com/sylva-projects/sylva-planner/internal/kubetest"
	"gitlab.com/sylva-projects/sylva-planner/reconciler"
)

// installDefault applies config/default to the test API server, with the
// release namespace it watches, and returns the controller's
// ServiceAccount as a client configuration, once the admission policies
// are enforced.
func installDefault(t *testing.T, ctx context.Context, objs []map[string]any) (admin, sa *rest.Config) {
	t.Helper()
	admin = kubetest.Config(t)
	cs := kubernetes.NewForConfigOrDie(admin)
	for _, ns := range []string{"sylva-system", "sylva-planner-system"} {
		if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
	apply(t, ctx, admin, dynamic.NewForConfigOrDie(admin), objs)
	sa = kubetest.Impersonate(admin, controllerSA, "system:serviceaccounts", "system:serviceaccounts:sylva-planner-system", "system:authenticated")
	return admin, sa
}

// createHelmRelease creates the HelmRelease name in ns, unless it exists.
func createHelmRelease(t *testing.T, ctx context.Context, dyn dynamic.Interface, ns, name string) {
	t.Helper()
	hr := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
		"metadata": map[string]any{"name": name, "namespace": ns},
		"spec": map[string]any{
			"interval": "10m",
			"chart": map[string]any{"spec": map[string]any{
				"chart":     "sylva-units",
				"sourceRef": map[string]any{"kind": "GitRepository", "name": "sylva-core"},
			}},
		},
	}}
	if _, err := dyn.Resource(helmReleases).Namespace(ns).Create(ctx, hr, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

// eventuallyDenied retries do until it is denied by an admission policy
// (the API server loads policies asynchronously), or fails after 30 s.
func eventuallyDenied(t *testing.T, what string, do func() error) {
	t.Helper()
	var err error
	denied := false
	defer func() {
		if !denied { // Eventually failed the test: say what was answered
			t.Logf("%s: %v, want denied by the admission policy", what, err)
		}
	}()
	kubetest.Eventually(t, 30*time.Second, what+" is denied by the admission policy", func() bool {
		err = do()
		return (apierrors.IsInvalid(err) || apierrors.IsForbidden(err)) && strings.Contains(err.Error(), "sylva-planner controller")
	})
	denied = true
}

func TestTheControllerHasRightsOnlyInTheNamespacesItWatches(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server (-short)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	objs := build(t, "default")
	for _, o := range objs {
		if o["kind"] == "ClusterRoleBinding" {
			md, _ := o["metadata"].(map[string]any)
			if ref, _ := o["roleRef"].(map[string]any); ref["name"] == "sylva-planner-controller" {
				t.Errorf("config/default binds the controller's ClusterRole cluster-wide (%v)", md["name"])
			}
		}
	}
	admin, sa := installDefault(t, ctx, objs)
	adminDyn := dynamic.NewForConfigOrDie(admin)
	other := kubetest.Namespace(t, admin)
	for _, ns := range []string{"sylva-system", other} {
		createHelmRelease(t, ctx, adminDyn, ns, "sylva-units")
	}
	saDyn := dynamic.NewForConfigOrDie(sa)
	request := []byte(`{"metadata":{"annotations":{"reconcile.fluxcd.io/requestedAt":"r1","reconcile.fluxcd.io/forceAt":"r1"}}}`)

	if _, err := saDyn.Resource(helmReleases).Namespace("sylva-system").Patch(ctx, "sylva-units", types.MergePatchType, request, metav1.PatchOptions{}); err != nil {
		t.Errorf("request a pass in the watched namespace sylva-system: %v", err)
	}
	if _, err := saDyn.Resource(helmReleases).Namespace(other).Patch(ctx, "sylva-units", types.MergePatchType, request, metav1.PatchOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("request a pass in namespace %s, not watched: %v, want Forbidden", other, err)
	}
	if _, err := saDyn.Resource(helmReleases).Namespace(other).Get(ctx, "sylva-units", metav1.GetOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("read the HelmRelease of namespace %s, not watched: %v, want Forbidden", other, err)
	}
	if _, err := saDyn.Resource(helmReleases).List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("list HelmReleases in all namespaces: %v, want Forbidden", err)
	}

	// The controller watching only its namespaces syncs its informers
	// (ready) with these rights.
	probes := kubetest.FreeAddress(t)
	ctl, err := reconciler.NewController(rest.CopyConfig(sa), reconciler.ControllerOptions{Namespace: "sylva-system", HealthProbeBindAddress: probes, Now: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- ctl.Start(runCtx) }()
	ready := false
	for deadline := time.Now().Add(time.Minute); !ready && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if resp, err := http.Get("http://" + probes + "/readyz"); err == nil {
			ready = resp.StatusCode == http.StatusOK
			_ = resp.Body.Close()
		}
	}
	stop()
	if err := <-done; err != nil {
		t.Errorf("controller for sylva-system with the namespaced rights: %v", err)
	}
	if !ready {
		t.Errorf("the controller for sylva-system never became ready (informers synced) with the namespaced rights")
	}
}

func TestTheControllerMayRecordOnlyItsOwnEvents(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server (-short)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	admin, sa := installDefault(t, ctx, build(t, "default"))
	const ns = "sylva-system"
	events := kubernetes.NewForConfigOrDie(sa).CoreV1().Events(ns)
	event := func(name, reason string) *corev1.Event {
		return &corev1.Event{
			ObjectMeta:     metav1.ObjectMeta{GenerateName: name + ".", Namespace: ns},
			InvolvedObject: corev1.ObjectReference{Kind: "HelmRelease", APIVersion: "helm.toolkit.fluxcd.io/v2", Namespace: ns, Name: name},
			Reason:         reason, Message: "test", Type: corev1.EventTypeNormal,
			Source: corev1.EventSource{Component: "sylva-planner-controller"},
		}
	}
	eventuallyDenied(t, "an Event about another HelmRelease", func() error {
		_, err := events.Create(ctx, event("other-release", reconciler.EventReason), metav1.CreateOptions{})
		return err
	})
	if _, err := events.Create(ctx, event("sylva-units", "UpgradeSucceeded"), metav1.CreateOptions{}); !denied(err) {
		t.Errorf("an Event with another reason: %v, want denied", err)
	}
	own, err := events.Create(ctx, event("sylva-units", reconciler.EventReason), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("its own Event about sylva-units: %v, want allowed", err)
	}
	if _, err := events.Patch(ctx, own.Name, types.MergePatchType, []byte(`{"count":2}`), metav1.PatchOptions{}); err != nil {
		t.Errorf("fold a repeat into its own Event: %v, want allowed", err)
	}
	theirs, err := kubernetes.NewForConfigOrDie(admin).CoreV1().Events(ns).Create(ctx, event("sylva-units", "UpgradeSucceeded"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := events.Patch(ctx, theirs.Name, types.MergePatchType, []byte(`{"reason":"ReconcileRequested","message":"forged"}`), metav1.PatchOptions{}); !denied(err) {
		t.Errorf("rewrite helm-controller's Event: %v, want denied", err)
	}
}

func TestTheControllerMayTakeOnlyItsOwnLease(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server (-short)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, sa := installDefault(t, ctx, build(t, "default"))
	leases := kubernetes.NewForConfigOrDie(sa).CoordinationV1().Leases("sylva-planner-system")
	lease := func(name string) *coordinationv1.Lease {
		return &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To("pod-1_x"), LeaseDurationSeconds: ptr.To[int32](15)}}
	}
	eventuallyDenied(t, "create another Lease", func() error {
		_, err := leases.Create(ctx, lease("someone-else"), metav1.CreateOptions{})
		return err
	})
	got, err := leases.Create(ctx, lease(reconciler.DefaultLeaderElectionID), metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		got, err = leases.Get(ctx, reconciler.DefaultLeaderElectionID, metav1.GetOptions{})
	}
	if err != nil {
		t.Fatalf("create or get its Lease: %v", err)
	}
	got.Spec.HolderIdentity = ptr.To("pod-2_y")
	if _, err := leases.Update(ctx, got, metav1.UpdateOptions{}); err != nil {
		t.Errorf("update its Lease: %v", err)
	}
	if _, err := leases.Get(ctx, "someone-else", metav1.GetOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("get another Lease: %v, want Forbidden", err)
	}
	if err := leases.Delete(ctx, reconciler.DefaultLeaderElectionID, metav1.DeleteOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("delete its Lease: %v, want Forbidden", err)
	}
	if _, err := leases.List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("list Leases: %v, want Forbidden", err)
	}
}

func denied(err error) bool { return apierrors.IsInvalid(err) || apierrors.IsForbidden(err) }
