package action

import (
	"errors"
	"fmt"

	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/status"
	"gitlab.com/sylva-projects/sylva-planner/values/overlay"
)

// Transition is where a release whose status says pr stands in the plan
// to in.To (planner.Locate), with the helper values of its next pass: what
// status --to, status -A --to and reconcile --to show.
func Transition(in planner.Input, pr planner.TransitionState) (*status.Transition, error) {
	pos, err := planner.Locate(in, pr)
	if err != nil {
		return nil, err
	}
	if pos == nil {
		// Locate places nothing in a plan it computed but cannot judge:
		// that of a target newer than the catalog (kb-stale), which has
		// no route and no pass.
		return unjudged(in, pr)
	}
	t := pos.Transition()
	if pos.Next != nil {
		if t.NextValues, err = overlay.PassValues(pos.Next.Values); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// unjudged is the transition to a target whose plan, from where the
// status pr places the cluster, is computed but cannot be judged: not
// placed, with the plan's kb-stale finding, and a summary that says why
// and the fix, as plan says it.
func unjudged(in planner.Input, pr planner.TransitionState) (*status.Transition, error) {
	in.Progress = &pr
	p, err := planner.Compute(in)
	if err != nil {
		return nil, err
	}
	f, ok := pastCatalog(p)
	if !ok {
		return nil, fmt.Errorf("--to %s: the plan places the cluster nowhere and gives no finding that says why", in.To)
	}
	return &status.Transition{
		Target:   in.To.String(),
		Summary:  fmt.Sprintf("not placed: %s; %s", f.Message, f.Remediation),
		Findings: []status.Finding{f},
	}, nil
}

// pastCatalog returns the kb-stale finding of p: its target is newer than
// the catalog, so that nothing of it (route, passes, final state) is known.
func pastCatalog(p *planner.Plan) (planner.Finding, bool) {
	for _, f := range p.Findings {
		if f.Code == planner.CodeKBStale {
			return f, true
		}
	}
	return planner.Finding{}, false
}

// statusSourceError words an error of the planner's input checks when the
// installed release was read from a status rather than given with --from,
// which the planner's messages name: as a fleet row words it
// (releaseErrorText); a downgrade blames --to (the target given as to) and
// says the fix. The planner's error stays wrapped, so that a fleet still
// tells one release's error from the whole command's.
func statusSourceError(err error, release semver.Version, to string) error {
	msg := releaseErrorText(err, release.Short())
	if msg == err.Error() {
		return err
	}
	if errors.Is(err, planner.ErrDowngrade) {
		msg = fmt.Sprintf("--to %s: %s; give --to %s or a later release", to, msg, release.Short())
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
