package action

import (
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/status"
	"gitlab.com/sylva-projects/sylva-planner/values"
)

// Transition is where a release whose status says pr stands in the plan
// to in.To (planner.Locate), with the helper values of its next pass: what
// status --to, status -A --to and reconcile --to show.
func Transition(in planner.Input, pr planner.Progress) (*status.Transition, error) {
	pos, err := planner.Locate(in, pr)
	if err != nil {
		return nil, err
	}
	t := &status.Transition{Target: pos.Target, Route: pos.Route, PassesDone: pos.PassesDone, Passes: pos.Passes, PassKnown: pos.PassKnown, Summary: pos.Summary}
	if pos.Next != nil {
		if t.NextValues, err = values.PassValues(pos.Next.Values); err != nil {
			return nil, err
		}
	}
	return t, nil
}
