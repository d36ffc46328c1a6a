package action_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"gitlab.com/sylva-projects/sylva-planner/action"
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
		Plan: action.PlanRequest{Catalog: defaultCatalog(t), To: "1.6", AsOf: asOf, ToolVersion: "test", Cluster: cluster, Gate: planner.GateOptions{FailOn: action.FailOnBlocker}},
		Source: fakeFleet{entries: []status.FleetEntry{
			fleetEntry(t, "sylva-system", status14),
			fleetEntry(t, "wc1", status14),
			fleetEntry(t, "wc2", status14),
			{Namespace: "fresh", Observation: status.Observation{Namespace: "fresh", FluxRead: true}},
		}},
		Rerun: "sylva-planner plan --all-namespaces --to 1.6",
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
	// Both plans pass; the namespace where nothing is installed has no
	// plan and does not make the fleet unevaluated.
	if got := action.FleetOutcome(fp); got != action.OutcomePass {
		t.Errorf("FleetOutcome() = %s, want %s", got, action.OutcomePass)
	}
}
