package planner_test

import (
	"os"
	"strings"
	"testing"

	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/skew"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

// A plan from a status whose HelmRelease failed its last upgrade (pass 2
// of 1.4 → 1.6 requested, UpgradeFailed) says which pass failed, with
// helm-controller's reason, is blocked, and its Next is the fix, not the
// reconcile that would say "already handled".
func TestAPlanFromAFailedPassSaysItFailed(t *testing.T) {
	data, err := os.ReadFile("../status/testdata/pass-pending-helmrelease-not-ready/input.yaml")
	if err != nil {
		t.Fatal(err)
	}
	obs, err := status.DecodeObservation(data, status.DefaultHelmRelease)
	if err != nil {
		t.Fatal(err)
	}
	pr := planner.ProgressOf(obs)
	p, err := planner.Compute(planner.Input{Catalog: defaultCatalog(t), To: skew.MustParse("1.6"), Progress: &pr, FromSource: string(status.SourceSylvaRelease)})
	if err != nil {
		t.Fatal(err)
	}
	var failed *planner.Finding
	for i, f := range p.Findings {
		if f.Code == planner.CodePassFailed {
			failed = &p.Findings[i]
		}
	}
	switch {
	case failed == nil:
		t.Fatalf("no %s finding; codes %v", planner.CodePassFailed, codes(p))
	case failed.Subject != "pass 2 of 2" || !strings.Contains(failed.Message, "UpgradeFailed"):
		t.Errorf("pass-failed on %q: %s; want pass 2 of 2 with helm-controller's reason", failed.Subject, failed.Message)
	}
	if p.Verdict != planner.VerdictBlocked {
		t.Errorf("verdict %s, want blocked", p.Verdict)
	}
	if !strings.Contains(p.Next, "flux reconcile helmrelease sylva-units -n sylva-system --force --reset") || strings.Contains(p.Next, "sylva-planner reconcile") {
		t.Errorf("Next = %q, want the fix (a forced reconcile with reset), not reconcile", p.Next)
	}
	if p.Position == nil || !strings.Contains(p.Position.Summary, "the last release failed") {
		t.Errorf("position %+v does not say the last release failed", p.Position)
	}
}
