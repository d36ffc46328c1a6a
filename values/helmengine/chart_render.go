package helmengine

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"

	"helm.sh/helm/v3/pkg/engine"
	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/yamldoc"
)

// ChartOptions is the release context a chart is rendered in, as
// `helm template` or helm-controller would give it.
type ChartOptions struct {
	// Namespace is .Release.Namespace; empty means DefaultNamespace.
	Namespace string
	// ReleaseName is .Release.Name; empty means DefaultReleaseName.
	ReleaseName string
	// KubeVersion sets .Capabilities.KubeVersion ("1.33" or "v1.33.5");
	// empty keeps Helm's default, as `helm template` does.
	KubeVersion string
	// IsUpgrade renders as an upgrade (.Release.IsUpgrade true,
	// .Release.IsInstall false), as helm-controller does on a release
	// that exists; Revision is .Release.Revision (0 means 1).
	IsUpgrade bool
	Revision  int
	// Source serves `lookup`; nil means nothing exists (`helm template`).
	Source Source
	// Allow lists what `lookup` may read; nil means DefaultAllowList of the
	// namespace. A refused lookup returns an empty result and a warning.
	Allow []AllowRule
	// SkipSchemaValidation skips the chart's values.schema.json, as
	// `helm template --skip-schema-validation` does.
	SkipSchemaValidation bool
	// Validate makes Chart.Values render every template of the chart, as
	// `helm template` does, so that every check the chart makes while it
	// renders the units runs too (and fails the render as in Helm), at
	// Helm's cost. The values are read from the same Secret.
	Validate bool
}

// ChartResult is the interpreted values of a chart.
type ChartResult struct {
	// Values is the `values` of the sylva-units-values Secret: every gotpl
	// string interpreted by the chart's own helpers, plus what the chart
	// leaves in .Values while it renders (`_interpreted`, `_unit_name_`,
	// `_kustomization_name_`, `_internal.cluster_machines_ready_unit_deps`
	// on the releases that have them), with `_internal.previous_values`
	// emptied, as the chart dumps it. Where the chart unshields "(raw)"
	// strings in the Secret's text, they are unshielded here in the parsed
	// strings instead, which gives the same values whenever Helm's text
	// parses as YAML, and values still when it does not (a raw string
	// such as `{{ a {42:42} }}` left unquoted).
	Values map[string]any
	// Warnings are sorted and deduplicated (refused lookups).
	Warnings []string
}

// Manifests is a whole chart rendered.
type Manifests struct {
	// Templates maps each rendered template (chart/templates/file.yaml)
	// to its text; partials (_*.tpl) and empty outputs are left out.
	Templates map[string]string
	// Objects are the Kubernetes objects of every template, in template
	// name order, then document order.
	Objects []map[string]any
	// Warnings are sorted and deduplicated (refused lookups).
	Warnings []string
}

