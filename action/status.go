package action

import (
	"context"
	"fmt"
	"time"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
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
	rep.Newest = NewestFrom(r.Catalog, rep.InstalledRelease)
	if r.To != "" {
		t, err := r.Locate(obs)
		if err != nil {
			return nil, err
		}
		rep.Place(t)
	}
	return &rep, nil
}

// Locate places the release of obs in the plan to To (Transition); the
// error names --to.
func (r StatusRequest) Locate(obs status.Observation) (*status.Transition, error) {
	target, err := parseTo(r.To)
	if err != nil {
		return nil, err
	}
	pr := planner.TransitionStateOf(obs)
	t, err := Transition(planner.Input{Catalog: r.Catalog, To: target, AsOf: r.AsOf, ToolVersion: r.ToolVersion}, pr)
	switch {
	case unknownTarget(err):
		// The planner's error names --to already, as plan says it.
		return nil, err
	case err != nil:
		// A downgrade blames --to; otherwise the release the status
		// names is what is wrong (a catalog that does not cover it,
		// say).
		return nil, statusSourceError(err, pr.Installed, r.To)
	}
	// A pass that failed is said to have failed, wherever it is placed.
	t.MarkFailed(obs)
	return t, nil
}

// NewestFrom is the newest release of cat that lists installed's minor as
// a supported upgrade source: the release a status given no --to suggests
// planning to, one chart upgrade away (plan plans a longer route too, but
// advises to take it one hop at a time). It is installed's own release
// when no newer one supports it, and zero when cat is nil, installed is
// zero or cat does not hold it.
func NewestFrom(cat *catalog.Catalog, installed semver.Version) semver.Version {
	if cat == nil || installed.IsZero() {
		return semver.Version{}
	}
	from, ok := cat.Release(installed)
	if !ok {
		return semver.Version{}
	}
	newest := from.Release
	for _, rel := range cat.Releases {
		if rel.Release.CompareMinor(newest) > 0 && rel.Supports(installed) {
			newest = rel.Release
		}
	}
	return newest
}

// parseTo parses --to; the error names it.
func parseTo(to string) (semver.Version, error) {
	v, err := semver.Parse(to)
	if err != nil {
		return v, fmt.Errorf("--to: %w; give a Sylva release such as 1.6", err)
	}
	return v, nil
}
