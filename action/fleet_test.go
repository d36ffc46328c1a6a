package action_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"gitlab.com/sylva-projects/sylva-planner/action"
	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/internal/catalogtest"
	"gitlab.com/sylva-projects/sylva-planner/inventory"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

// fakeFleet serves the entries of a few release namespaces.
type fakeFleet struct{ entries []status.FleetEntry }

func (f fakeFleet) Fleet(context.Context) ([]status.FleetEntry, error) { return f.entries, nil }

func (fakeFleet) Input() string { return "status fake all namespaces" }

func fleetEntry(t *testing.T, ns, yaml string) status.FleetEntry {
	t.Helper()
	obs, err := status.DecodeObservation([]byte(yaml), status.DefaultHelmRelease)
	if err != nil {
		t.Fatal(err)
	}
	obs.Namespace = ns
	return status.FleetEntry{Namespace: ns, Observation: obs}
}

// TestFleetPlanPlansEachReleaseFromItsStatusReadingTheClusterOnce: the
// cluster is read once, and its facts judge the management cluster's
// release (sylva-system) only; the workload clusters' releases are
// planned without them.
func TestFleetPlanPlansEachReleaseFromItsStatusReadingTheClusterOnce(t *testing.T) {
	cluster := &fakeFacts{facts: &inventory.Facts{Source: "cluster fake", Inventory: &inventory.Inventory{}}}
	req := action.FleetPlanRequest{
		// To 1.5, which manages the 1.4 workload clusters while they wait
		// (1.6 would leave them unmanaged: TestFleetOrder).
		Plan: action.PlanRequest{Releases: action.Releases{Catalog: catalogtest.Default(t), To: "1.5", AsOf: asOf, ToolVersion: "test"}, Cluster: cluster, Gate: planner.GateOptions{FailOn: action.FailOnBlocker}},
		Source: fakeFleet{entries: []status.FleetEntry{
			fleetEntry(t, "sylva-system", status14),
			fleetEntry(t, "wc1", status14),
			fleetEntry(t, "wc2", status14),
			{Namespace: "fresh", Observation: status.Observation{Namespace: "fresh", FluxRead: true}},
		}},
		Rerun:     "kubectl sylva-planner plan --all-namespaces --to 1.5",
		Selection: envelope.Selection{Program: "kubectl sylva-planner"},
	}
	fp, plans, err := req.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if cluster.reads != 1 {
		t.Errorf("cluster read %d times for three plans, want 1", cluster.reads)
	}
	var namespaces, judged []string
	for _, p := range plans {
		if p.Plan == nil {
			// A release that could not be planned has no gauges.
			continue
		}
		namespaces = append(namespaces, p.Namespace)
		if p.Plan.From.Release != "1.4" {
			t.Errorf("plan of %s from %s, want 1.4 (its status)", p.Namespace, p.Plan.From.Release)
		}
		if slices.Contains(p.Plan.Metadata.Inputs, "cluster fake") {
			judged = append(judged, p.Namespace)
		}
	}
	if diff := cmp.Diff([]string{"sylva-system", "wc1", "wc2"}, namespaces); diff != "" {
		t.Errorf("plans by namespace (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"sylva-system"}, judged); diff != "" || fp.FactsNamespace != "sylva-system" {
		t.Errorf("plans judged on the cluster's facts (-want +got):\n%s; facts namespace %q", diff, fp.FactsNamespace)
	}
	if len(fp.Releases) != 4 || fp.Metadata.ToolVersion != "test" {
		t.Errorf("fleet plan of %d releases by tool %q, want 4 by test", len(fp.Releases), fp.Metadata.ToolVersion)
	}
	var table strings.Builder
	if err := fp.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "judge the plan of sylva-system only") {
		t.Errorf("the table does not say which release the cluster's facts judge:\n%s", table.String())
	}
	// The command that checks a workload cluster's drains says what to
	// fill in, and runs the tool as the user does.
	if want := "there, filling in its kubeconfig: kubectl sylva-planner drain-check --kubeconfig <the workload cluster's kubeconfig>\n"; !strings.Contains(table.String(), want) {
		t.Errorf("the table does not end with %q:\n%s", want, table.String())
	}
	// The plans pass and the waves exist; the namespace where nothing is
	// installed has no plan and does not make the fleet unevaluated.
	if got := action.FleetOutcome(fp); got != action.OutcomePass {
		t.Errorf("FleetOutcome() = %s, want %s", got, action.OutcomePass)
	}
}