// Values renders the interpreted values of a sylva-units chart for the
// values files (merged in order, as `helm -f` does): the `values` of the
// sylva-units-values Secret that `helm template` (or helm-controller) would
// render, taken from a render of the chart reduced to what that Secret
// needs — the chart's partials (its helpers and its subcharts'), the part
// of units.yaml that runs before its loop over the units, a replay of what
// that loop leaves in .Values, and the Secret's own template — rather than
// every unit. Values that Helm draws at random (randAlphaNum, now, …) differ
// from run to run, as they do with Helm.
//
// Errors: a *SchemaError when the chart's schema rejects the values (unless
// opts.SkipSchemaValidation); a *ChartError naming the template, Helm's
// message and, when it can be told, the values path, when a template fails.
// A check that the chart makes only while it renders the units (in
// units.yaml's loop, or in the status Kustomizations of
// sylva-units-values.yaml) is not run, unless opts.Validate.
func (c *Chart) Values(ctx context.Context, files []File, opts ChartOptions) (*ChartResult, error) {
	if c.secret == "" || c.prelude == "" {
		return nil, fmt.Errorf("chart %s has no %s and %s to read the interpreted values from; values render --chart reads sylva-units charts", c.ch.Name(), unitsTemplate, secretTemplate)
	}
	p, err := c.prepare(ctx, files, opts)
	if err != nil {
		return nil, err
	}
	if !opts.Validate {
		extra := map[string]string{
			unitsTemplate:  c.prelude + c.epilogue,
			secretTemplate: c.secret,
		}
		if c.unshield {
			extra[rawOverride] = `{{- define "unshield-raw" -}}{{ . }}{{- end -}}`
		}
		reduce(p.ch, extra)
	}
	out, err := engine.RenderWithClientProvider(p.ch, p.top, p.guard)
	if err != nil {
		return nil, chartError(err, p.top, p.frames)
	}
	text := firstDocument(out[path.Join(p.ch.Name(), secretTemplate)])
	var secret struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		StringData map[string]string `json:"stringData"`
	}
	if err := yaml.Unmarshal([]byte(text), &secret); err != nil {
		return nil, fmt.Errorf("chart %s: read the %s Secret: %w", c.ch.Name(), ValuesSecret, err)
	}
	raw, ok := secret.StringData["values"]
	if secret.Kind != "Secret" || secret.Metadata.Name != ValuesSecret || !ok {
		return nil, fmt.Errorf("chart %s: %s does not render a %s Secret with stringData.values", c.ch.Name(), secretTemplate, ValuesSecret)
	}
	if c.unshield {
		// Shielded again, the text parses even where the chart's
		// unshield-raw left a "(raw)" string as unquoted flow syntax; the
		// reduced render did not unshield it at all.
		raw = strings.ReplaceAll(raw, "{{", RawShield)
	}
	vals, err := Parse([]byte(raw))
	if err != nil {
		return nil, fmt.Errorf("chart %s: the %s Secret: %w", c.ch.Name(), ValuesSecret, err)
	}
	if c.unshield {
		vals = unshieldRaw(vals).(map[string]any)
	}
	return &ChartResult{Values: vals, Warnings: p.warnings()}, nil
}

// unshieldRaw turns the shield of "(raw)" strings back into {{ in every
// string and key of v, as the chart's "unshield-raw" does on the Secret's
// text.
func unshieldRaw(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[strings.ReplaceAll(k, RawShield, "{{")] = unshieldRaw(x)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = unshieldRaw(x)
		}
		return out
	case string:
		return strings.ReplaceAll(t, RawShield, "{{")
	}
	return v
}

// Eval renders text as one more template of the chart, after the values
// are interpreted as in Values: `.` is the chart context whose .Values are
// the interpreted values, and every helper of the chart and its subcharts
// can be called, for example
// `{{ include "unit-def" (tuple . "longhorn") }}` to resolve a unit
// (unit_definition_defaults, its unit_templates, its gotpl) as the chart
// does. It returns the rendered text.
func (c *Chart) Eval(ctx context.Context, files []File, opts ChartOptions, text string) (string, error) {
	p, err := c.prepare(ctx, files, opts)
	if err != nil {
		return "", err
	}
	extra := map[string]string{evalTemplate: text}
	if c.prelude != "" {
		extra[unitsTemplate] = c.prelude
	}
	reduce(p.ch, extra)
	out, err := engine.RenderWithClientProvider(p.ch, p.top, p.guard)
	if err != nil {
		return "", chartError(err, p.top, p.frames)
	}
	return out[path.Join(p.ch.Name(), evalTemplate)], nil
}

// CanRenderUnits says why the chart cannot be reduced to its units
// (Input.RenderUnits), if it cannot.
func (c *Chart) CanRenderUnits() error {
	if unitsLoop.FindStringIndex(c.units) == nil || c.values == "" {
		return fmt.Errorf("chart %s has no loop over .Values.units in %s or no %s; render the whole chart instead", c.ch.Name(), unitsTemplate, secretTemplate)
	}
	return nil
}

// statusLoop is the loop of sylva-units-values.yaml's status
// Kustomizations over the units, which lists every enabled unit's
// Kustomization in their dependsOn (and the one-shot units in their
// ConfigMap patch).
var statusLoop = regexp.MustCompile(`\brange\s+\$unit_name\s*,\s*\$unit_def\s*:=\s*\$envAll\.Values\.units\b`)

