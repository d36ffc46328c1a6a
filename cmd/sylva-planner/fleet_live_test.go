package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"gitlab.com/sylva-projects/sylva-planner/internal/kubetest"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

// TestFleetOnARealAPIServer: status -A and plan -A list every release
// namespace of a real API server, a malformed ConfigMap being one row
// saying so and a missing HelmRelease an absence, and plan -A writes the
// gate's gauges by namespace.
func TestFleetOnARealAPIServer(t *testing.T) {
	cfg := kubetest.Config(t)
	kc := kubetest.WriteKubeconfig(t, cfg)
	pending := reconcileFixture(t, cfg) // 1.5, a pass asked for, Ready objects
	malformed := kubetest.Namespace(t, cfg)
	createStatus(t, cfg, malformed, map[string]string{"sylva_release": "1.5", "additional_reconciliation_required": "maybe"})
	noHelmRelease := kubetest.Namespace(t, cfg)
	createStatus(t, cfg, noHelmRelease, map[string]string{"sylva_release": "1.4", "release-revision": "2"})

	code, out, errOut := runReconcileCLI(kc, "status", "-A", "-o", "json")
	if code != exitOK {
		t.Fatalf("status -A: exit %d\n%s%s", code, out, errOut)
	}
	var fleet struct {
		Kind     string            `json:"kind"`
		Releases []status.FleetRow `json:"releases"`
	}
	if err := json.Unmarshal([]byte(out), &fleet); err != nil || fleet.Kind != status.FleetKind {
		t.Fatalf("status -A -o json: kind %q, %v\n%s", fleet.Kind, err, out)
	}
	rows := map[string]status.FleetRow{}
	for _, r := range fleet.Releases {
		rows[r.Namespace] = r
	}
	if r := rows[pending]; r.State != status.StatePassPending || !r.CanStartNow || !strings.Contains(r.Next, "reconcile -n "+pending+" --kubeconfig") && !strings.Contains(r.Next, "reconcile --kubeconfig "+kc+" -n "+pending) {
		t.Errorf("row %s = %+v, want a pending pass that can start, reconcile suggested in its namespace on the same cluster", pending, r)
	}
	if r := rows[malformed]; r.State != status.StateUnreadable || !strings.Contains(r.Error, `data key "additional_reconciliation_required"`) {
		t.Errorf("row %s = %+v, want unreadable naming the key", malformed, r)
	}
	if r := rows[noHelmRelease]; r.CanStartNow || !slices.Contains(r.Reasons, "HelmRelease sylva-units is absent from "+noHelmRelease) {
		t.Errorf("row %s = %+v, want the HelmRelease absent", noHelmRelease, r)
	}

	metrics := filepath.Join(t.TempDir(), "gate.prom")
	code, out, errOut = runReconcileCLI(kc, "plan", "-A", "--to", "1.6", "--as-of", "2026-11-30", "--fail-on", "never", "-o", "json", "--metrics-file", metrics)
	if code != exitGateFail {
		t.Errorf("plan -A with an unreadable status: exit %d, want %d\n%s", code, exitGateFail, errOut)
	}
	// The plans are read as far as this test needs: a plan document is
	// not planner.Plan's Go form.
	type row struct {
		Namespace string           `json:"namespace"`
		Standing  planner.Standing `json:"standing"`
		Plan      *struct {
			From     planner.Endpoint `json:"from"`
			Position *json.RawMessage `json:"position"`
		} `json:"plan"`
	}
	var fp struct {
		Kind     string `json:"kind"`
		Releases []row  `json:"releases"`
	}
	if err := json.Unmarshal([]byte(out), &fp); err != nil || fp.Kind != planner.FleetPlanKind {
		t.Fatalf("plan -A -o json: kind %q, %v\n%s%s", fp.Kind, err, out, errOut)
	}
	var order []string
	standing := map[string]row{}
	for _, r := range fp.Releases {
		order = append(order, string(r.Standing))
		standing[r.Namespace] = r
	}
	ranks := []string{"ready", "in-progress", "held", "blocked", "unknown", "done", "unplanned"}
	if !slices.IsSortedFunc(order, func(a, b string) int { return slices.Index(ranks, a) - slices.Index(ranks, b) }) {
		t.Errorf("plan -A order %q, want what can start now first", order)
	}
	if r := standing[malformed]; r.Standing != planner.StandingUnplanned || r.Plan != nil {
		t.Errorf("plan -A row %s = %+v, want unplanned", malformed, r)
	}
	if r := standing[pending]; r.Plan == nil || r.Plan.From.Release != "1.5" || r.Plan.Position == nil {
		t.Errorf("plan -A row %s: plan %+v, want one from 1.5 placed from the status", pending, r.Plan)
	}
	data, err := os.ReadFile(metrics)
	if err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{pending, noHelmRelease} {
		if !strings.Contains(string(data), `namespace="`+ns+`"`) {
			t.Errorf("--metrics-file has no series for namespace %s:\n%s", ns, data)
		}
	}
	// The release that could not be planned has its verdict unknown, and
	// no passes.
	if !strings.Contains(string(data), `namespace="`+malformed+`",to="1.6",verdict="unknown"} 1`) {
		t.Errorf("--metrics-file has no verdict-unknown series for %s, which could not be planned:\n%s", malformed, data)
	}
	if strings.Contains(string(data), `sylva_planner_passes{cluster="workload",from="",namespace="`+malformed+`"`) {
		t.Errorf("--metrics-file has passes for %s, which has no plan", malformed)
	}

	// The fleet from a file, the facts from the cluster of --kubeconfig
	// (the environment names no other).
	list := filepath.Join(t.TempDir(), "fleet.yaml")
	writeTestFile(t, list, "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: sylva-units-status, namespace: sylva-system}\n  data: {sylva_release: \"1.5\", release-revision: \"3\"}\n")
	code, out, errOut = runReconcileCLI(kc, "plan", "-A", "--status", list, "--to", "1.6", "--as-of", "2026-11-30", "--fail-on", "never", "-o", "json")
	if code == exitError || !strings.Contains(out, "cluster live (context ") {
		t.Errorf("plan -A --status FILE --kubeconfig: exit %d, want the plan of sylva-system judged on the cluster's facts\n%s%s", code, out, errOut)
	}
}

func createStatus(t *testing.T, cfg *rest.Config, ns string, data map[string]string) {
	t.Helper()
	cs := kubernetes.NewForConfigOrDie(cfg)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: status.ConfigMapName, Namespace: ns}, Data: data}
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(context.Background(), cm, metav1.CreateOptions{FieldManager: status.ChartWriter}); err != nil {
		t.Fatal(err)
	}
}

func writeTestFile(t *testing.T, name, text string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
