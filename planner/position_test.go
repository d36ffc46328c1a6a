package planner_test

import (
	"slices"
	"strings"
	"testing"

	"gitlab.com/sylva-projects/sylva-planner/internal/catalogtest"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
)

func TestLocate(t *testing.T) {
	tests := []struct {
		name       string
		to         string
		pr         planner.TransitionState
		done, of   int
		known      bool
		nextK8s    string
		summaryHas string
	}{
		{
			"a 1.4 cluster has not started the n-2 transition", "1.6",
			planner.TransitionState{Found: true, Installed: semver.MustParse("1.4")},
			0, 2, true, "1.32", "pass 0 of 2 done",
		},
		{
			"after pass 1 of 1.4 → 1.6 the second pass comes next", "1.6",
			planner.TransitionState{Found: true, Installed: semver.MustParse("1.6"), Pending: true, TransitionFrom: "1.4", TransitionPass: "1"},
			1, 2, true, "1.33", "an additional reconciliation",
		},
		{
			"after pass 2 of 1.5 → 1.7 the third pass comes next", "1.7",
			planner.TransitionState{Found: true, Installed: semver.MustParse("1.7"), Pending: true, TransitionFrom: "1.5", TransitionPass: "2"},
			2, 3, true, "1.35", "pass 2 of 3 done",
		},
		{
			"a cluster in the hop to 1.6 goes on through 1.6 on its way to 1.7", "1.7",
			planner.TransitionState{Found: true, Installed: semver.MustParse("1.6"), Pending: true, TransitionFrom: "1.4", TransitionPass: "1"},
			1, 4, true, "1.33", "pass 1 of 4 done",
		},
		{
			"a transition_pass the hop does not have cannot be placed", "1.6",
			planner.TransitionState{Found: true, Installed: semver.MustParse("1.6"), Pending: true, TransitionFrom: "1.4", TransitionPass: "2"},
			0, 2, false, "", "which takes 2 pass(es) in the plan to 1.6: the status and the plan disagree",
		},
		{
			"a transition_pass that is no number is malformed, not another catalog's", "1.6",
			planner.TransitionState{Found: true, Installed: semver.MustParse("1.6"), Pending: true, TransitionFrom: "1.4", TransitionPass: "abc"},
			0, 2, false, "", `its transition_pass "abc" is not a pass number: the status is malformed`,
		},
		{
			"a hop from the installed release to itself cannot be placed", "1.7",
			planner.TransitionState{Found: true, Installed: semver.MustParse("1.6"), Pending: true, TransitionFrom: "1.6", TransitionPass: "1"},
			0, 0, false, "", "the status is inconsistent: it asks for a further pass of a hop from 1.6 to 1.6",
		},
		{
			"a pass being applied keeps the place the status says, and says so", "1.6",
			planner.TransitionState{Found: true, Installed: semver.MustParse("1.6"), Pending: true, TransitionFrom: "1.4", TransitionPass: "1", Applying: "target-release-revision 8, status release-revision 7"},
			1, 2, true, "1.33", "next: pass 2, an additional reconciliation of sylva-units: control plane 1.32 → 1.33, k8s_version_short 1.33; a release is being applied now (target-release-revision 8, status release-revision 7), so the status still describes the one before it",
		},
		{
			"a settled cluster is done", "1.6",
			planner.TransitionState{Found: true, Installed: semver.MustParse("1.6")},
			0, 0, true, "", "done",
		},
		{
			// As a chart that runs its own transition writes the status
			// (the epic's illustration): 1.6 takes two passes from 1.4,
			// one from 1.5.
			"a pending pass without transition keys is placed when one hop of the catalog takes a further pass", "1.6",
			planner.TransitionState{Found: true, Installed: semver.MustParse("1.6"), Pending: true},
			1, 2, true, "1.33", "pass 1 of 2 done; next: pass 2, an additional reconciliation of sylva-units: control plane 1.32 → 1.33, k8s_version_short 1.33 (the status records no transition_from/transition_pass; the only hop of the catalog into 1.6 that takes a further pass is 1.4 → 1.6 (2 passes), so pass 1 is done)",
		},
		{
			"a pending pass without transition keys cannot be placed when several hops take a further pass", "1.7",
			planner.TransitionState{Found: true, Installed: semver.MustParse("1.7"), Pending: true},
			0, 0, false, "", "the status records no transition_from/transition_pass and the catalog leaves several passes possible: after pass 1 to 2 of 3 from 1.5; after pass 1 of 2 from 1.6: the pass cannot be placed",
		},
		{
			"a pending pass without transition keys cannot be placed when no hop takes a further pass", "1.5",
			planner.TransitionState{Found: true, Installed: semver.MustParse("1.5"), Pending: true},
			0, 0, false, "", "the status records no transition_from/transition_pass and no hop of the catalog into 1.5 takes more than one pass: the pass cannot be placed",
		},
		{
			"a fresh install has no transition", "1.6",
			planner.TransitionState{},
			0, 0, false, "", "fresh install",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pos, err := planner.Locate(planner.Input{Catalog: catalogtest.Default(t), To: semver.MustParse(tt.to), AsOf: asOf}, tt.pr)
			if err != nil {
				t.Fatal(err)
			}
			if pos.PassesDone != tt.done || (tt.of != 0 && pos.Passes != tt.of) || pos.PassKnown != tt.known {
				t.Errorf("Locate = %d of %d (known %v), want %d of %d (known %v)", pos.PassesDone, pos.Passes, pos.PassKnown, tt.done, tt.of, tt.known)
			}
			next := ""
			if pos.Next != nil {
				next = pos.Next.Values.K8sVersionShort
			}
			if next != tt.nextK8s {
				t.Errorf("next pass k8s_version_short = %q, want %q", next, tt.nextK8s)
			}
			if !strings.Contains(pos.Summary, tt.summaryHas) {
				t.Errorf("summary %q does not contain %q", pos.Summary, tt.summaryHas)
			}
		})
	}
}

