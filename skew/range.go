package skew

import (
	"fmt"

	"gitlab.com/sylva-projects/sylva-planner/semver"
)

// Range is an inclusive range of Kubernetes minors. A zero Min or Max means
// unbounded on that side.
type Range struct {
	Min semver.Version `json:"min,omitzero"`
	Max semver.Version `json:"max,omitzero"`
}

// Contains reports whether the minor of v lies within r.
func (r Range) Contains(v semver.Version) bool {
	if !r.Min.IsZero() && v.CompareMinor(r.Min) < 0 {
		return false
	}
	if !r.Max.IsZero() && v.CompareMinor(r.Max) > 0 {
		return false
	}
	return true
}

// String renders r as ">=1.25", "<=1.33", ">=1.25 <=1.33" or "any".
func (r Range) String() string {
	switch {
	case r.Min.IsZero() && r.Max.IsZero():
		return "any"
	case r.Max.IsZero():
		return ">=" + r.Min.Short()
	case r.Min.IsZero():
		return "<=" + r.Max.Short()
	}
	return fmt.Sprintf(">=%s <=%s", r.Min.Short(), r.Max.Short())
}

// Validate reports a range whose minimum is above its maximum.
func (r Range) Validate() error {
	if !r.Min.IsZero() && !r.Max.IsZero() && r.Min.CompareMinor(r.Max) > 0 {
		return fmt.Errorf("kubernetes range %s: min above max", r)
	}
	return nil
}
