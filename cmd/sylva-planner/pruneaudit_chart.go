package main

import (
	"context"
	"fmt"

	"gitlab.com/sylva-projects/sylva-planner/units"
	"gitlab.com/sylva-projects/sylva-planner/values"
)

// chartResolver resolves the units with the sylva-units chart at
// chartPath, as the chart resolves them (its own unit-def and unit-enabled
// helpers, through the engine of values render --chart), for the same
// values files. The schema is not validated: the audit reads the units,
// and Helm's validator rejects values the chart's CI accepts.
func chartResolver(ctx context.Context, chartPath, flag string, files []units.File, p *progress) (units.Resolver, error) {
	c, err := values.LoadChart(chartPath)
	if err != nil {
		return nil, fmt.Errorf("--chart %s: %w; give the sylva-units chart directory (charts/sylva-units) or archive", flag, err)
	}
	vf := make([]values.File, len(files))
	for i, f := range files {
		vf[i] = values.File{Name: f.Name, Data: f.Data}
	}
	return units.ResolverFunc(func(map[string]any) (map[string]map[string]any, error) {
		p.say("resolving the units with the chart")
		defs, err := c.Units(ctx, vf, values.ChartOptions{SkipSchemaValidation: true})
		p.say("resolved")
		if err != nil {
			return nil, fmt.Errorf("--chart %s: %w", flag, err)
		}
		return defs, nil
	}), nil
}