// TestPlanFromAHalfDoneTransition: a plan whose source release is read
// from a status that asks for a further pass counts the passes done and
// says the next one is pending; it never reads as already on the target.
func TestPlanFromAHalfDoneTransition(t *testing.T) {
	tests := []struct {
		name     string
		to       string
		pr       planner.TransitionState
		from     string
		done     int
		nextHas  string
		sameRel  bool
		position string
	}{
		{
			"pass 1 of 2 done on the way to 1.6", "1.6",
			planner.TransitionState{Found: true, Installed: semver.MustParse("1.6"), Pending: true, TransitionFrom: "1.4", TransitionPass: "1"},
			"1.4", 1, "pass 2 of 2 is pending", false, "assessed",
		},
		{
			"a finished transition is already on 1.6", "1.6",
			planner.TransitionState{Found: true, Installed: semver.MustParse("1.6"), TransitionFrom: "1.4", TransitionPass: "2"},
			"1.6", 0, "nothing to do", true, "assessed",
		},
		{
			"a pending pass without transition keys is placed from the one hop that takes a further pass", "1.6",
			planner.TransitionState{Found: true, Installed: semver.MustParse("1.6"), Pending: true},
			"1.4", 1, "pass 2 of 2 is pending", false, "assessed",
		},
		{
			"a pending pass without transition keys that several hops could take is not judged", "1.7",
			planner.TransitionState{Found: true, Installed: semver.MustParse("1.7"), Pending: true},
			"1.7", 0, "cannot be placed", false, "not-assessed",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pr := tt.pr
			p, err := planner.Compute(planner.Input{Catalog: catalogtest.Default(t), From: pr.Installed, To: semver.MustParse(tt.to), Progress: &pr, AsOf: asOf})
			if err != nil {
				t.Fatal(err)
			}
			if p.From.Release != tt.from {
				t.Errorf("plan from %s, want %s", p.From.Release, tt.from)
			}
			if p.Position == nil || p.Position.PassesDone != tt.done {
				t.Fatalf("Position = %+v, want %d passes done", p.Position, tt.done)
			}
			if !strings.Contains(p.Next, tt.nextHas) {
				t.Errorf("Next = %q, want it to contain %q", p.Next, tt.nextHas)
			}
			same := slices.ContainsFunc(p.Findings, func(f planner.Finding) bool { return f.Code == planner.CodeSameRelease })
			if same != tt.sameRel {
				t.Errorf("same-release finding = %v, want %v", same, tt.sameRel)
			}
			i := slices.IndexFunc(p.Checks, func(c planner.Check) bool { return c.Name == "position" })
			if i < 0 || string(p.Checks[i].Status) != tt.position {
				t.Errorf("checks %+v: want position %s", p.Checks, tt.position)
			}
		})
	}
}
