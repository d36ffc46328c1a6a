package planner_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/internal/catalogtest"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
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
	pr := planner.TransitionStateOf(obs)
	p, err := planner.Compute(planner.Input{Catalog: catalogtest.Default(t), To: semver.MustParse("1.6"), Progress: &pr, FromSource: string(status.SourceSylvaRelease)})
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

// catalogWith11To14 is the embedded catalog in which 1.4 also supports
// upgrades from 1.1: three passes, Kubernetes 1.28 → 1.29 → 1.30 → 1.31,
// and 1.4's components (calico and cert-manager need Kubernetes 1.29 or
// newer) arrive in pass 1, while the control plane still runs 1.28.
func catalogWith11To14(t *testing.T) *catalog.Catalog {
	t.Helper()
	fsys := fstest.MapFS{}
	for _, name := range []string{"components.yaml", "releases.yaml"} {
		b, err := os.ReadFile(filepath.Join("..", "catalog", "data", name))
		if err != nil {
			t.Fatal(err)
		}
		fsys[name] = &fstest.MapFile{Data: b}
	}
	const from, to = "  - release: \"1.4\"\n    upgrade_from: [\"1.3\"]\n", "  - release: \"1.4\"\n    upgrade_from: [\"1.1\", \"1.3\"]\n"
	fsys["releases.yaml"].Data = []byte(strings.Replace(string(fsys["releases.yaml"].Data), from, to, 1))
	cat, err := catalog.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// Findings about passes the status says are done do not block the rest:
// 1.4's calico and cert-manager on the 1.28 control plane of pass 1 of 1.1
// → 1.4 block the plan before it starts; once pass 1 is done, the plan
// placed at pass 2 no longer names them.
func TestDonePassesDoNotBlockTheRest(t *testing.T) {
	cat := catalogWith11To14(t)
	rangeSubjects := func(p *planner.Plan) []string {
		var out []string
		for _, f := range p.Findings {
			if f.Code == planner.CodeComponentK8sRange {
				out = append(out, f.Subject+": "+f.Message)
			}
		}
		return out
	}
	before, err := planner.Compute(planner.Input{Catalog: cat, From: semver.MustParse("1.1"), To: semver.MustParse("1.4")})
	if err != nil {
		t.Fatal(err)
	}
	if len(before.Passes) != 3 || len(rangeSubjects(before)) == 0 {
		t.Fatalf("plan 1.1 → 1.4: %d passes, range findings %v; want 3 passes and calico/cert-manager on 1.28 in pass 1", len(before.Passes), rangeSubjects(before))
	}
	pr := planner.TransitionState{Found: true, Installed: semver.MustParse("1.4"), Pending: true, TransitionFrom: "1.1", TransitionPass: "1"}
	mid, err := planner.Compute(planner.Input{Catalog: cat, To: semver.MustParse("1.4"), Progress: &pr, FromSource: string(status.SourceSylvaRelease)})
	if err != nil {
		t.Fatal(err)
	}
	if mid.Position == nil || mid.Position.PassesDone != 1 {
		t.Fatalf("position %+v, want pass 1 done", mid.Position)
	}
	if got := rangeSubjects(mid); len(got) != 0 {
		t.Errorf("after pass 1, range findings %v; want none (they were about pass 1)", got)
	}
	if mid.Verdict == planner.VerdictBlocked {
		t.Errorf("after pass 1 the plan is blocked: %v", codes(mid))
	}
}

// A status whose data contradicts the additional-info the chart wrote (a
// hand edit setting additional_reconciliation_required "false" after pass
// 1 of 2) is never read as done: the plan names the contradiction and the
// fix, is not placed and is blocked; status reports it too.
func TestAStatusThatContradictsItselfIsNeverDone(t *testing.T) {
	cm, err := status.Decode([]byte(`apiVersion: v1
kind: ConfigMap
metadata: {name: sylva-units-status, namespace: sylva-system}
data:
  sylva_release: "1.6"
  additional_reconciliation_required: "false"
  release-revision: "8"
  additional-info: |
    sylva_release: "1.6"
    additional_reconciliation_required: "true"
    transition_from: "1.4"
    transition_pass: "1"
`))
	if err != nil {
		t.Fatal(err)
	}
	obs := status.Observation{Namespace: "sylva-system", ConfigMap: cm}
	pr := planner.TransitionStateOf(obs)
	p, err := planner.Compute(planner.Input{Catalog: catalogtest.Default(t), To: semver.MustParse("1.6"), Progress: &pr, FromSource: string(status.SourceSylvaRelease)})
	if err != nil {
		t.Fatal(err)
	}
	if p.Position == nil || p.Position.PassKnown || p.Position.Next != nil || !strings.Contains(p.Position.Summary, `additional_reconciliation_required: data "false", additional-info "true"`) {
		t.Errorf("position %+v, want not placed, naming the contradiction", p.Position)
	}
	if p.Verdict != planner.VerdictBlocked || !slices.Contains(codes(p), planner.CodeStatusContradiction) {
		t.Errorf("verdict %s, codes %v; want blocked by %s", p.Verdict, codes(p), planner.CodeStatusContradiction)
	}
	rep := status.Interpret(obs)
	if !slices.ContainsFunc(rep.Findings, func(f status.Finding) bool { return f.Code == status.CodeContradiction }) {
		t.Errorf("status findings %v, want %s", rep.Findings, status.CodeContradiction)
	}
}
