package action_test

import (
	"testing"

	"gitlab.com/sylva-projects/sylva-planner/action"
	"gitlab.com/sylva-projects/sylva-planner/planner"
)

// Exit codes come from one table that fails closed: every gate outcome
// has the code the planner prints in its gate line, and an outcome the
// table does not know exits 3 (the gate could not evaluate), never 0.
func TestExitCodesFailClosed(t *testing.T) {
	for _, o := range []planner.GateOutcome{planner.GatePass, planner.GateFail, planner.GateHeld} {
		if got, want := action.Outcome(o).ExitCode(), o.ExitCode(); got != want {
			t.Errorf("outcome %s exits %d, the gate line says %d", o, got, want)
		}
	}
	if got := action.Outcome("something-new").ExitCode(); got != action.ExitCodeUnevaluated {
		t.Errorf("an unknown outcome exits %d, want %d", got, action.ExitCodeUnevaluated)
	}
	if got := planner.GateOutcome("something-new").ExitCode(); got == 0 {
		t.Error("an unknown gate outcome passes the gate (exit 0)")
	}
	want := map[action.Outcome]int{action.OutcomePass: 0, action.OutcomeFail: 2, action.OutcomeUnevaluated: 3, action.OutcomeHeld: 4}
	if len(action.ExitCodes) != len(want) {
		t.Errorf("ExitCodes has %d outcomes, want %d", len(action.ExitCodes), len(want))
	}
	for o, code := range want {
		if action.ExitCodes[o] != code {
			t.Errorf("ExitCodes[%s] = %d, want %d (docs/cli.md)", o, action.ExitCodes[o], code)
		}
	}
}
