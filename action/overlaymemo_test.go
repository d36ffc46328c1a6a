package action_test

import (
	"context"
	"fmt"
	"testing"

	"gitlab.com/sylva-projects/sylva-planner/action"
	"gitlab.com/sylva-projects/sylva-planner/internal/catalogtest"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

// plan -A asks once per distinct input whether values generate can write
// a release's helper values: a fleet of many workload clusters holds few
// distinct (release, minors) inputs, and ten times the clusters of each
// costs ten times the release plans and no more overlays.
func TestPlanAllGeneratesEachDistinctOverlayOnce(t *testing.T) {
	cat := catalogtest.Default(t)
	fleet := func(perMinor int) []status.FleetEntry {
		entries := []status.FleetEntry{fleetEntry(t, status.DefaultNamespace, statusOn("1.4"))}
		for i := range perMinor {
			for _, v := range []string{"v1.29.15", "v1.30.14", "v1.31.8"} {
				ns := fmt.Sprintf("wl-%s-%d", v, i)
				e := fleetEntry(t, ns, statusOn("1.4"))
				e.Observation.Add(status.CAPIObject{Kind: "KubeadmControlPlane", Namespace: ns, Name: ns + "-control-plane", Version: v})
				e.Observation.Add(status.CAPIObject{Kind: status.KindMachineDeployment, Namespace: ns, Name: ns + "-md0", Version: v})
				entries = append(entries, e)
			}
		}
		return entries
	}
	computed := func(entries []status.FleetEntry) int64 {
		t.Helper()
		req := action.FleetPlanRequest{
			Plan:   action.PlanRequest{Releases: action.Releases{Catalog: cat, To: "1.5", AsOf: asOf, ToolVersion: "test"}, Gate: planner.GateOptions{FailOn: action.FailOnBlocker}},
			Source: fakeFleet{entries: entries},
		}
		before := planner.Computations()
		fp, _, err := req.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range fp.Releases {
			if r.Plan == nil {
				t.Fatalf("release %s not planned: %+v", r.Namespace, r)
			}
		}
		return planner.Computations() - before
	}
	one, ten := computed(fleet(1)), computed(fleet(10))
	// Each of the 27 more releases adds its own plan, nothing else.
	if got := ten - one; got != 27 {
		t.Errorf("plan -A of 31 releases computed %d plans more than of 4 (%d), want 27: one per release added", got, one)
	}
}
