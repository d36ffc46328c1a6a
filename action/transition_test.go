package action_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"gitlab.com/sylva-projects/sylva-planner/action"
	"gitlab.com/sylva-projects/sylva-planner/ci"
	"gitlab.com/sylva-projects/sylva-planner/internal/catalogtest"
	"gitlab.com/sylva-projects/sylva-planner/inventory"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/reconciler"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

func findingCodes(fs []status.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Code)
	}
	return out
}

// TestATargetNewerThanTheCatalogIsNotPlacedButSaidAsPlanSaysIt: plan
// reads a target past the catalog's newest release (1.7) as a kb-stale
// warning; status --to, status -A --to and reconcile --to place nothing
// in that plan (planner.Locate returns no position for it) and say so with
// the same finding, instead of failing.
func TestATargetNewerThanTheCatalogIsNotPlacedButSaidAsPlanSaysIt(t *testing.T) {
	cat := catalogtest.Default(t)
	for _, tc := range []struct {
		name, yaml, to string
	}{
		{"a settled cluster on 1.4, to 1.8", status14, "1.8"},
		{"a cluster in the middle of the hop 1.5 → 1.7, to 1.8", pendingPass, "1.8"},
		{"a cluster in the middle of the hop 1.5 → 1.7, to 2.0", pendingPass, "2.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := action.PlanRequest{Releases: action.Releases{Catalog: cat, To: tc.to, AsOf: asOf}, Status: &fakeStatus{yaml: tc.yaml}}.Run(context.Background())
			if err != nil {
				t.Fatalf("plan: %v", err)
			}
			var want []status.Finding
			for _, f := range p.Findings {
				if f.Code == planner.CodeKBStale {
					want = append(want, f)
				}
			}
			if len(want) != 1 {
				t.Fatalf("plan codes = %v, want one %s", codes(p), planner.CodeKBStale)
			}

			req := action.StatusRequest{Source: &fakeStatus{yaml: tc.yaml}, Catalog: cat, To: tc.to, AsOf: asOf}
			rep, err := req.Run(context.Background())
			if err != nil {
				t.Fatalf("StatusRequest.Run: %v", err)
			}
			tr := rep.Transition
			if tr == nil || tr.PassKnown || len(tr.Route) != 0 || tr.Target != tc.to || !tr.Unjudged() {
				t.Fatalf("transition = %+v, want one to %s, not placed, without a route", tr, tc.to)
			}
			if diff := cmp.Diff(want, tr.Findings); diff != "" {
				t.Errorf("transition findings (-want plan's +got):\n%s", diff)
			}
			if !strings.Contains(tr.Summary, want[0].Remediation) {
				t.Errorf("summary %q does not give the fix %q", tr.Summary, want[0].Remediation)
			}
			if got := findingCodes(rep.Findings); !slices.Contains(got, planner.CodeKBStale) {
				t.Errorf("status codes = %v, want %s among them", got, planner.CodeKBStale)
			}

			// reconcile decides from a file with the Flux objects.
			doc, outcome, err := action.ReconcileRequest{
				Target: reconciler.Target{Namespace: "sylva-system", HelmRelease: status.DefaultHelmRelease},
				Status: &fakeStatus{yaml: pendingPass}, File: "ns.yaml", DryRun: true, Document: true,
				Locate: req.Locate,
			}.Run(context.Background())
			if err != nil || outcome != action.OutcomePass {
				t.Fatalf("reconcile --to %s: outcome %q, error %v; want a dry run", tc.to, outcome, err)
			}
			if doc.Transition == nil || !doc.Transition.Unjudged() {
				t.Errorf("reconcile transition = %+v, want not placed with a finding", doc.Transition)
			}
		})
	}
}

func TestStatusAllNamespacesToATargetNewerThanTheCatalog(t *testing.T) {
	fleet, err := action.FleetStatusRequest{
		Source: fakeFleet{entries: []status.FleetEntry{
			fleetEntry(t, "sylva-system", pendingPass),
			fleetEntry(t, "wc1", status14),
			{Namespace: "fresh", Observation: status.Observation{Namespace: "fresh", FluxRead: true}},
		}},
		To: "1.8", Catalog: catalogtest.Default(t), AsOf: asOf,
	}.Run(context.Background())
	if err != nil {
		t.Fatalf("FleetStatusRequest.Run: %v", err)
	}
	for _, r := range fleet.Releases {
		tr := r.Transition
		switch {
		case tr == nil || r.TransitionError != "":
			t.Errorf("%s: transition %+v, error %q; want it placed", r.Namespace, tr, r.TransitionError)
		case r.Namespace == "fresh":
			if tr.Unjudged() {
				t.Errorf("fresh: transition %+v, want a fresh install", tr)
			}
		default:
			if got := findingCodes(tr.Findings); !tr.Unjudged() || !cmp.Equal(got, []string{planner.CodeKBStale}) {
				t.Errorf("%s: transition codes = %v (placed %t), want [%s], not placed", r.Namespace, got, tr.PassKnown, planner.CodeKBStale)
			}
		}
	}
}

// TestLocateNamesToOnce: an error the planner words about --to is given
// as plan gives it, with one prefix; other errors get the target.
func TestLocateNamesToOnce(t *testing.T) {
	cat := catalogtest.Default(t)
	// A settled 1.7: --to 1.6 is a downgrade.
	cm, err := status.Decode([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: sylva-units-status, namespace: sylva-system}\ndata: {sylva_release: \"1.7\"}\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ to, want string }{
		{"0.9", "--to: release 0.9 is not in the catalog (known: 1.0 … 1.7); releases before 1.0 are not covered"},
		{"1.x", `--to: version "1.x"`},
		{"1.6", "--to 1.6: the status names release 1.7, newer than the target: Sylva does not support downgrades; give --to 1.7 or a later release"},
	} {
		_, err := action.StatusRequest{Catalog: cat, To: tc.to, AsOf: asOf}.Locate(status.Observation{ConfigMap: cm})
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Locate(--to %s) error = %v, want it to start with %q", tc.to, err, tc.want)
		}
		if err != nil && strings.Count(err.Error(), "--to") > strings.Count(tc.want, "--to") {
			t.Errorf("Locate(--to %s) error = %v names --to more than once", tc.to, err)
		}
	}
}

// TestVerifyToATargetNewerThanTheCatalogIsAnErrorNamingTo: verify has no
// final state of such a target to check the cluster against (the plan has
// no Kubernetes version for it), whether a pass is pending or not.
func TestVerifyToATargetNewerThanTheCatalogIsAnErrorNamingTo(t *testing.T) {
	for _, tc := range []struct{ name, yaml string }{
		{"a settled status", status14},
		{"a status with a pass pending", pendingPass},
	} {
		t.Run(tc.name, func(t *testing.T) {
			facts := &fakeFacts{facts: &inventory.Facts{Source: "cluster fake", Inventory: &inventory.Inventory{}}}
			var v *ci.Verification
			var err error
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("verify --to 1.8 panicked: %v", r)
					}
				}()
				v, err = action.VerifyRequest{
					Releases: action.Releases{Catalog: catalogtest.Default(t), From: "1.6", To: "1.8", AsOf: asOf},
					Status:   &fakeStatus{yaml: tc.yaml}, Facts: facts,
				}.Run(context.Background())
			}()
			if err == nil {
				t.Fatalf("verify --to 1.8 = %+v, want an error", v)
			}
			for _, want := range []string{"--to 1.8: ", planner.CodeKBStale, "--catalog"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q is not one line", err)
			}
		})
	}
}
