package helmengine

import "context"

// Render renders every template of the chart, as helm-controller does on
// install (or on upgrade with opts.IsUpgrade), with `lookup` served from
// opts.Source within opts.Allow. Errors as for Values.
func (c *Chart) Render(ctx context.Context, files []File, opts ChartOptions) (*Manifests, error) {
	p, err := c.prepare(ctx, files, opts)
	if err != nil {
		return nil, err
	}
	return p.manifests()
}

// RenderUnits renders, of a sylva-units chart, what Render gives for the
// named units (their Kustomizations and the Secrets and ConfigMaps units.yaml
// writes for them) and the whole of sylva-units-values.yaml (the values
// Secret and the sylva-units-status Kustomizations), and nothing else: the
// chart reduced to its partials, units.yaml with its loop over the units
// restricted to the named ones (then a replay of what the whole loop leaves
// in .Values, as Values does) and sylva-units-values.yaml. Each object it
// renders is the one Render renders; the units left out cost nothing, which
// makes it several times faster than Render on the real chart. A unit that
// is not in the values is skipped, as the chart skips a disabled one; a
// check the chart makes on the other units is not run.
func (c *Chart) RenderUnits(ctx context.Context, files []File, opts ChartOptions, units ...string) (*Manifests, error) {
	if err := c.CanRenderUnits(); err != nil {
		return nil, err
	}
	p, err := c.prepare(ctx, files, opts)
	if err != nil {
		return nil, err
	}
	return c.renderUnits(p, units, false)
}
