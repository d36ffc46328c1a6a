package action

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"time"

	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/yamldoc"
)

type suppressionsFile struct {
	Suppressions []struct {
		Code    string `json:"code"`
		Subject string `json:"subject"`
		Reason  string `json:"reason"`
		Expires string `json:"expires"`
	} `json:"suppressions"`
}

// decodeLine finds the line a YAML decoding error names.
var decodeLine = regexp.MustCompile(`line [0-9]+`)

// ParseSuppressions decodes a suppressions file (YAML, strict): rules of
// code, subject glob, reason and an optional expiry date (YYYY-MM-DD).
func ParseSuppressions(data []byte) ([]planner.Suppression, error) {
	var dup *yamldoc.DuplicateKeyError
	if errors.As(yamldoc.DuplicateKey(data), &dup) {
		// Lines only: the file's content is not echoed.
		return nil, fmt.Errorf("a key is given twice in the same map (lines %d and %d); give it once", dup.First, dup.Second)
	}
	var f suppressionsFile
	if err := yaml.UnmarshalStrict(data, &f); err != nil {
		// The decoder quotes what it could not place (an unknown field's
		// name, a value): never echo a file's content, which may be any
		// file given by mistake (/etc/shadow), only where it failed.
		where := ""
		if m := decodeLine.FindString(err.Error()); m != "" {
			where = " (" + m + ")"
		}
		return nil, fmt.Errorf("not a suppressions file%s: want suppressions: a list of {code, subject, reason, expires}", where)
	}
	out := make([]planner.Suppression, 0, len(f.Suppressions))
	for i, s := range f.Suppressions {
		if s.Code == "" || s.Reason == "" {
			return nil, fmt.Errorf("suppression #%d: code and reason are required", i+1)
		}
		r := planner.Suppression{Code: s.Code, Subject: s.Subject, Reason: s.Reason}
		if s.Expires != "" {
			var err error
			if r.Expires, err = time.Parse(time.DateOnly, s.Expires); err != nil {
				return nil, fmt.Errorf("suppression #%d: expires %q is not YYYY-MM-DD", i+1, s.Expires)
			}
		}
		out = append(out, r)
	}
	if err := planner.ValidateSuppressions(out); err != nil {
		return nil, err
	}
	return out, nil
}

// ParseBaseline decodes the findings of a previous JSON plan.
func ParseBaseline(data []byte) ([]planner.Finding, error) {
	var prev struct {
		Kind     string            `json:"kind"`
		Findings []planner.Finding `json:"findings"`
	}
	if err := json.Unmarshal(data, &prev); err != nil {
		return nil, fmt.Errorf("not a JSON plan (sylva-planner plan -o json): %w", err)
	}
	if err := yamldoc.DuplicateKey(data); err != nil {
		return nil, err
	}
	if prev.Kind != planner.Kind {
		return nil, fmt.Errorf("kind %q, want %s (a report of sylva-planner plan -o json)", prev.Kind, planner.Kind)
	}
	return append([]planner.Finding{}, prev.Findings...), nil
}
