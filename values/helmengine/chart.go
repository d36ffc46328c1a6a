package helmengine

import (
	"fmt"
	"strings"
	"sync"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
)

// The sylva-units templates the fast values render replays.
const (
	// unitsTemplate interprets the values first (templates render in
	// reverse name order, so it runs before the Secret's template) and
	// leaves bookkeeping keys in .Values while it builds the units.
	unitsTemplate = "templates/units.yaml"
	// secretTemplate renders the sylva-units-values Secret, whose
	// stringData.values is what Chart.Values returns.
	secretTemplate = "templates/sylva-units-values.yaml"
	// evalTemplate is the extra template of Chart.Eval; its name sorts
	// before the others so that it runs last.
	evalTemplate = "templates/0-sylva-planner-eval.yaml"
	// ValuesSecret is the name of the Secret holding the interpreted values.
	ValuesSecret = "sylva-units-values"
	// rawOverride replaces the chart's "unshield-raw" (which turns the
	// shield 《 back into {{ in the Secret's YAML text, leaving YAML that
	// may not parse) by the identity; Values then unshields the parsed
	// strings. Its name sorts so that Helm parses it last.
	rawOverride = "templates/_0-sylva-planner-unshield.tpl"
	// RawShield is the character sylva-units' "(raw)" values use for {{.
	RawShield = "《"
)

// Chart is a chart loaded once and rendered many times. It is safe for
// concurrent use: every render works on its own copy of the chart tree.
type Chart struct {
	ch *chart.Chart
	// prelude is the part of units.yaml before its loop over the units,
	// and epilogue replays what that loop leaves in .Values; secret is the
	// Secret's document of sylva-units-values.yaml. All empty when the
	// chart is not sylva-units-like.
	prelude, epilogue, secret string
	// units and values are the whole texts of units.yaml and
	// sylva-units-values.yaml, for renderUnits.
	units, values string
	// unshield is true when the Secret's template unshields "(raw)"
	// strings.
	unshield bool
	// unitFields is unitFieldsHelper of the chart, made once, when units
	// are first resolved.
	unitFields func() (string, bool)
	// frames are the shortcut's (withInterpretShortcut), nil without it.
	frames shortcutFrames
}

// LoadError is a chart path that does not load: Err says why (no
// Chart.yaml, a file that is not an archive, Helm's loader's message).
type LoadError struct {
	Path string
	Err  error
}

func (e *LoadError) Error() string { return fmt.Sprintf("load chart %s: %v", e.Path, e.Err) }

func (e *LoadError) Unwrap() error { return e.Err }

// LoadChart loads a chart directory or archive (.tgz), with its
// subcharts, as Helm does: Helm's loader reads the path, which the caller
// has checked (fileio.CheckChart, the one way the actions load a chart).
// Errors are a *LoadError.
func LoadChart(chartPath string) (*Chart, error) {
	ch, err := loader.Load(chartPath)
	if err != nil {
		return nil, &LoadError{Path: chartPath, Err: err}
	}
	return NewChart(ch), nil
}

// NewChart wraps a chart loaded by Helm's loader. The chart is not
// modified; the renders use a copy with the shortcut of
// withInterpretShortcut when the chart's interpretation of its values is
// one it knows.
func NewChart(ch *chart.Chart) *Chart {
	cp, frames := withInterpretShortcut(ch)
	c := newChart(cp)
	c.frames = frames
	return c
}

// newChart wraps the chart as it is.
func newChart(ch *chart.Chart) *Chart {
	c := &Chart{ch: ch, unitFields: sync.OnceValues(func() (string, bool) { return unitFieldsHelper(ch) })}
	var units, secret string
	for _, t := range ch.Templates {
		switch t.Name {
		case unitsTemplate:
			units = string(t.Data)
		case secretTemplate:
			secret = string(t.Data)
		}
	}
	c.prelude = unitsPrelude(units)
	c.secret = firstDocument(secret)
	c.units, c.values = units, secret
	helpers := c.helpers()
	c.epilogue = unitsEpilogue(helpers)
	c.unshield = defines(helpers, "unshield-raw") && strings.Contains(c.secret, `include "unshield-raw"`)
	return c
}

// Name is the chart's name.
func (c *Chart) Name() string { return c.ch.Name() }

// Version is the chart's version.
func (c *Chart) Version() string { return c.ch.Metadata.Version }

// Defaults are the chart's default values (its values.yaml), which the
// caller must not change.
func (c *Chart) Defaults() map[string]any { return c.ch.Values }
