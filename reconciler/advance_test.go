package reconciler

import (
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"gitlab.com/sylva-projects/sylva-planner/status"
	"gitlab.com/sylva-projects/sylva-planner/status/statuskube"
)

// TestARequestWrittenInAdvanceDoesNotSuppressThePass plays a leaked
// controller token on the real API server: before the pass is triggered it
// computes the derived request value from the status it may read and writes
// it in the three annotations the admission policy lets it write. The
// planner still passes the request on, with a token bound to the status
// write, once; and the status command, reading the same cluster with its
// own reader, says the same at each step: pending before the trigger, in
// progress after it, done once helm-controller picked the token up.
func TestARequestWrittenInAdvanceDoesNotSuppressThePass(t *testing.T) {
	c := newCluster(t)
	ns := c.setup(t, healthy())
	a := c.applier(t)
	ctx := ctxFor(t)
	reader, err := statuskube.NewReader(c.cfg, statuskube.Options{})
	if err != nil {
		t.Fatal(err)
	}
	statusSays := func(step string) status.Report {
		t.Helper()
		obs, err := reader.Read(ctx, ns)
		if err != nil {
			t.Fatalf("%s: status Read: %v", step, err)
		}
		return status.Interpret(obs)
	}
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
	if rep := statusSays("value written in advance"); !rep.PassPending || rep.InProgress || !rep.CanStartNow {
		t.Fatalf("status after the value was written in advance: pending %v, in progress %v, can start %v (%q); want a pass pending that can start",
			rep.PassPending, rep.InProgress, rep.CanStartNow, rep.Summary)
	}

	res, err := a.Apply(ctx, Target{Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Triggered || res.Decision.Request == v {
		t.Fatalf("Apply after the value was written in advance = %s (triggered %v); want a trigger with a token other than %q", res.Decision, res.Triggered, v)
	}
	token := res.Decision.Request
	checkPassedOn(t, c.helmRelease(t, ns).GetAnnotations(), res)
	if rep := statusSays("triggered"); rep.PassPending || !rep.InProgress || !strings.Contains(strings.Join(rep.Summary, " "), "has not picked it up yet") {
		t.Fatalf("status after the trigger: pending %v, in progress %v (%q); want the pass in progress, not picked up yet", rep.PassPending, rep.InProgress, rep.Summary)
	}
	again, err := a.Apply(ctx, Target{Namespace: ns})
	if err != nil || again.Triggered || again.Decision.Outcome != ConclusionAlreadyHandled {
		t.Fatalf("Apply again = %s (triggered %v), %v; want already handled", again.Decision, again.Triggered, err)
	}

	// helm-controller handles the token.
	c.setReady(t, ctx, helmReleases, c.helmRelease(t, ns), true, token)
	if rep := statusSays("handled"); rep.PassPending || rep.InProgress || rep.Progress != status.PhaseDone {
		t.Fatalf("status after helm-controller handled %q: pending %v, progress %s (%q); want done", token, rep.PassPending, rep.Progress, rep.Summary)
	}
	if res, err := a.Apply(ctx, Target{Namespace: ns}); err != nil || res.Triggered || res.Decision.Outcome != ConclusionAlreadyHandled || res.Decision.Request != token {
		t.Fatalf("Apply once handled = %s (triggered %v), %v; want %q already handled", res.Decision, res.Triggered, err, token)
	}
}
