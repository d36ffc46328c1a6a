package planner

import (
	"fmt"
	"strings"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/skew"
)

// CodeKBStale is the finding for a target release newer than the catalog:
// the plan cannot be judged.
const CodeKBStale = "kb-stale"

// gate adds what the gate checks on top of the route: running components
// (from an inventory), end of life on the plan's date, and the bootstrap
// provider's own rules. It returns the component-compatibility check.
func (p *Plan) gate(in Input, cat *catalog.Catalog, provider catalog.Provider) Check {
	check := Check{
		Name: componentCompatibility, Required: true, Status: CheckAssessed,
		Detail: "planned " + componentCompatibilityMsg + " (from the catalog)",
	}
	final := map[string]skew.Version{}
	if len(p.Passes) > 0 {
		for _, c := range p.Passes[len(p.Passes)-1].Components {
			if v, err := skew.Parse(c.To); err == nil {
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
