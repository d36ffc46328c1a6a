package action

import "gitlab.com/sylva-projects/sylva-planner/planner"

// FailOn is the --fail-on threshold of every command: the gate's
// thresholds (planner.FailOn) and the prune audit's. Each command accepts
// the subset that means something for its result.
type FailOn = planner.FailOn

// Thresholds of --fail-on.
const (
	FailOnBlocker = planner.FailOnBlocker
	FailOnWarning = planner.FailOnWarning
	FailOnNever   = planner.FailOnNever
	// FailOnPrunable fails on a prunable, blocked or malformed unit.
	FailOnPrunable FailOn = "prunable"
	// FailOnMalformed fails on a malformed unit only.
	FailOnMalformed FailOn = "malformed"
)

// Outcome is what a command's result means for its exit code: the gate's
// outcomes, and a gate that could not be evaluated.
type Outcome string

// Outcomes of a command.
const (
	// OutcomePass: nothing fails (exit 0).
	OutcomePass = Outcome(planner.GatePass)
	// OutcomeFail: something at or above the threshold (exit 2).
	OutcomeFail = Outcome(planner.GateFail)
	// OutcomeHeld: every blocker waits on upstream or is pinned (exit 4).
	OutcomeHeld = Outcome(planner.GateHeld)
	// OutcomeUnevaluated: the gate itself could not be evaluated; treat
	// it as blocked (exit 3).
	OutcomeUnevaluated Outcome = "unevaluated"
)

// Exit codes of every command (docs/cli.md): ExitCodes maps each outcome
// to its code.
const (
	ExitCodeOK          = 0
	ExitCodeBlocked     = 2
	ExitCodeUnevaluated = 3
	ExitCodeHeld        = 4
)

// ExitCodes is the one table of the exit code of each outcome (the gate's,
// and a gate that could not be evaluated). An outcome it does not list
// exits ExitCodeUnevaluated: a result the gate does not know fails it.
var ExitCodes = map[Outcome]int{
	OutcomePass:        ExitCodeOK,
	OutcomeFail:        ExitCodeBlocked,
	OutcomeUnevaluated: ExitCodeUnevaluated,
	OutcomeHeld:        ExitCodeHeld,
}

// ExitCode is the exit code of the outcome (ExitCodes), the one mapping
// every command uses; ExitCodeUnevaluated for an outcome it does not know.
func (o Outcome) ExitCode() int {
	if code, ok := ExitCodes[o]; ok {
		return code
	}
	return ExitCodeUnevaluated
}

// failIf is OutcomeFail when fail holds, else OutcomePass.
func failIf(fail bool) Outcome {
	if fail {
		return OutcomeFail
	}
	return OutcomePass
}

// SeverityOutcome is the outcome of a result whose worst finding is
// worst, against a threshold of blocker, warning or never.
func SeverityOutcome(worst planner.Severity, f FailOn) Outcome {
	switch f {
	case FailOnWarning:
		return failIf(worst == planner.SeverityBlocker || worst == planner.SeverityWarning)
	case FailOnNever:
		return OutcomePass
	case FailOnBlocker, FailOnPrunable, FailOnMalformed:
	}
	return failIf(worst == planner.SeverityBlocker)
}
