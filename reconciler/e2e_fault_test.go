package reconciler_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/internal/catalogtest"
	"gitlab.com/sylva-projects/sylva-planner/internal/kubetest"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/reconciler"
	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

// catalogWith11To14 is the embedded catalog in which 1.4 also supports
// upgrades from 1.1: main's chart (the 1.4 line) then runs three passes,
// Kubernetes 1.28 → 1.29 → 1.30 → 1.31.
func catalogWith11To14(t *testing.T) *catalog.Catalog {
	t.Helper()
	return catalogtest.Edited(t, [2]string{"  - release: \"1.4\"\n    upgrade_from: [\"1.3\"]\n", "  - release: \"1.4\"\n    upgrade_from: [\"1.1\", \"1.3\"]\n"})
}

// TestAVanishedStatusNeverSkipsAMinorWithHelmController: on real Flux,
// with the overlay of 1.1 → 1.4 (three passes) on main's chart, the
// status ConfigMap deleted when pass 2 is requested makes helm-controller's
// upgrade fail with the overlay's message, instead of rendering the final
// Kubernetes 1.31 straight after 1.29; the ConfigMap written back and the
// release forced again (the fix the message names), pass 2 renders 1.30,
// and reconcile requests pass 3 (1.31) once.
func TestAVanishedStatusNeverSkipsAMinorWithHelmController(t *testing.T) {
	in := planner.Input{Catalog: catalogWith11To14(t), From: semver.MustParse("1.1"), To: semver.MustParse("1.4"), FromSource: "flag", ToolVersion: "test"}
	rig := newChartRig(t, in, map[string]string{
		status.KeyReleaseRevision: "9", status.KeyChartVersion: "1.1.1", status.KeyValuesChecksum: "from-1.1", status.KeyAdditionalInfo: "{}\n",
	}, managementValues)
	ctx, k := rig.ctx, rig.player
	rig.wantMinors(t, "1.29 1.30 1.31")
	rig.waitPasses(t, 1)

	// Pass 2 requested, and the status deleted before helm-controller
	// renders it.
	if err := rig.core.CoreV1().ConfigMaps(rig.ns).Delete(ctx, status.ConfigMapName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	rig.request(t, "fault-1", false)
	hr := rig.waitHandled(t, "fault-1")
	ready := condition(hr, "Ready")
	if ready == nil || ready["status"] != "False" || !strings.Contains(ready["message"].(string), "cannot read its sylva-units-status ConfigMap") {
		t.Fatalf("HelmRelease after pass 2 without a status: Ready %v, want False with the overlay's message", ready)
	}
	t.Logf("helm-controller refused the pass: %s: %.200s", ready["reason"], ready["message"])
	if n := len(k.passes()); n != 1 {
		t.Fatalf("%d passes rendered after the failed one, want 1 (nothing rendered without a status)", n)
	}

	// The fix the message names: the status unit writes the ConfigMap
	// back, and the release is forced again with its failures reset.
	ks, err := rig.dyn.Resource(kubetest.Kustomizations).Namespace(rig.ns).Get(ctx, status.KustomizationName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	data, err := statusPatchData(ks)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rig.core.CoreV1().ConfigMaps(rig.ns).Create(ctx, configMap(rig.ns, data), metav1.CreateOptions{FieldManager: status.ChartWriter}); err != nil {
		t.Fatal(err)
	}
	rig.request(t, "fix-1", true)
	rig.waitPasses(t, 2)

	// reconcile requests pass 3 once, and nothing after it.
	cl, err := client.New(rig.cfg, client.Options{Scheme: reconciler.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	rec := reconciler.NewOneShotRecorder(rig.core.CoreV1(), "sylva-planner")
	defer rec.Close()
	a := &reconciler.Applier{Reader: cl, Writer: cl, Recorder: rec, Now: time.Now}
	res, err := a.Drive(ctx, reconciler.Target{Namespace: rig.ns}, reconciler.DriveOptions{Wait: true, Interval: time.Second})
	if err != nil {
		t.Fatalf("Drive: %v", err)
	}
	if res.Decision.Outcome != reconciler.ConclusionNothingRequested {
		t.Errorf("Drive ended with %s, want nothing requested", res.Decision)
	}
	var got []string
	for _, p := range k.passes() {
		v, err := semver.Parse(p.k8s)
		if err != nil {
			t.Fatalf("pass rendered Kubernetes %q: %v", p.k8s, err)
		}
		got = append(got, v.Short())
	}
	if strings.Join(got, " ") != "1.29 1.30 1.31" {
		t.Errorf("passes rendered Kubernetes %v, want 1.29, 1.30, 1.31 (no minor skipped)", got)
	}
	if n := rig.triggers(t); n != 1 {
		t.Errorf("reconcile requested %d passes, want 1 (pass 3)", n)
	}
}

// wantMinors fails the test unless the rig's plan sets the Kubernetes
// minors want ("1.29 1.30 1.31"), pass by pass.
func (r *chartRig) wantMinors(t *testing.T, want string) {
	t.Helper()
	var got []string
	for _, p := range r.plan.Passes {
		got = append(got, p.Values.K8sVersionShort)
	}
	if strings.Join(got, " ") != want {
		t.Fatalf("plan %s → %s sets Kubernetes %v, want %s", r.plan.From.Release, r.plan.To.Release, got, want)
	}
}

// waitPasses waits until the status recorded n passes rendered.
func (r *chartRig) waitPasses(t *testing.T, n int) {
	t.Helper()
	kubetest.EventuallyCtx(t, r.ctx, fmt.Sprintf("helm-controller rendered pass %d and the status recorded it", n), func() bool {
		if err := r.player.err(); err != nil {
			t.Fatal(err)
		}
		return len(r.player.passes()) >= n
	})
}

// request asks helm-controller for a reconciliation with token, forced,
// and with its failure counters reset when reset is set (flux reconcile
// helmrelease --force [--reset]).
func (r *chartRig) request(t *testing.T, token string, reset bool) {
	t.Helper()
	ann := map[string]any{"reconcile.fluxcd.io/requestedAt": token, "reconcile.fluxcd.io/forceAt": token}
	if reset {
		ann["reconcile.fluxcd.io/resetAt"] = token
	}
	patch := map[string]any{"metadata": map[string]any{"annotations": ann}}
	b, err := json.Marshal(patch)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.dyn.Resource(kubetest.HelmReleases).Namespace(r.ns).Patch(r.ctx, status.DefaultHelmRelease, types.MergePatchType, b, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

// waitHandled waits until helm-controller handled the request token and
// is no longer reconciling, and returns the HelmRelease.
func (r *chartRig) waitHandled(t *testing.T, token string) *unstructured.Unstructured {
	t.Helper()
	var hr *unstructured.Unstructured
	kubetest.EventuallyCtx(t, r.ctx, "helm-controller handled request "+token, func() bool {
		var err error
		hr, err = r.dyn.Resource(kubetest.HelmReleases).Namespace(r.ns).Get(r.ctx, status.DefaultHelmRelease, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		handled, _, _ := unstructured.NestedString(hr.Object, "status", "lastHandledReconcileAt")
		rc := condition(hr, "Reconciling")
		return handled == token && (rc == nil || rc["status"] != "True")
	})
	return hr
}

// triggers counts the passes the planner requested (its Events on the
// HelmRelease).
func (r *chartRig) triggers(t *testing.T) int {
	t.Helper()
	events, err := r.core.CoreV1().Events(r.ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range events.Items {
		if e.Reason == reconciler.EventReason && e.InvolvedObject.Kind == "HelmRelease" {
			n++
		}
	}
	return n
}

// condition is the condition of type typ of obj's status, nil when absent.
func condition(obj *unstructured.Unstructured, typ string) map[string]any {
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == typ {
			return m
		}
	}
	return nil
}
