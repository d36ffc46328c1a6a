package reconciler

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	fluxmeta "github.com/fluxcd/pkg/apis/meta"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/status"
)

// typedFixture decodes testdata/name into obj, in namespace ns.
func typedFixture(t *testing.T, name, ns string, obj client.Object) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, obj); err != nil {
		t.Fatalf("decode testdata/%s: %v", name, err)
	}
	obj.SetNamespace(ns)
}

// readyObjects are the status ConfigMap asking for a pass, and a Ready
// Kustomization and HelmRelease, as typed objects.
func readyObjects(t *testing.T, ns string) (*corev1.ConfigMap, *kustomizev1.Kustomization, *helmv2.HelmRelease) {
	t.Helper()
	cm, ks, hr := &corev1.ConfigMap{}, &kustomizev1.Kustomization{}, &helmv2.HelmRelease{}
	typedFixture(t, "configmap.yaml", ns, cm)
	typedFixture(t, "kustomization.yaml", ns, ks)
	typedFixture(t, "helmrelease.yaml", ns, hr)
	ready := func(gen int64) metav1.Condition {
		return metav1.Condition{Type: fluxmeta.ReadyCondition, Status: metav1.ConditionTrue, Reason: "Succeeded", ObservedGeneration: gen, LastTransitionTime: metav1.Unix(0, 0)}
	}
	ks.Generation, ks.Status.ObservedGeneration = 1, 1
	apimeta.SetStatusCondition(&ks.Status.Conditions, ready(1))
	hr.Generation, hr.Status.ObservedGeneration = 1, 1
	apimeta.SetStatusCondition(&hr.Status.Conditions, ready(1))
	return cm, ks, hr
}

