package reconciler

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"gitlab.com/sylva-projects/sylva-planner/status"
)

// fakeFlux plays helm-controller and the sylva-units-status Kustomization
// for ns: it handles each new requestedAt of the HelmRelease (Ready at its
// generation, lastHandledReconcileAt set), then rewrites the status
// ConfigMap with the next release revision, asking for another pass while
// passes remain. With stall, it handles the request and stalls instead.
func (c *cluster) fakeFlux(t *testing.T, ctx context.Context, ns string, passes int, stall bool) {
	t.Helper()
	go func() {
		for ctx.Err() == nil {
			time.Sleep(50 * time.Millisecond)
			hr, err := c.dyn.Resource(helmReleases).Namespace(ns).Get(ctx, status.DefaultHelmRelease, metav1.GetOptions{})
			if err != nil {
				continue
			}
			req := hr.GetAnnotations()[AnnotationRequestedAt]
			handled, _, _ := unstructuredString(hr.Object, "status", "lastHandledReconcileAt")
			if req == "" || req == handled {
				continue
			}
			gen := hr.GetGeneration()
			cond := map[string]any{
				"type": "Ready", "status": "True", "reason": "UpgradeSucceeded", "message": "upgraded",
				"observedGeneration": gen, "lastTransitionTime": time.Now().UTC().Format(time.RFC3339),
			}
			conds := []any{cond}
			if stall {
				cond["status"], cond["reason"] = "False", "RetriesExceeded"
				conds = append(conds, map[string]any{
					"type": "Stalled", "status": "True", "reason": "RetriesExceeded", "message": "upgrade failed",
					"observedGeneration": gen, "lastTransitionTime": time.Now().UTC().Format(time.RFC3339),
				})
			}
			hr.Object["status"] = map[string]any{
				"observedGeneration": gen, "conditions": conds,
				"lastHandledReconcileAt": req, "lastHandledForceAt": req,
			}
			if _, err := c.dyn.Resource(helmReleases).Namespace(ns).UpdateStatus(ctx, hr, metav1.UpdateOptions{}); err != nil {
				continue
			}
			if stall {
				continue
			}
			// The Kustomization applies the new status once every unit is
			// done.
			cm, err := c.core.CoreV1().ConfigMaps(ns).Get(ctx, status.ConfigMapName, metav1.GetOptions{})
			if err != nil {
				continue
			}
			rev, _ := strconv.Atoi(cm.Data[status.KeyReleaseRevision])
			rev++
			passes--
			cm.Data[status.KeyReleaseRevision] = strconv.Itoa(rev)
			cm.Data[status.KeyAdditionalReconciliationRequired] = strconv.FormatBool(passes > 0)
			ks, err := c.dyn.Resource(kustomizations).Namespace(ns).Get(ctx, status.KustomizationName, metav1.GetOptions{})
			if err != nil {
				continue
			}
			ann := ks.GetAnnotations()
			ann[status.AnnotationTargetReleaseRevision] = strconv.Itoa(rev)
			ks.SetAnnotations(ann)
			if _, err := c.dyn.Resource(kustomizations).Namespace(ns).Update(ctx, ks, metav1.UpdateOptions{}); err != nil {
				continue
			}
			if _, err := c.core.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{FieldManager: status.ChartWriter}); err != nil {
				continue
			}
		}
	}()
}

func unstructuredString(obj map[string]any, path ...string) (string, bool, error) {
	var cur any = obj
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return "", false, nil
		}
		cur = m[p]
	}
	s, ok := cur.(string)
	return s, ok, nil
}

func TestDriveCarriesAClusterThroughEveryPass(t *testing.T) {
	c := newCluster(t)
	ns := c.setup(t, healthy())
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c.fakeFlux(t, ctx, ns, 2, false)

	var decisions []string
	var progress int
	res, err := c.applier(t).Drive(ctx, Target{Namespace: ns}, DriveOptions{
		Wait:       true,
		Interval:   100 * time.Millisecond,
		OnDecision: func(r Result) { decisions = append(decisions, string(r.Decision.Outcome)) },
		OnProgress: func(p WaitProgress) {
			progress++
			t.Logf("[%s] %s: %s", p.Elapsed.Round(time.Millisecond), p.Request, p.State)
		},
	})
	if err != nil {
		t.Fatalf("Drive: %v (decisions %v)", err, decisions)
	}
	if res.Decision.Outcome != ConclusionNothingRequested {
		t.Fatalf("Drive ended with %s, want nothing requested", res.Decision)
	}
	if n := c.triggers(t, ns); n != 2 {
		t.Fatalf("%d passes requested, want 2 (decisions %v)", n, decisions)
	}
	if got := strings.Join(decisions, ","); !strings.HasPrefix(got, "triggered,") || !strings.HasSuffix(got, "nothing-requested") {
		t.Errorf("decisions %s, want triggered first and nothing-requested last", got)
	}
	if progress == 0 {
		t.Error("no progress reported while waiting")
	}
}

func TestDriveFailsWhenThePassStalls(t *testing.T) {
	c := newCluster(t)
	ns := c.setup(t, healthy())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c.fakeFlux(t, ctx, ns, 1, true)
	_, err := c.applier(t).Drive(ctx, Target{Namespace: ns}, DriveOptions{Wait: true, Interval: 100 * time.Millisecond})
	if !errors.Is(err, ErrPassFailed) || !strings.Contains(err.Error(), "RetriesExceeded") {
		t.Fatalf("Drive on a stalling HelmRelease: %v, want ErrPassFailed naming the reason", err)
	}
}

func TestDriveTimesOutWhenNothingHandlesThePass(t *testing.T) {
	c := newCluster(t)
	ns := c.setup(t, healthy())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	res, err := c.applier(t).Drive(ctx, Target{Namespace: ns}, DriveOptions{Wait: true, Interval: 100 * time.Millisecond})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Drive without helm-controller: %v, want a deadline error", err)
	}
	if !res.Triggered {
		t.Fatalf("Drive did not trigger before waiting: %s", res.Decision)
	}
	if !strings.Contains(err.Error(), "has not picked up the request") {
		t.Errorf("the timeout does not say what it waited for: %v", err)
	}
}