// renderUnits renders p reduced to the units: the chart's partials,
// units.yaml with its loop over the units restricted to them (then a
// replay of what the whole loop leaves in .Values, as Values does) and
// sylva-units-values.yaml; each object is the one the whole chart renders
// (a test compares them, RenderUnits against Render). With
// pickStatus, the loops of the status Kustomizations over the units (after
// the values Secret's document) are restricted to the units too: their
// dependsOn and one-shot-units then name those units only, and the rest of
// each Kustomization (its additional-info among them) is what the whole
// chart renders, without resolving every enabled unit (kustomization-name calls
// unit-def on each), the larger part of the cost of the status documents.
func (c *Chart) renderUnits(p *prepared, units []string, pickStatus bool) (*Manifests, error) {
	loop := unitsLoop.FindStringIndex(c.units)
	head := c.units[loop[0]:loop[1]]
	i := strings.LastIndex(head, ".Values.units")
	quoted := make([]string, 0, len(units))
	for _, u := range units {
		quoted = append(quoted, strconv.Quote(u))
	}
	picked := head[:i] + "(pick .Values.units " + strings.Join(quoted, " ") + ")" + head[i+len(".Values.units"):]
	values := c.values
	if pickStatus {
		if loc := docSplit.FindStringIndex(values); loc != nil {
			values = values[:loc[1]] + statusLoop.ReplaceAllStringFunc(values[loc[1]:], func(m string) string {
				return strings.TrimSuffix(m, "$envAll.Values.units") + "(pick $envAll.Values.units " + strings.Join(quoted, " ") + ")"
			})
		}
	}
	reduce(p.ch, map[string]string{
		unitsTemplate:  c.units[:loop[0]] + picked + c.units[loop[1]:] + "\n" + c.epilogue,
		secretTemplate: values,
	})
	return p.manifests()
}

// Render renders every template of the chart from in, as helm-controller
// does, in the release context of opts (install, or upgrade with
// opts.IsUpgrade and its Revision), with `lookup` served from opts.Source
// within opts.Allow. Errors as for Values.
func (in *Input) Render(ctx context.Context, opts ChartOptions) (*Manifests, error) {
	p, err := in.instance(ctx, opts)
	if err != nil {
		return nil, err
	}
	return p.manifests()
}

// RenderUnits renders from in, in the release context of opts as Render
// does, the chart reduced to the named units (renderUnits): units.yaml's
// loop over the units and the loops of the status Kustomizations
// restricted to them. Each object but the status Kustomizations is the
// one the whole chart renders; those name the units given only, the rest
// of each (its additional-info among it) as the whole chart renders it.
// The chart must allow it (CanRenderUnits).
func (in *Input) RenderUnits(ctx context.Context, opts ChartOptions, units ...string) (*Manifests, error) {
	if err := in.chart.CanRenderUnits(); err != nil {
		return nil, err
	}
	p, err := in.instance(ctx, opts)
	if err != nil {
		return nil, err
	}
	return in.chart.renderUnits(p, units, true)
}

// manifests renders a prepared chart and decodes its objects.
func (p *prepared) manifests() (*Manifests, error) {
	out, err := engine.RenderWithClientProvider(p.ch, p.top, p.guard)
	if err != nil {
		return nil, chartError(err, p.top, p.frames)
	}
	m := &Manifests{Templates: map[string]string{}, Warnings: p.warnings()}
	for _, name := range sortedKeys(out) {
		text := out[name]
		if strings.TrimSpace(text) == "" || strings.HasSuffix(name, "NOTES.txt") {
			continue
		}
		m.Templates[name] = text
		for i, doc := range yamldoc.Split([]byte(text)) {
			var obj map[string]any
			if err := yaml.Unmarshal(doc, &obj); err != nil {
				return nil, fmt.Errorf("%s: document %d: %w", name, i+1, err)
			}
			if len(obj) > 0 {
				m.Objects = append(m.Objects, obj)
			}
		}
	}
	return m, nil
}
