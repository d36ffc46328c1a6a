package planner

import (
	"fmt"
	"path"
	"time"
)

// Suppression silences findings matching Code (exactly, or "*") and Subject
// (a path.Match glob) until Expires (zero: never). An expired suppression no
// longer applies and is reported.
type Suppression struct {
	Code    string    `json:"code"`
	Subject string    `json:"subject"`
	Reason  string    `json:"reason"`
	Expires time.Time `json:"-"`
}

// ValidateSuppressions returns an error naming the first rule, by its
// position in rules (from 1, as a suppressions file lists them) and its
// code, whose Subject path.Match cannot parse (an unclosed "[", a trailing
// "\"): such a rule would silence nothing. The error wraps
// path.ErrBadPattern. Compute does not call it: whoever parses the rules
// validates them.
func ValidateSuppressions(rules []Suppression) error {
	for i, r := range rules {
		if _, err := path.Match(r.Subject, ""); err != nil {
			return fmt.Errorf("suppression #%d (code %s): subject %q is malformed; write a path.Match glob such as \"kyverno*\" (a [ needs its ], a literal [ is \\[): %w", i+1, r.Code, r.Subject, err)
		}
	}
	return nil
}

// SuppressedFinding is a finding a suppression silenced, with its reason.
type SuppressedFinding struct {
	Finding
	Reason string `json:"reason"`
}

// CodeSuppressionExpired is the finding for a suppression past its expiry.
const CodeSuppressionExpired = "suppression-expired"

// applySuppressions moves the findings a live suppression matches to
// Suppressed, and reports expired suppressions.
func (p *Plan) applySuppressions(rules []Suppression, asOf time.Time) {
	day := asOf.UTC().Truncate(24 * time.Hour)
	var kept []Finding
	for _, r := range rules {
		if !r.Expires.IsZero() && !day.Before(r.Expires) {
			kept = append(kept, Finding{
				Code: CodeSuppressionExpired, Severity: SeverityInfo, Subject: r.Code + " " + r.Subject,
				Message:     fmt.Sprintf("the suppression of %s on %q expired on %s and no longer applies (%s)", r.Code, r.Subject, r.Expires.Format(time.DateOnly), r.Reason),
				Remediation: "renew it with a new expiry, or fix what it silenced",
			})
		}
	}
	for _, f := range p.Findings {
		if r, ok := matchSuppression(rules, f, day); ok {
			p.Suppressed = append(p.Suppressed, SuppressedFinding{Finding: f, Reason: r.Reason})
			continue
		}
		kept = append(kept, f)
	}
	p.Findings = kept
}

func matchSuppression(rules []Suppression, f Finding, day time.Time) (Suppression, bool) {
	for _, r := range rules {
		if !r.Expires.IsZero() && !day.Before(r.Expires) {
			continue
		}
		if r.Code != "*" && r.Code != f.Code {
			continue
		}
		subject := r.Subject
		if subject == "" {
			subject = "*"
		}
		// A malformed subject matches nothing; ValidateSuppressions
		// refuses it.
		if ok, _ := path.Match(subject, f.Subject); ok {
			return r, true
		}
	}
	return Suppression{}, false
}
