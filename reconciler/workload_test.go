package reconciler

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/internal/kubetest"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
)

// TestTheControllerAndReconcileReadAWorkloadClustersMinors: in a
// workload cluster's namespace whose Cluster API objects run Kubernetes
// 1.29 (inside Sylva 1.4's workload window, below 1.6's), the controller's
// gate and reconcile read the minors from those objects, so that they plan
// the passes of that cluster — 1.29 stepping through 1.30 — and not those
// of a management cluster on 1.4's 1.31.
func TestTheControllerAndReconcileReadAWorkloadClustersMinors(t *testing.T) {
	c := newCluster(t)
	ns := kubetest.Namespace(t, c.cfg)
	c.setupIn(t, ns, fixture{configMap: true, configMapData: map[string]string{"sylva_release": "1.4", "additional_reconciliation_required": "false", "sylva-units-chart-version": "1.4.0"}, kustomization: true, ksReady: true, helmRelease: true, hrReady: true})
	for _, u := range []*unstructured.Unstructured{
		kubetest.KubeadmControlPlane(ns, ns+"-control-plane", "v1.29.15"),
		kubetest.MachineDeployment(ns, ns+"-md0", "v1.29.15"),
	} {
		if err := kubetest.CreateCAPI(c.cfg, u); err != nil {
			t.Fatal(err)
		}
	}
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	to, asOf := semver.MustParse("1.6"), time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

	// The controller's gate.
	rec := &gateRecorder{in: planner.Input{Catalog: cat, To: to, AsOf: asOf}}
	ctl, _ := runController(t, c.cfg, ControllerOptions{Namespace: ns, Gate: rec.gate})
	settle(t, ctl, ConclusionNothingRequested, 1)
	gated := rec.gated()
	if len(gated) == 0 {
		t.Fatal("the controller's gate never planned")
	}
	pr := gated[0]
	if pr.Cluster != planner.ClusterWorkload || pr.Kubernetes.Short() != "1.29" || pr.Workers.Short() != "1.29" {
		t.Errorf("the gate read cluster %q, control plane %q, workers %q; want a workload cluster on 1.29 (its KubeadmControlPlane and MachineDeployment)", pr.Cluster, pr.Kubernetes.Short(), pr.Workers.Short())
	}
	p, err := planner.Compute(planner.Input{Catalog: cat, To: to, AsOf: asOf, Progress: &pr})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Passes) == 0 || p.Passes[0].ControlPlane.From != "1.29" || p.Passes[0].ControlPlane.To != "1.30" {
		t.Errorf("the gate's plan starts %+v; want the control plane stepping 1.29 → 1.30 first", p.Passes)
	}

	// reconcile's one-shot Applier reads them too.
	a, oneShot, err := NewOneShot(c.cfg, "sylva-planner-test", "", time.Now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(oneShot.Close)
	a.DryRun = true
	res, err := a.Apply(ctxFor(t), Target{Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	if cp, w, _, ok := res.Snapshot.Input.Observation.KubernetesMinors(); !ok || cp != "1.29" || w != "1.29" {
		t.Errorf("reconcile read minors %q, %q (%v); want 1.29, 1.29", cp, w, ok)
	}
}