// statusOn is a status ConfigMap that says release rel is installed.
func statusOn(rel string) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: sylva-units-status}\ndata: {sylva_release: \"" + rel + "\"}\n"
}

// The fleet's order, on a fleet of a management cluster on 1.4 and
// workload clusters on 1.3, 1.4 (two) and 1.6: the 1.6 one is ahead of its
// management cluster (a blocker naming both). To 1.6, which manages 1.5
// and 1.6 only, the 1.3 and 1.4 clusters would be stranded: they must reach
// 1.5 first, which they cannot while the management cluster is on 1.4 (a
// blocker naming them and 1.5, with plan -A --to 1.5 as the fix). To 1.5:
// the 1.3 cluster moves to 1.4 now, the management cluster goes to 1.5,
// then the workload clusters follow. Workload releases are planned as
// workload clusters, the management one as the management cluster.
func TestFleetOrder(t *testing.T) {
	entries := []status.FleetEntry{
		fleetEntry(t, "sylva-system", statusOn("1.4")),
		fleetEntry(t, "wl-13", statusOn("1.3")),
		fleetEntry(t, "wl-14a", statusOn("1.4")),
		fleetEntry(t, "wl-14b", statusOn("1.4")),
		fleetEntry(t, "wl-16", statusOn("1.6")),
	}
	run := func(to string) planner.FleetPlan {
		t.Helper()
		req := action.FleetPlanRequest{
			Plan:   action.PlanRequest{Releases: action.Releases{Catalog: catalogtest.Default(t), To: to, AsOf: asOf, ToolVersion: "test"}, Gate: planner.GateOptions{FailOn: action.FailOnBlocker}},
			Source: fakeFleet{entries: entries},
		}
		fp, _, err := req.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return fp
	}
	findings := func(fp planner.FleetPlan) []string {
		var out []string
		for _, f := range fp.Findings {
			out = append(out, f.Code+" "+f.Subject)
		}
		return out
	}
	waves := func(fp planner.FleetPlan) []string {
		var out []string
		for _, w := range fp.Waves {
			out = append(out, fmt.Sprintf("%s→%s %s", w.Kind, w.To, strings.Join(w.Namespaces, ",")))
		}
		return out
	}

	to16 := run("1.6")
	if diff := cmp.Diff([]string{"fleet-order-impossible wl-13 (on 1.3), wl-14a (on 1.4), wl-14b (on 1.4)", "workload-ahead-of-management wl-16"}, findings(to16)); diff != "" {
		t.Errorf("fleet findings to 1.6 (-want +got):\n%s", diff)
	}
	for _, f := range to16.Findings {
		if f.Code == planner.CodeFleetOrder && (!strings.Contains(f.Message, "must reach 1.5 first") || !strings.Contains(f.Remediation, "plan -A --to 1.5")) {
			t.Errorf("fleet-order-impossible says %q, fix %q; want the release to reach (1.5) and plan -A --to 1.5", f.Message, f.Remediation)
		}
		if f.Code == planner.CodeWorkloadAhead && (!strings.Contains(f.Message, "sylva-system") || !strings.Contains(f.Message, "1.6")) {
			t.Errorf("workload-ahead-of-management says %q; want both clusters named", f.Message)
		}
	}
	if got := action.FleetOutcome(to16); got != action.OutcomeFail {
		t.Errorf("FleetOutcome to 1.6 = %s, want fail", got)
	}

	to15 := run("1.5")
	if diff := cmp.Diff([]string{"now→1.4 wl-13", "management→1.5 sylva-system", "after-management→1.5 wl-13,wl-14a,wl-14b"}, waves(to15)); diff != "" {
		t.Errorf("waves to 1.5 (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"workload-ahead-of-management wl-16"}, findings(to15)); diff != "" {
		t.Errorf("fleet findings to 1.5 (-want +got):\n%s", diff)
	}
	kinds := map[string]planner.ClusterKind{}
	for _, r := range to15.Releases {
		if r.Plan != nil {
			kinds[r.Namespace] = r.Plan.Cluster.Kind
		}
	}
	if kinds["sylva-system"] != planner.ClusterManagement || kinds["wl-14a"] != planner.ClusterWorkload {
		t.Errorf("cluster kinds %v, want sylva-system management and the others workload", kinds)
	}
	var table strings.Builder
	if err := to15.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Waves (the fleet's order):", "1. now → 1.4: wl-13", "2. management → 1.5: sylva-system", "Fleet findings:"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, table.String())
		}
	}
}
