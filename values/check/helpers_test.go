package check

import (
	"context"

	"gitlab.com/sylva-projects/sylva-planner/values/helmengine"
)

// renderUnits renders c with files reduced to units, as Chart renders
// each scenario (helmengine.Input.RenderUnits).
func renderUnits(ctx context.Context, c *helmengine.Chart, files []helmengine.File, opts helmengine.ChartOptions, units ...string) (*helmengine.Manifests, error) {
	in, err := c.Input(files, opts)
	if err != nil {
		return nil, err
	}
	return in.RenderUnits(ctx, opts, units...)
}
