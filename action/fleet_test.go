package action_test

import (
	"context"
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

func TestFleetPlanPlansEachReleaseFromItsStatusReadingTheClusterOnce(t *testing.T) {
	cluster := &fakeFacts{facts: &inventory.Facts{Source: "cluster fake", Inventory: &inventory.Inventory{}}}
	req := action.FleetPlanRequest{
		Plan: action.PlanRequest{Catalog: defaultCatalog(t), To: "1.6", AsOf: asOf, ToolVersion: "test", Cluster: cluster, Gate: planner.GateOptions{FailOn: action.FailOnBlocker}},
		Source: fakeFleet{entries: []status.FleetEntry{
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
		t.Errorf("cluster read %d times for two plans, want 1", cluster.reads)
	}
	var namespaces []string
	for _, p := range plans {
		if p.Plan == nil {
			// A release that could not be planned has no gauges.
			continue
		}
		namespaces = append(namespaces, p.Namespace)
		if p.Plan.From.Release != "1.4" {
			t.Errorf("plan of %s from %s, want 1.4 (its status)", p.Namespace, p.Plan.From.Release)
		}
	}
	if diff := cmp.Diff([]string{"wc1", "wc2"}, namespaces); diff != "" {
		t.Errorf("plans by namespace (-want +got):\n%s", diff)
	}
	if len(fp.Releases) != 3 || fp.Metadata.ToolVersion != "test" {
		t.Errorf("fleet plan of %d releases by tool %q, want 3 by test", len(fp.Releases), fp.Metadata.ToolVersion)
	}
	// Both plans pass; the namespace where nothing is installed has no
	// plan and does not make the fleet unevaluated.
	if got := action.FleetOutcome(fp); got != action.OutcomePass {
		t.Errorf("FleetOutcome() = %s, want %s", got, action.OutcomePass)
	}
}
