package planner

import (
	"cmp"
	"fmt"
	"strings"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/cell"
	"gitlab.com/sylva-projects/sylva-planner/semver"
)

// FailOn is the lowest finding severity that fails the gate.
type FailOn string

// Thresholds of the gate.
const (
	FailOnBlocker FailOn = "blocker"
	FailOnWarning FailOn = "warning"
	FailOnNever   FailOn = "never"
)

// GateOptions say when a plan fails the gate.
type GateOptions struct {
	// FailOn is the threshold; empty means FailOnBlocker.
	FailOn FailOn
	// AllowIncomplete lets verdict unknown pass.
	AllowIncomplete bool
}

// GateOutcome is what the gate decided: the exit code follows it.
type GateOutcome string

// Gate outcomes.
const (
	// GatePass: nothing fails the gate (exit 0).
	GatePass GateOutcome = "pass"
	// GateFail: a finding at or above the threshold that the baseline does
	// not accept, or a required check not assessed (exit 2).
	GateFail GateOutcome = "fail"
	// GateHeld: every blocker waits on upstream or is pinned (exit 4).
	GateHeld GateOutcome = "held"
)

// Gate is the gate's decision on the plan, and why.
type Gate struct {
	FailOn  FailOn      `json:"failOn"`
	Outcome GateOutcome `json:"outcome"`
	// Reason says why, in one sentence without final period.
	Reason string `json:"reason"`
	// Accepted counts the findings at or above the threshold that the
	// baseline accepts.
	Accepted int `json:"accepted,omitempty"`
}

// decideGate decides the gate with o: held when every blocker waits or
// is pinned; else fail on a finding at or above the threshold the baseline
// does not accept, or on verdict unknown without AllowIncomplete; else
// pass. --fail-on never always passes. baseline says whether a baseline
// was given.
func (p *Plan) decideGate(o GateOptions, baseline bool) Gate {
	g := Gate{FailOn: cmp.Or(o.FailOn, FailOnBlocker), Outcome: GatePass}
	if g.FailOn == FailOnNever {
		g.Reason = fmt.Sprintf("--fail-on never: the gate passes whatever the verdict (%s)", p.Verdict)
		return g
	}
	if p.Verdict == VerdictHeld {
		g.Outcome, g.Reason = GateHeld, "every blocker waits on upstream or is pinned: nothing to act on"
		return g
	}
	min := SeverityBlocker
	if g.FailOn == FailOnWarning {
		min = SeverityWarning
	}
	failing := 0
	for _, f := range p.Findings {
		switch {
		case !f.Severity.AtLeast(min):
		case f.InBaseline:
			g.Accepted++
		default:
			failing++
		}
	}
	what, whats := "blocker", "blockers"
	if min == SeverityWarning {
		what, whats = "blocker or warning", "blockers or warnings"
	}
	switch {
	case failing > 0:
		g.Outcome, g.Reason = GateFail, cell.Count(failing, what, whats)
		if baseline {
			g.Reason += " not in the baseline"
		}
	case p.Verdict == VerdictUnknown && !o.AllowIncomplete:
		g.Outcome, g.Reason = GateFail, "a required check was not assessed (verdict unknown)"
	case g.Accepted > 0:
		g.Reason = fmt.Sprintf("every %s is in the baseline, none is new (%d accepted)", what, g.Accepted)
	case p.Verdict == VerdictUnknown:
		g.Reason = "--allow-incomplete: a check not assessed does not fail the gate"
	default:
		g.Reason = "no " + what
	}
	return g
}

// surprises reports whether the gate's outcome differs from what the
// verdict alone says (ready passes; blocked and unknown fail; held is
// held): the outputs for people then say why.
func (g Gate) surprises(v Verdict) bool {
	want := GateFail
	switch v {
	case VerdictReady:
		want = GatePass
	case VerdictHeld:
		want = GateHeld
	case VerdictBlocked, VerdictUnknown:
	}
	return g.Outcome != want
}

// ExitCode is the exit code of the outcome (docs/cli.md): 0 for pass, 2
// for fail, 4 for held; 0 for an outcome it does not know.
func (o GateOutcome) ExitCode() int {
	switch o {
	case GatePass:
		return 0
	case GateFail:
		return 2
	case GateHeld:
		return 4
	}
	// An outcome the gate does not know fails it: the gate could not be
	// evaluated (action.ExitCodes, the commands' table, agrees).
	return 3
}

// Line is the gate's decision for people: "Gate passes: every blocker is
// in the baseline, none is new (1 accepted); exit 0".
func (g Gate) Line() string {
	verb := map[GateOutcome]string{GatePass: "passes", GateFail: "fails", GateHeld: "holds"}[g.Outcome]
	return fmt.Sprintf("Gate %s: %s; exit %d", verb, g.Reason, g.Outcome.ExitCode())
}

// gateLine is the gate's line in the outputs for people: only when the
// gate decides otherwise than the verdict says.
func (p *Plan) gateLine() string {
	if !p.Gate.surprises(p.Verdict) {
		return ""
	}
	return p.Gate.Line()
}

// inBaselineNote is what the outputs for people say of a finding the
// baseline accepts.
const inBaselineNote = "in the baseline: not new, does not fail the gate"

// gate adds what the gate checks on top of the route: running components
// (from an inventory), end of life on the plan's date, and the bootstrap
// provider's own rules. It returns the component-compatibility check.
func (p *Plan) gate(in Input, cat *catalog.Catalog, provider catalog.Provider) Check {
	check := Check{
		Name: componentCompatibility, Required: true, Status: CheckAssessed,
		Detail: "planned " + componentCompatibilityMsg + " (from the catalog)",
	}
	final := map[string]semver.Version{}
	if len(p.Passes) > 0 {
		for _, c := range p.Passes[len(p.Passes)-1].Components {
			if v, err := semver.Parse(c.To); err == nil {
				final[c.Name] = v
			}
		}
	}
	if in.Observed != nil {
		check.Detail = fmt.Sprintf("running %s (from %s)", componentCompatibilityMsg, in.Observed.Source)
		unknown := p.observedFindings(in.Observed, cat, final)
		if len(unknown) > 0 {
			check.Status = CheckPartial
			check.Detail += "; not judged: " + strings.Join(unknown, ", ")
		}
	}
	if len(p.Passes) > 0 {
		p.eolFindings(cat, final, in.AsOf)
		p.providerFindings(provider)
		check.Detail += "; " + p.thinReleases(cat)
	}
	return check
}
