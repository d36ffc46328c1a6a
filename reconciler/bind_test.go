package reconciler

import (
	"encoding/json"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// TestARequestWrittenInAdvanceDoesNotSuppressThePass plays a leaked
// controller token on the real API server: before the pass is triggered it
// computes the derived request value from the status it may read and writes
// it in the three annotations the admission policy lets it write. The
// planner still passes the request on, with a token bound to the status
// write, once.
func TestARequestWrittenInAdvanceDoesNotSuppressThePass(t *testing.T) {
	c := newCluster(t)
	ns := c.setup(t, healthy())
	a := c.applier(t)
	ctx := ctxFor(t)
	snap, err := Fetch(ctx, a.Reader, Target{Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	v, src, err := RequestValue(snap.Input.Observation)
	if err != nil || src != SourceStatus {
		t.Fatalf("RequestValue() = %q, %s, %v; want a value derived from the status", v, src, err)
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{
		AnnotationRequestedAt: v, AnnotationForceAt: v, AnnotationHandledRequest: v,
	}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.dyn.Resource(helmReleases).Namespace(ns).Patch(ctx, "sylva-units", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}

	res, err := a.Apply(ctx, Target{Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Triggered || res.Decision.Request == v {
		t.Fatalf("Apply after the value was written in advance = %s (triggered %v); want a trigger with a token other than %q", res.Decision, res.Triggered, v)
	}
	checkPassedOn(t, c.helmRelease(t, ns).GetAnnotations(), res)
	again, err := a.Apply(ctx, Target{Namespace: ns})
	if err != nil || again.Triggered || again.Decision.Outcome != OutcomeAlreadyHandled {
		t.Fatalf("Apply again = %s (triggered %v), %v; want already handled", again.Decision, again.Triggered, err)
	}
}
