package action

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/skew"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

// StatusRequest is `status`: where a release namespace stands, and with
// To, where it stands in the plan to To.
type StatusRequest struct {
	Source    StatusSource
	Catalog   *catalog.Catalog
	To        string
	AsOf      time.Time
	Metadata  envelope.Metadata
	Selection envelope.Selection
	// ToolVersion stamps the plan To is located in.
	ToolVersion string
}

// Run reads the source once and interprets it (status.Interpret).
func (r StatusRequest) Run(ctx context.Context) (*status.Report, error) {
	obs, err := r.Source.Observation(ctx)
	if err != nil {
		return nil, err
	}
	rep := status.Interpret(obs)
	rep.Selection, rep.Metadata = r.Selection, r.Metadata
	if r.To != "" {
		t, err := r.Locate(obs.ConfigMap)
		if err != nil {
			return nil, err
		}
		rep.Place(t)
	}
	return &rep, nil
}

// Locate places the release whose status is cm in the plan to To
// (Transition); the error names --to.
func (r StatusRequest) Locate(cm *status.Status) (*status.Transition, error) {
	target, err := parseTo(r.To)
	if err != nil {
		return nil, err
	}
	pr := planner.ProgressOf(cm)
	t, err := Transition(planner.Input{Catalog: r.Catalog, To: target, AsOf: r.AsOf, ToolVersion: r.ToolVersion}, pr)
	switch {
	case unknownTarget(err):
		// The planner's error names --to already, as plan says it.
		return nil, err
	case errors.Is(err, planner.ErrDowngrade):
		// The target is what is wrong.
		return nil, fmt.Errorf("--to %s: %w", r.To, statusSourceError(err, pr.Installed))
	case err != nil:
		// The release the status names is (a catalog that does not
		// cover it, say): --to is not to blame.
		return nil, statusSourceError(err, pr.Installed)
	}
	return t, nil
}

// parseTo parses --to; the error names it.
func parseTo(to string) (skew.Version, error) {
	v, err := skew.Parse(to)
	if err != nil {
		return v, fmt.Errorf("--to: %w; give a Sylva release such as 1.6", err)
	}
	return v, nil
}
