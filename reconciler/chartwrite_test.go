package reconciler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"gitlab.com/sylva-projects/sylva-planner/status"
	"gitlab.com/sylva-projects/sylva-planner/status/statuskube"
)

// patchConfigMap writes patch (a merge patch) on the status ConfigMap of ns
// as field manager manager.
func (c *cluster) patchConfigMap(t *testing.T, ns, manager string, patch map[string]any) {
	t.Helper()
	b, err := json.Marshal(patch)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.core.CoreV1().ConfigMaps(ns).Patch(ctxFor(t), status.ConfigMapName, types.MergePatchType, b, metav1.PatchOptions{FieldManager: manager}); err != nil {
		t.Fatalf("patch ConfigMap as %s: %v", manager, err)
	}
}

// TestOnlyTheChartsWriteOfTheStatusRequestsAPass checks, on the real API
// server, that a pass is requested once per write of the status data by
// the chart (kustomize-controller): writes of the ConfigMap's metadata
// (labels, annotations) by anyone, with one applier or two controllers
// running, request nothing more, and rewrites of the data by another field
// manager request nothing and are reported.
func TestOnlyTheChartsWriteOfTheStatusRequestsAPass(t *testing.T) {
	c := newCluster(t)
	ns := c.setup(t, healthy())
	ctx := ctxFor(t)
	target := Target{Namespace: ns}
	a := c.applier(t)

	first, err := a.Apply(ctx, target)
	if err != nil || !first.Triggered {
		t.Fatalf("first Apply = %s (triggered %v), %v; want a trigger", first.Decision, first.Triggered, err)
	}
	token := first.Decision.Request
	// helm-controller handled the pass.
	c.setReady(t, ctx, helmReleases, c.helmRelease(t, ns), true, token)

	// Two controllers watch the namespace while the ConfigMap's metadata is
	// touched three times, as kubectl label and annotate do.
	ctl1, stop1 := runController(t, c.cfg, ControllerOptions{Namespace: ns})
	defer stop1()
	ctl2, stop2 := runController(t, c.cfg, ControllerOptions{Namespace: ns})
	defer stop2()
	settle(t, ctl1, ConclusionAlreadyHandled, 1)
	settle(t, ctl2, ConclusionAlreadyHandled, 1)
	for i := range 3 {
		c.patchConfigMap(t, ns, "kubectl-label", map[string]any{"metadata": map[string]any{"labels": map[string]string{"touched": fmt.Sprint(i)}}})
		c.patchConfigMap(t, ns, "kubectl-annotate", map[string]any{"metadata": map[string]any{"annotations": map[string]string{"backup": fmt.Sprint(i)}}})
	}
	// Let both controllers see every touch before counting.
	time.Sleep(2 * time.Second)
	for i := range 3 {
		res, err := a.Apply(ctx, target)
		if err != nil || res.Triggered || res.Decision.Outcome != ConclusionAlreadyHandled || res.Decision.Request != token {
			t.Fatalf("Apply #%d after metadata-only writes = %s (triggered %v), %v; want %q already handled", i+1, res.Decision, res.Triggered, err, token)
		}
	}
	if n := c.triggers(t, ns); n != 1 {
		t.Fatalf("%d passes requested after 6 metadata-only writes with two controllers running, want 1", n)
	}
	t.Logf("metadata-only writes: 6, passes requested: %d", c.triggers(t, ns))

	// Someone who may patch the ConfigMap rewrites its data five times, as
	// the chart would for a new pass. Nothing is requested; it is reported.
	reader, err := statuskube.NewReader(c.cfg, statuskube.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		c.patchConfigMap(t, ns, "kubectl-patch", map[string]any{"data": map[string]string{
			status.KeyReleaseRevision: fmt.Sprint(100 + i), status.KeyAdditionalReconciliationRequired: "true",
		}})
		res, err := a.Apply(ctx, target)
		if err != nil || res.Triggered || res.Decision.Outcome != ConclusionNotFromChart {
			t.Fatalf("Apply after rewrite #%d by kubectl-patch = %s (triggered %v), %v; want %s", i+1, res.Decision, res.Triggered, err, ConclusionNotFromChart)
		}
		if !strings.Contains(res.Decision.Reason, "kubectl-patch") {
			t.Errorf("reason %q does not name the writer", res.Decision.Reason)
		}
		obs, err := reader.Read(ctx, ns)
		if err != nil {
			t.Fatal(err)
		}
		rep := status.Interpret(obs)
		if rep.PassPending || !hasCode(rep.Findings, status.CodeRequestNotFromChart) {
			t.Fatalf("status after rewrite #%d: pending %v, findings %v; want no pass pending and %s", i+1, rep.PassPending, rep.Findings, status.CodeRequestNotFromChart)
		}
	}
	settle(t, ctl1, ConclusionNotFromChart, 1)
	settle(t, ctl2, ConclusionNotFromChart, 1)
	if n := c.triggers(t, ns); n != 1 {
		t.Fatalf("%d passes requested after 5 rewrites of the data by kubectl-patch, want 1", n)
	}

	// The chart writes the status of its next pass: one more pass.
	c.patchConfigMap(t, ns, status.ChartWriter, map[string]any{"data": map[string]string{
		status.KeyReleaseRevision: "200", status.KeyAdditionalReconciliationRequired: "true",
	}})
	ks, err := c.dyn.Resource(kustomizations).Namespace(ns).Get(ctx, status.KustomizationName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	anns := ks.GetAnnotations()
	if _, ok := anns[status.AnnotationTargetReleaseRevision]; ok {
		anns[status.AnnotationTargetReleaseRevision] = "200"
		ks.SetAnnotations(anns)
		if _, err := c.dyn.Resource(kustomizations).Namespace(ns).Update(ctx, ks, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	c.eventTriggers(t, ns, 2)
	t.Logf("chart writes: 2, passes requested: %d", c.triggers(t, ns))
}

// TestAFailedPassEndsTheWait checks on the real API server that a pass
// helm-controller picked up and failed (Ready=False, UpgradeFailed, no
// Stalled) is reported failed by reconcile and status, and that --wait
// ends with ErrPassFailed at once rather than at its timeout.
func TestAFailedPassEndsTheWait(t *testing.T) {
	c := newCluster(t)
	ns := c.setup(t, healthy())
	ctx := ctxFor(t)
	a := c.applier(t)
	first, err := a.Apply(ctx, Target{Namespace: ns})
	if err != nil || !first.Triggered {
		t.Fatalf("Apply = %s, %v; want a trigger", first.Decision, err)
	}
	token := first.Decision.Request
	hr := c.helmRelease(t, ns)
	gen := hr.GetGeneration()
	hr.Object["status"] = map[string]any{
		"observedGeneration": gen, "lastHandledReconcileAt": token, "lastHandledForceAt": token,
		"conditions": []any{map[string]any{
			"type": "Ready", "status": "False", "reason": "UpgradeFailed", "message": "Helm upgrade failed: timed out waiting for the condition",
			"observedGeneration": gen, "lastTransitionTime": time.Now().UTC().Format(time.RFC3339),
		}},
	}
	if _, err := c.dyn.Resource(helmReleases).Namespace(ns).UpdateStatus(ctx, hr, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	res, err := a.Apply(ctx, Target{Namespace: ns})
	if err != nil || res.Decision.Outcome != ConclusionFailed || !strings.Contains(res.Decision.Reason, "UpgradeFailed") || !strings.Contains(res.Decision.Reason, "--force --reset") {
		t.Fatalf("Apply after the pass failed = %s, %v; want %s naming UpgradeFailed and the fix", res.Decision, err, ConclusionFailed)
	}
	rep := status.Interpret(res.Snapshot.Input.Observation)
	if rep.Progress != status.PhaseFailed || rep.PassFailed == "" {
		t.Fatalf("status after the pass failed: progress %s, summary %q; want failed", rep.Progress, rep.Summary)
	}

	start := time.Now()
	waitCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	_, err = a.Drive(waitCtx, Target{Namespace: ns}, DriveOptions{Wait: true, Interval: 100 * time.Millisecond})
	if !errors.Is(err, ErrPassFailed) {
		t.Fatalf("Drive(Wait) on a failed pass = %v, want ErrPassFailed", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("Drive(Wait) took %s to see the failed pass, want it at once", d)
	}
}

func hasCode(fs []status.Finding, code string) bool {
	for _, f := range fs {
		if f.Code == code {
			return true
		}
	}
	return false
}
