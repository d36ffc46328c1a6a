package values

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"gitlab.com/sylva-projects/sylva-planner/units"
)

// unitsEval is the template Chart.Units evaluates: for every unit of
// .Values.units, the chart's own verdict ("unit-enabled"), its definition
// as the chart builds it ("unit-def": unit_definition_defaults, its
// unit_templates in order, the unit, every gotpl string interpreted; or
// "unit-def-from-templates" on the charts that predate it), and its
// depends_on reduced, as units.yaml does, to the keys whose value
// "interpret-for-test" holds true. The result is one JSON object keyed by
// unit name. %s is the definition call for $sp_name.
const unitsEval = `{{- $envAll := . -}}
{{- $sp_out := dict -}}
%s
{{- range $sp_name, $_ := $envAll.Values.units -}}
  {{- $sp_def := include "%s" (%s) | fromJson -}}
  {{- $sp_enabled := include "unit-enabled" (tuple $envAll $sp_name) | empty | not -}}
  {{- if hasKey $sp_def "depends_on" -}}
    {{- $sp_deps := dict -}}
    {{- if kindIs "map" $sp_def.depends_on -}}
      {{- range $sp_dep, $sp_is := $sp_def.depends_on -}}
        {{- if tuple $envAll $sp_is (printf "%%s, depends on %%s" $sp_name $sp_dep) | include "interpret-for-test" -}}
          {{- $_ := set $sp_deps $sp_dep true -}}
        {{- end -}}
      {{- end -}}
      {{- $_ := set $sp_def "depends_on" $sp_deps -}}
    {{- end -}}
  {{- end -}}
  {{- $_ := set $sp_def "enabled" $sp_enabled -}}
  {{- $_ := unset $sp_def "_unit_name_" -}}
  {{- $_ := set $sp_out $sp_name $sp_def -}}
{{- end -}}
{{- $sp_out | toJson -}}`

// Units resolves every unit of a sylva-units chart as the chart does, for
// the values files (merged as `helm -f` merges them) in the release
// context opts: each unit's definition built by the chart's own helper
// (unit_definition_defaults, then its unit_templates in order, then the
// unit's own fields, every gotpl string interpreted), its "enabled" set to
// the chart's "unit-enabled" verdict (a boolean), and its depends_on
// reduced to the entries the chart keeps when it writes the unit's
// dependsOn (each kept key maps to true; a key may be namespace/name).
// One evaluation of the chart's helpers, without rendering the units'
// objects. Errors as for Values; a chart without the unit helpers is an
// error naming what it lacks.
func (c *Chart) Units(ctx context.Context, files []File, opts ChartOptions) (map[string]map[string]any, error) {
	helpers := c.helpers()
	if !defines(helpers, "unit-enabled") || !defines(helpers, "interpret-for-test") {
		return nil, fmt.Errorf("chart %s defines no \"unit-enabled\" and \"interpret-for-test\" helpers; --chart reads sylva-units charts", c.ch.Name())
	}
	var text string
	switch {
	case defines(helpers, "unit-def"):
		text = fmt.Sprintf(unitsEval, "", "unit-def", "tuple $envAll $sp_name")
	case defines(helpers, "unit-def-from-templates"):
		// These charts build a unit from the unit_templates as written
		// (units.yaml keeps a copy before it interprets the values, so
		// that each template sees the unit's _unit_name_): pass the same
		// copy, merged from the chart's values and the files.
		orig, err := c.rawUnitTemplates(files)
		if err != nil {
			return nil, err
		}
		text = fmt.Sprintf(unitsEval, "{{- $sp_orig := "+strconv.Quote(orig)+" | fromJson -}}",
			"unit-def-from-templates", "tuple $envAll $sp_name $sp_orig")
	default:
		return nil, fmt.Errorf("chart %s defines neither \"unit-def\" nor \"unit-def-from-templates\"; --chart reads sylva-units charts", c.ch.Name())
	}
	out, err := c.Eval(ctx, files, opts, text)
	if err != nil {
		return nil, err
	}
	var defs map[string]map[string]any
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &defs); err != nil {
		return nil, fmt.Errorf("chart %s: read the units it resolved: %w", c.ch.Name(), err)
	}
	return defs, nil
}

// rawUnitTemplates is the JSON of unit_templates as written: the chart's
// defaults with the files merged over them in order.
func (c *Chart) rawUnitTemplates(files []File) (string, error) {
	merged := map[string]any{}
	if t, ok := c.ch.Values["unit_templates"].(map[string]any); ok {
		merged = units.MergeMaps(merged, map[string]any{"unit_templates": t})
	}
	for _, f := range files {
		d, err := Parse(f.Data)
		if err != nil {
			return "", fmt.Errorf("values %s: %w", f.Name, err)
		}
		if t, ok := d["unit_templates"].(map[string]any); ok {
			merged = units.MergeMaps(merged, map[string]any{"unit_templates": t})
		}
	}
	t, _ := merged["unit_templates"].(map[string]any)
	if t == nil {
		t = map[string]any{}
	}
	b, err := json.Marshal(t)
	if err != nil {
		return "", fmt.Errorf("chart %s: unit_templates: %w", c.ch.Name(), err)
	}
	return string(b), nil
}
