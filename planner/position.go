package planner

import (
	"fmt"
	"strconv"

	"gitlab.com/sylva-projects/sylva-planner/skew"
)

// Progress is what the sylva-units-status ConfigMap says about a
// transition in flight, as plain values.
type Progress struct {
	// Found is false when there is no status ConfigMap (a fresh install).
	Found bool
	// Installed is the release the status names; zero when it names none.
	Installed skew.Version
	// Pending is additional_reconciliation_required == "true".
	Pending bool
	// TransitionFrom and TransitionPass are the status keys of the same
	// names ("1.4", "1"); empty when absent.
	TransitionFrom string
	TransitionPass string
}

// Position is where a cluster stands in the plan to a target release.
type Position struct {
	Target string `json:"target"`
	// Route and Passes are those of the plan from the hop's source.
	Route  []string `json:"route"`
	Passes int      `json:"passes"`
	// PassesDone counts the passes that completed; PassKnown is false when
	// the status cannot tell which pass of the hop completed (it lacks
	// transition_from and transition_pass).
	PassesDone int  `json:"passesDone"`
	PassKnown  bool `json:"passKnown"`
	// Next is the pass to run next; nil when the transition is done or
	// cannot be placed.
	Next *Pass `json:"next,omitempty"`
	// Summary says it in one sentence.
	Summary string `json:"summary"`
}

// Locate places a cluster in the plan to target: not started (the status
// names an older release), in the middle of a hop (the status names the
// hop's release, asks for another pass and records which pass completed),
// or done. It returns an error only when no plan can be computed.
func Locate(in Input, pr Progress) (*Position, error) {
	target := in.To
	pos := &Position{Target: target.String()}
	switch {
	case !pr.Found:
		pos.Summary = fmt.Sprintf("fresh install: nothing to upgrade to %s from; a fresh install of %s takes no transition pass", target, target)
		return pos, nil
	case pr.Installed.IsZero():
		pos.Summary = "the status does not say which release is installed; give plan --from to see the passes"
		return pos, nil
	}
	inHop := pr.Installed.CompareMinor(target) == 0
	in.From = pr.Installed
	if inHop && pr.Pending {
		from, ok := parseOK(pr.TransitionFrom)
		if !ok || pr.TransitionPass == "" {
			pos.Summary = fmt.Sprintf("a further pass to %s is pending, but the status records no transition_from/transition_pass: the pass cannot be placed", target)
			return pos, nil
		}
		in.From = from
	}
	p, err := Compute(in)
	if err != nil {
		return nil, err
	}
	pos.Route, pos.Passes, pos.PassKnown = p.Route, len(p.Passes), true
	switch {
	case inHop && !pr.Pending:
		pos.PassesDone = pos.Passes
		pos.Summary = fmt.Sprintf("done: the cluster is on %s and no pass is pending", target)
		if pos.Passes == 0 {
			pos.Summary = fmt.Sprintf("done: the cluster is on %s", target)
		}
		return pos, nil
	case inHop:
		k, ok := atoiOK(pr.TransitionPass)
		hopStart := len(p.Passes) - lastHopPasses(p)
		if !ok || k < 1 || hopStart+k >= len(p.Passes) {
			pos.PassKnown = false
			pos.Summary = fmt.Sprintf("the status says pass %q of the hop from %s completed, which the plan to %s does not have", pr.TransitionPass, pr.TransitionFrom, target)
			return pos, nil
		}
		pos.PassesDone = hopStart + k
	}
	if pos.PassesDone < len(p.Passes) {
		next := p.Passes[pos.PassesDone]
		pos.Next = &next
		how := "upgrade the sylva-units HelmRelease to Sylva " + next.Release
		if next.Trigger == TriggerReconciliation {
			how = "an additional reconciliation of sylva-units"
		}
		pos.Summary = fmt.Sprintf("pass %d of %d done; next: pass %d, %s: control plane %s → %s, k8s_version_short %s", pos.PassesDone, pos.Passes, next.Index, how, next.ControlPlane.From, next.ControlPlane.To, next.Values.K8sVersionShort)
	}
	return pos, nil
}

// lastHopPasses is the number of passes of the plan's last hop.
func lastHopPasses(p *Plan) int {
	if len(p.Passes) == 0 {
		return 0
	}
	return p.Passes[len(p.Passes)-1].HopPasses
}

// parseOK and atoiOK read status values whose being malformed is an
// answer (the pass cannot be placed), not an error.
func parseOK(s string) (skew.Version, bool) {
	v, err := skew.Parse(s)
	return v, err == nil
}

func atoiOK(s string) (int, bool) {
	n, err := strconv.Atoi(s)
	return n, err == nil
}
