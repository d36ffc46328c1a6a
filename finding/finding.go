package finding

import "cmp"

// Severity ranks a Finding.
type Severity string

// Severities, highest first.
const (
	// SeverityBlocker stops the upgrade until it is cleared.
	SeverityBlocker Severity = "blocker"
	// SeverityWarning needs attention.
	SeverityWarning Severity = "warning"
	// SeverityInfo is worth knowing.
	SeverityInfo Severity = "info"
)

// Rank orders severities: 0 for a blocker, 1 a warning, 2 information, 3
// anything else.
func (s Severity) Rank() int {
	switch s {
	case SeverityBlocker:
		return 0
	case SeverityWarning:
		return 1
	case SeverityInfo:
		return 2
	}
	return 3
}

// AtLeast reports whether s is as severe as t or more.
func (s Severity) AtLeast(t Severity) bool { return s.Rank() <= t.Rank() }

// Class says what a blocker waits for.
type Class string

// Classes of blockers.
const (
	// ClassActionable: acting (upgrading, fixing) clears the blocker.
	ClassActionable Class = "actionable"
	// ClassWaiting: nothing can clear it until upstream ships a version.
	ClassWaiting Class = "waiting"
	// ClassPinned: held on purpose by the catalog.
	ClassPinned Class = "pinned"
)

// Finding is one typed remark about the observed state (status) or the
// plan of the gate. Code is stable: tests and machines match on it.
// Subject is omitted from JSON and YAML when empty (a remark about the
// release namespace as a whole); Class, Remediation and InBaseline are the
// gate's and omitted when unset.
type Finding struct {
	Code        string   `json:"code"`
	Severity    Severity `json:"severity"`
	Class       Class    `json:"class,omitempty"`
	Subject     string   `json:"subject,omitempty"`
	Message     string   `json:"message"`
	Remediation string   `json:"remediation,omitempty"`
	// InBaseline is true when the --baseline report had the same code and
	// subject: the finding is not new and does not fail the gate again
	// (it still counts in the verdict and the score).
	InBaseline bool `json:"inBaseline,omitempty"`
}

// Compare is the total order of the gate's findings in every output:
// severity, subject, code, message.
func Compare(a, b Finding) int {
	return cmp.Or(
		cmp.Compare(a.Severity.Rank(), b.Severity.Rank()),
		cmp.Compare(a.Subject, b.Subject),
		cmp.Compare(a.Code, b.Code),
		cmp.Compare(a.Message, b.Message),
	)
}
