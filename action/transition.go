package action

import (
	"errors"
	"fmt"

	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/skew"
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
	t := pos.Transition()
	if pos.Next != nil {
		if t.NextValues, err = values.PassValues(pos.Next.Values); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// statusSourceError words an error of the planner's input checks when the
// installed release was read from a status rather than given with --from,
// which the planner's messages name: as a fleet row words it
// (releaseErrorText), with the fix for a downgrade. The planner's error
// stays wrapped, so that a fleet still tells one release's error from the
// whole command's.
func statusSourceError(err error, release skew.Version) error {
	msg := releaseErrorText(err, release.Short())
	if msg == err.Error() {
		return err
	}
	if errors.Is(err, planner.ErrDowngrade) {
		msg += fmt.Sprintf("; give --to %s or a later release", release.Short())
	}
	return &rewordedError{msg, err}
}

// rewordedError is err said in other words.
type rewordedError struct {
	msg string
	err error
}

func (e *rewordedError) Error() string { return e.msg }
func (e *rewordedError) Unwrap() error { return e.err }
