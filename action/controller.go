package action

import (
	"context"
	"time"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/planner"
)

// ControllerGate is the upgrade gate the controller exports with --to: for
// each namespace, the plan the plan command makes from the status the
// controller's watch read, to To.
type ControllerGate struct {
	Catalog     *catalog.Catalog
	To          string
	ToolVersion string
	// Now is the clock: each plan is made for the day it is made.
	Now func() time.Time
}

// Gate is the controller's gate (reconciler.ControllerOptions.Gate): nil
// without To; an error naming --to when To is no release. A status the
// gate cannot plan from gives no plan.
func (g ControllerGate) Gate(ctx context.Context) (func(planner.Progress) *planner.Plan, error) {
	if g.To == "" {
		return nil, nil
	}
	if _, err := parseTo(g.To); err != nil {
		return nil, err
	}
	return func(pr planner.Progress) *planner.Plan {
		p, err := PlanRequest{Catalog: g.Catalog, To: g.To, Progress: &pr, AsOf: g.Now().UTC(), ToolVersion: g.ToolVersion}.Run(ctx)
		if err != nil {
			return nil
		}
		return p
	}, nil
}