// TestApplyWithTypedObjects runs Apply on controller-runtime's fake client
// (the real API server tests cover what a fake cannot: schemas, RBAC): the
// typed objects are read, the optimistic-lock patch sets the three
// annotations, the recorder gets one Event, and a second Apply finds the
// request handled.
func TestApplyWithTypedObjects(t *testing.T) {
	cm, ks, hr := readyObjects(t, "sylva-system")
	cl := fake.NewClientBuilder().WithScheme(Scheme()).WithObjects(cm, ks, hr).
		WithStatusSubresource(&kustomizev1.Kustomization{}, &helmv2.HelmRelease{}).Build()
	rec := record.NewFakeRecorder(10)
	a := &Applier{Reader: cl, Writer: cl, Recorder: rec, Now: time.Now}
	ctx := context.Background()

	res, err := a.Apply(ctx, Target{Namespace: "sylva-system"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Triggered || res.Decision.Outcome != ConclusionTrigger {
		t.Fatalf("first Apply: %s, triggered %v; want triggered", res.Decision, res.Triggered)
	}
	got := &helmv2.HelmRelease{}
	if err := cl.Get(ctx, client.ObjectKeyFromObject(hr), got); err != nil {
		t.Fatal(err)
	}
	checkPassedOn(t, got.Annotations, res)
	select {
	case ev := <-rec.Events:
		if !strings.HasPrefix(ev, "Normal "+EventReason+" ") || !strings.Contains(ev, res.Decision.Request) {
			t.Errorf("Event = %q, want a Normal %s naming the request", ev, EventReason)
		}
	default:
		t.Error("no Event recorded")
	}

	res, err = a.Apply(ctx, Target{Namespace: "sylva-system"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Triggered || res.Decision.Outcome != ConclusionAlreadyHandled {
		t.Fatalf("second Apply: %s; want already handled", res.Decision)
	}
	if n := len(rec.Events); n != 0 {
		t.Errorf("%d more Events after the second Apply, want none", n)
	}
}

// checkPassedOn fails unless ann, the HelmRelease's annotations after the
// trigger res, carry its request: requestedAt and forceAt the value passed
// on (Decision.Request), the tracking annotation the request value it
// stands for (the same, or the derived value the token is bound to).
func checkPassedOn(t *testing.T, ann map[string]string, res Result) {
	t.Helper()
	v, _, err := RequestValue(res.Snapshot.Input.Observation)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{AnnotationRequestedAt: res.Decision.Request, AnnotationForceAt: res.Decision.Request, AnnotationHandledRequest: v} {
		if ann[k] != want {
			t.Errorf("annotation %s = %q, want %q", k, ann[k], want)
		}
	}
}

// TestPatchIsGuardedByTheResourceVersion checks the optimistic lock: a
// patch from a HelmRelease read before another write is refused.
func TestPatchIsGuardedByTheResourceVersion(t *testing.T) {
	cm, ks, hr := readyObjects(t, "sylva-system")
	cl := fake.NewClientBuilder().WithScheme(Scheme()).WithObjects(cm, ks, hr).Build()
	ctx := context.Background()
	stale := &helmv2.HelmRelease{}
	if err := cl.Get(ctx, client.ObjectKeyFromObject(hr), stale); err != nil {
		t.Fatal(err)
	}
	fresh := stale.DeepCopy()
	fresh.Annotations = map[string]string{"someone": "else"}
	if err := cl.Update(ctx, fresh); err != nil {
		t.Fatal(err)
	}
	a := &Applier{Writer: cl}
	if err := a.patch(ctx, stale, "req-1", "req-1"); !apierrors.IsConflict(err) {
		t.Fatalf("patch of a stale HelmRelease: %v, want a conflict", err)
	}
}

// TestFetchDecodesTheTypedObjects checks that Fetch hands Decide what the
// typed objects say, through status.FromHelmRelease and FromKustomization.
func TestFetchDecodesTheTypedObjects(t *testing.T) {
	cm, ks, hr := readyObjects(t, "ns-1")
	hr.Spec.Suspend = true
	hr.Status.LastHandledReconcileAt = "earlier"
	cl := fake.NewClientBuilder().WithScheme(Scheme()).WithObjects(cm, ks, hr).Build()
	snap, err := Fetch(context.Background(), cl, Target{Namespace: "ns-1"})
	if err != nil {
		t.Fatal(err)
	}
	obs := snap.Input.Observation
	if obs.Kustomization == nil || obs.HelmRelease == nil || obs.ConfigMap == nil {
		t.Fatalf("Fetch read %+v, want all three objects", obs)
	}
	f := obs.HelmRelease
	if f.Kind != status.KindHelmRelease || !f.Suspended || f.LastHandledReconcileAt != "earlier" || !f.ReadyAtGeneration() {
		t.Errorf("HelmRelease read as %+v", f)
	}
	if k := obs.Kustomization; k.Kind != status.KindKustomization || k.Annotations[status.AnnotationTargetReleaseRevision] != "7" || !k.ReadyAtGeneration() {
		t.Errorf("Kustomization read as %+v", k)
	}
	if d := Decide(snap.Input); d.Outcome != ConclusionSuspended {
		t.Errorf("Decide = %s, want suspended", d)
	}
}

// TestOneShotRecorderFlushWaitsForTheWrite checks that a one-shot process
// loses no Event: Flush returns once the broadcaster wrote it.
func TestOneShotRecorderFlushWaitsForTheWrite(t *testing.T) {
	_, _, hr := readyObjects(t, "sylva-system")
	hr.UID = "uid-1"
	cs := kubefake.NewClientset()
	rec := NewOneShotRecorder(cs.CoreV1(), "sylva-planner")
	defer rec.Close()
	rec.Eventf(hr, corev1.EventTypeNormal, EventReason, "requested reconciliation %q", "req-1")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := rec.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	list, err := cs.CoreV1().Events("sylva-system").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || list.Items[0].Reason != EventReason || list.Items[0].InvolvedObject.Kind != helmv2.HelmReleaseKind {
		t.Fatalf("Events after Flush = %+v, want the one ReconcileRequested on the HelmRelease", list.Items)
	}
}
