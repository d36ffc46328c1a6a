package units

import (
	"fmt"
	"strings"

	"gitlab.com/sylva-projects/sylva-planner/semver"
)

// TransitionalKey is the info key that marks a transitional unit.
const TransitionalKey = "transitional-unit"

// Transitional is a unit's info.transitional-unit metadata.
type Transitional struct {
	// Raw is the value as written; a number is shown as YAML read it.
	Raw string
	// From is X.Y of "from-X.Y": the unit is needed while a supported
	// upgrade source is X.Y or older. Zero when Problem is set.
	From semver.Version
	// Problem says why the value does not parse; "" when it does.
	Problem string
}

// ParseTransitional reads a transitional-unit value. It never fails: a value
// that does not parse is returned with Problem set, so the audit can report
// it as malformed.
func ParseTransitional(raw any) Transitional {
	s, ok := raw.(string)
	if !ok {
		r, _ := scalarString(raw)
		if r == "" {
			r = describe(raw)
		}
		problem := fmt.Sprintf("is %s, not a string; write from-X.Y, for example from-1.4", describe(raw))
		if _, isNum := raw.(float64); isNum {
			problem = fmt.Sprintf("is %s, not a string; write from-%s (quoted values keep their trailing zeros)", describe(raw), r)
		}
		return Transitional{Raw: r, Problem: problem}
	}
	t := Transitional{Raw: s}
	rest, ok := strings.CutPrefix(s, "from-")
	if !ok {
		t.Problem = fmt.Sprintf("%q does not start with from-; write from-X.Y, for example from-1.4", s)
		return t
	}
	v, err := semver.Parse(rest)
	if err != nil || v.HasPatch || v.Pre != "" || v.Build != "" || strings.HasPrefix(rest, "v") {
		t.Problem = fmt.Sprintf("%q: %q is not a Sylva release MAJOR.MINOR; write from-X.Y, for example from-1.4", s, rest)
		return t
	}
	t.From = v
	return t
}
