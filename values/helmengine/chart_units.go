package helmengine

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"text/template/parse"

	"helm.sh/helm/v3/pkg/chart"

	"gitlab.com/sylva-projects/sylva-planner/units"
)

// unitsEval is the template Chart.Units evaluates: for every unit of
// .Values.units, the chart's own verdict ("unit-enabled"), its definition
// as the chart builds it ("unit-def": unit_definition_defaults, its
// unit_templates in order, the unit, every gotpl string interpreted; its
// copy that interprets only unitFields; or "unit-def-from-templates" on
// the charts that predate it), and its
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

// unitFields are the fields of a unit's definition that Units returns,
// besides enabled: what prune-audit reads of a unit.
var unitFields = []string{"unit_templates", "one_shot", "depends_on", "info"}

const (
	unitDefName   = "unit-def"
	unitFieldsDef = "sylva-planner-unit-fields"
	// unitDefInterpret is the call of the chart's "unit-def" that
	// interprets the unit's whole merged definition, as its parse tree
	// writes it.
	unitDefInterpret = `tuple $envAll $unit_def | include "interpret-inner-gotpl"`
)

// unitFieldsHelper derives from the chart's own "unit-def" a helper that
// builds a unit's definition as it does (unit_definition_defaults, the
// unit_templates in order, the unit; _unit_name_ and _kustomization_name_
// set while it interprets) but interprets only unitFields, which it picks
// from the merged definition, instead of every field (helmrelease_spec,
// kustomization_spec, ...). A gotpl string is interpreted alone, against
// the values, so each of these fields comes out as the chart's unit-def
// gives it. ok is false, and the chart's unit-def is used, when its
// definition does not have exactly one such call (every ref of the bundle
// from 1.2 on has it; 1.0's charts build units with
// unit-def-from-templates).
func unitFieldsHelper(ch *chart.Chart) (text string, ok bool) {
	var def *parse.Tree
	found := 0
	for _, f := range partials(ch) {
		// Each file alone, as Helm parses them: two files may define the
		// same helper.
		trees, err := parseTrees(f.Name, string(f.Data))
		if err != nil {
			continue
		}
		if d, ok := trees[unitDefName]; ok && d.Root != nil {
			def = d
			found++
		}
	}
	if found != 1 {
		return "", false
	}
	body := def.Root.String()
	if strings.Count(body, unitDefInterpret) != 1 {
		return "", false
	}
	picked := make([]string, len(unitFields))
	for i, f := range unitFields {
		picked[i] = strconv.Quote(f)
	}
	narrowed := `tuple $envAll (pick $unit_def ` + strings.Join(picked, " ") + `) | include "interpret-inner-gotpl"`
	return `{{- define "` + unitFieldsDef + `" -}}` + strings.Replace(body, unitDefInterpret, narrowed, 1) + `{{- end -}}`, true
}

// Units resolves every unit of a sylva-units chart as the chart does, for
// the values files (merged as `helm -f` merges them) in the release
// context opts: for each unit, the fields of unitFields of its definition
// as the chart's own helper builds it (unit_definition_defaults, then its
// unit_templates in order, then the unit's own fields, every gotpl string
// interpreted), "enabled" set to the chart's "unit-enabled" verdict (a
// boolean), and depends_on reduced to the entries the chart keeps when it
// writes the unit's dependsOn (each kept key maps to true; a key may be
// namespace/name). One evaluation of the chart's helpers, without
// rendering the units' objects, and interpreting only those fields where
// the chart's unit-def allows it (unitFieldsHelper): a template error in
// another field of a unit (helmrelease_spec, ...) is left to a render.
// Errors as for Values, as the chart's own unit-def gives them; a chart
// without the unit helpers is an error naming what it lacks.
func (c *Chart) Units(ctx context.Context, files []File, opts ChartOptions) (map[string]map[string]any, error) {
	defs, err := c.resolveUnits(ctx, files, opts, true)
	if err != nil {
		// The message as the chart's own unit-def gives it, not the
		// narrowed copy's.
		if _, again := c.resolveUnits(ctx, files, opts, false); again != nil {
			err = again
		}
	}
	return defs, err
}

// resolveUnits is Units; narrow uses unitFieldsHelper where the chart allows it,
// else every field of each unit's definition is interpreted and returned.
func (c *Chart) resolveUnits(ctx context.Context, files []File, opts ChartOptions, narrow bool) (map[string]map[string]any, error) {
	helpers := c.helpers()
	if !defines(helpers, "unit-enabled") || !defines(helpers, "interpret-for-test") {
		return nil, fmt.Errorf("chart %s defines no \"unit-enabled\" and \"interpret-for-test\" helpers; --chart reads sylva-units charts", c.ch.Name())
	}
	var text string
	fields, narrowed := c.unitFields()
	switch {
	case narrow && narrowed:
		text = fields + fmt.Sprintf(unitsEval, "", unitFieldsDef, "tuple $envAll $sp_name")
	case defines(helpers, unitDefName):
		text = fmt.Sprintf(unitsEval, "", unitDefName, "tuple $envAll $sp_name")
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
