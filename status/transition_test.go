package status_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"gitlab.com/sylva-projects/sylva-planner/status"
)

// kbStale is what the planner finds of a target newer than the catalog.
var kbStale = status.Finding{
	Code: "kb-stale", Severity: status.SeverityWarning, Subject: "1.8",
	Message:     "catalog test (updated 2026-11-30) ends at release 1.7; release 1.8 cannot be judged",
	Remediation: "update sylva-planner or pass a newer catalog with --catalog",
}

// unjudgedTransition is the transition to 1.8 the command fills from such
// a plan: nothing placed.
func unjudgedTransition() *status.Transition {
	return &status.Transition{Target: "1.8", Summary: "not placed: " + kbStale.Message, Findings: []status.Finding{kbStale}}
}

func TestTransitionUnjudged(t *testing.T) {
	for _, tt := range []struct {
		name string
		t    *status.Transition
		want bool
	}{
		{"a plan that cannot be judged places nothing", unjudgedTransition(), true},
		{"a pass the status does not place is not a plan that cannot be judged", &status.Transition{Target: "1.7"}, false},
		{"a placed pass", &status.Transition{Target: "1.7", PassesDone: 1, Passes: 3, PassKnown: true}, false},
	} {
		if got := tt.t.Unjudged(); got != tt.want {
			t.Errorf("%s: Unjudged() = %t, want %t", tt.name, got, tt.want)
		}
	}
}

// A report placed in a plan that cannot be judged has the plan's finding
// among its own, in their order, and says it in the table.
func TestReportPlaceAddsTheTransitionsFindings(t *testing.T) {
	entries := readFleet(t)
	rep := status.Interpret(entries[0].Observation)
	before := slices.Clone(rep.Findings)
	rep.Place(unjudgedTransition())
	if rep.Transition == nil || rep.Transition.Target != "1.8" {
		t.Fatalf("Transition = %+v, want the one placed", rep.Transition)
	}
	var got []string
	for _, f := range rep.Findings {
		got = append(got, f.Code)
	}
	if !slices.Contains(got, "kb-stale") || len(rep.Findings) != len(before)+1 {
		t.Errorf("codes = %v, want those before (%d) and kb-stale", got, len(before))
	}
	if !slices.IsSortedFunc(rep.Findings, func(a, b status.Finding) int { return a.Severity.Rank() - b.Severity.Rank() }) {
		t.Errorf("findings not sorted by severity: %v", got)
	}
	var table strings.Builder
	if err := rep.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Transition to 1.8: not placed: ", "kb-stale"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table does not say %q:\n%s", want, table.String())
		}
	}

	placed := status.Interpret(entries[0].Observation)
	placed.Place(nil)
	if placed.Transition != nil || !cmp.Equal(placed.Findings, before) {
		t.Errorf("Place(nil) changed the report: transition %+v, findings %v", placed.Transition, placed.Findings)
	}
}

// status -A --to past the catalog: each placed row says unknown, with the
// finding's code, and the finding is listed once under the table.
func TestFleetTableSaysOnceWhyThePlanCannotBeJudged(t *testing.T) {
	sel := fleetSelection
	sel.To = "1.8"
	f := status.InterpretFleet(readFleet(t), sel)
	placed := 0
	for i := range f.Releases {
		if r := &f.Releases[i]; r.Error == "" {
			r.Place(unjudgedTransition())
			placed++
		}
	}
	if placed < 2 {
		t.Fatalf("%d rows placed, want several", placed)
	}
	var table strings.Builder
	if err := f.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	out := table.String()
	if n := strings.Count(out, "unknown (kb-stale)"); n != placed {
		t.Errorf("%d rows say unknown (kb-stale), want %d:\n%s", n, placed, out)
	}
	if n := strings.Count(out, "WARNING kb-stale (1.8): "+kbStale.Message+"\n      fix: "+kbStale.Remediation); n != 1 {
		t.Errorf("the finding is listed %d times under the table, want once:\n%s", n, out)
	}
	for _, r := range f.Releases {
		if r.Error == "" && !slices.Contains(r.Report().Findings, kbStale) {
			t.Errorf("row %s: its report lacks the finding (as status --to -n %s says it)", r.Namespace, r.Namespace)
		}
	}
}
