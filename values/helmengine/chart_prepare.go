package helmengine

import (
	"cmp"
	"context"
	"fmt"
	"path"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"

	"gitlab.com/sylva-projects/sylva-planner/units"
)

var unitsLoop = regexp.MustCompile(`(?m)^[ \t]*\{\{-?\s*range\s+\$unit_name\s*,\s*\$unit_def\s*:=\s*\.Values\.units\b`)

// unitsPrelude is units.yaml up to its loop over the units: the
// interpretation of the values and what is computed once before the loop.
func unitsPrelude(units string) string {
	loc := unitsLoop.FindStringIndex(units)
	if loc == nil {
		return ""
	}
	return units[:loc[0]]
}

var docSplit = regexp.MustCompile(`(?m)^---[ \t]*$`)

// firstDocument is the text of a template up to its first `---` line.
func firstDocument(s string) string {
	if loc := docSplit.FindStringIndex(s); loc != nil {
		return s[:loc[0]]
	}
	return s
}

// partials are the partials (_*.tpl) of the chart and its subcharts, the
// chart's first.
func partials(ch *chart.Chart) []*chart.File {
	var out []*chart.File
	for _, t := range ch.Templates {
		if strings.HasPrefix(path.Base(t.Name), "_") {
			out = append(out, t)
		}
	}
	for _, d := range ch.Dependencies() {
		out = append(out, partials(d)...)
	}
	return out
}

// helpers is the text of every partial of the chart and its subcharts.
func (c *Chart) helpers() string {
	var b strings.Builder
	for _, t := range partials(c.ch) {
		b.Write(t.Data)
		b.WriteByte('\n')
	}
	return b.String()
}

func defines(helpers, name string) bool {
	return regexp.MustCompile(`\{\{-?\s*define\s+"` + regexp.QuoteMeta(name) + `"`).MatchString(helpers)
}

// unitsEpilogue replays, without rendering the units, what units.yaml's
// loop leaves in .Values: it calls the chart's own "unit-enabled" on every
// unit (a unit that fails it fails the render, as in Helm), then the
// unit-def helper of the last enabled unit and the "kustomization-name" of
// its last active dependency, the last calls of the loop that write
// `_unit_name_` and `_kustomization_name_`.
func unitsEpilogue(helpers string) string {
	if !defines(helpers, "unit-enabled") {
		return ""
	}
	var b strings.Builder
	b.WriteString(`{{- $sp_last := "" -}}
{{- range $sp_name, $sp_def := $envAll.Values.units -}}
  {{- if include "unit-enabled" (tuple $envAll $sp_name) -}}{{- $sp_last = $sp_name -}}{{- end -}}
{{- end -}}
`)
	switch {
	case defines(helpers, "unit-def") && defines(helpers, "kustomization-name"):
		b.WriteString(`{{- if $sp_last -}}
  {{- $sp_def := include "unit-def" (tuple $envAll $sp_last) | fromJson -}}
  {{- $sp_dep := "" -}}
  {{- range $sp_dep_name, $sp_is_dep := $sp_def.depends_on | default dict -}}
    {{- if tuple $envAll $sp_is_dep (printf "%s, depends on %s" $sp_last $sp_dep_name) | include "interpret-for-test" -}}
      {{- if not ($sp_dep_name | contains "/") -}}{{- $sp_dep = $sp_dep_name -}}{{- end -}}
    {{- end -}}
  {{- end -}}
  {{- if $sp_dep -}}{{- $_ := include "kustomization-name" (tuple $envAll $sp_dep) -}}{{- end -}}
{{- end -}}
`)
	case defines(helpers, "unit-def-from-templates"):
		b.WriteString(`{{- if $sp_last -}}
  {{- $_ := include "unit-def-from-templates" (tuple $envAll $sp_last $origUnitTemplates) -}}
{{- end -}}
`)
	}
	return b.String()
}

// prepared is one render's chart copy and values.
type prepared struct {
	ch     *chart.Chart
	top    chartutil.Values
	guard  *lookupGuard
	frames shortcutFrames
}

// warnings are the refused lookups, none when the source is empty (a
// refused lookup then changes nothing: the object would not be found).
func (p *prepared) warnings() []string {
	if o, ok := p.guard.src.(*Objects); ok && o.Len() == 0 {
		return nil
	}
	return p.guard.warnings()
}

// prepare merges the files as `helm -f` does, coalesces them with the
// chart's defaults, validates the schema and builds the render context,
// as Helm's install action does.
func (c *Chart) prepare(ctx context.Context, files []File, opts ChartOptions) (*prepared, error) {
	in, err := c.Input(files, opts)
	if err != nil {
		return nil, err
	}
	return &prepared{ch: in.ch, top: in.top, guard: newLookupGuard(ctx, in.ns, opts.Source, opts.Allow), frames: in.frames}, nil
}

// Input is what a render starts from, built once (Chart.Input): the
// chart tree with its dependencies processed for the values, and the
// render context whose .Values are the values files merged, coalesced
// with the chart's defaults and checked against its schema. A render
// changes both (the engine writes into .Values, reduce into the
// templates), so one input serves several renders, at the same time too,
// only through instance (Render, RenderUnits).
type Input struct {
	chart  *Chart
	ch     *chart.Chart
	top    chartutil.Values
	ns     string
	frames shortcutFrames
}

// Input merges the files as `helm -f` does, coalesces them with the
// chart's defaults and validates the schema, as Helm's install action
// does, for the renders of the input (its Render and RenderUnits). Errors
// as for Values.
func (c *Chart) Input(files []File, opts ChartOptions) (*Input, error) {
	docs := make([]map[string]any, 0, len(files))
	for _, f := range files {
		d, err := Parse(f.Data)
		if err != nil {
			return nil, fmt.Errorf("values %s: %w", f.Name, err)
		}
		docs = append(docs, d)
	}
	vals := map[string]any{}
	for _, d := range docs {
		vals = units.MergeMaps(vals, d)
	}
	ch := cloneChart(c.ch)
	if err := chartutil.ProcessDependenciesWithMerge(ch, vals); err != nil {
		return nil, fmt.Errorf("chart %s dependencies: %w", ch.Name(), err)
	}
	ropts, caps, err := releaseContext(opts)
	if err != nil {
		return nil, err
	}
	top, err := chartutil.ToRenderValuesWithSchemaValidation(ch, vals, ropts, caps, opts.SkipSchemaValidation)
	if err != nil {
		return nil, schemaError(ch.Name(), err)
	}
	// The engine reads the values from top (coalesced from a copy of the
	// chart's): the copy in the tree would only take memory while the
	// input lives.
	dropValues(ch)
	return &Input{chart: c, ch: ch, top: top, ns: ropts.Namespace, frames: c.frames}, nil
}

// dropValues empties the values of a chart tree that cloneChart copied.
func dropValues(ch *chart.Chart) {
	ch.Values = nil
	for _, d := range ch.Dependencies() {
		dropValues(d)
	}
}

// releaseContext is the release and capabilities opts give a render.
func releaseContext(opts ChartOptions) (chartutil.ReleaseOptions, *chartutil.Capabilities, error) {
	ns, name := cmp.Or(opts.Namespace, DefaultNamespace), cmp.Or(opts.ReleaseName, DefaultReleaseName)
	rev := opts.Revision
	if rev == 0 {
		rev = 1
	}
	caps := chartutil.DefaultCapabilities.Copy()
	if opts.KubeVersion != "" {
		kv, ok := kubeVersion(opts.KubeVersion)
		if !ok {
			return chartutil.ReleaseOptions{}, nil, fmt.Errorf("kube version %q is not a Kubernetes version; give one such as 1.33 or v1.33.5", opts.KubeVersion)
		}
		caps.KubeVersion = kv
	}
	if err := addServed(caps, opts.Source); err != nil {
		return chartutil.ReleaseOptions{}, nil, err
	}
	return chartutil.ReleaseOptions{Name: name, Namespace: ns, Revision: rev, IsInstall: !opts.IsUpgrade, IsUpgrade: opts.IsUpgrade}, caps, nil
}

// instance is a render of the input in the release context of opts (which
// may differ from the input's in its release: install or upgrade, the
// revision), with its own copy of what a render changes: the chart tree
// (templates and dependencies; the files and metadata are shared, read
// only) and the render context, built by Helm as prepare's is, with a deep
// copy of the input's .Values; lookup is served from opts.Source within
// opts.Allow. The input is left as it was, so instances may render at the
// same time.
func (in *Input) instance(ctx context.Context, opts ChartOptions) (*prepared, error) {
	ropts, caps, err := releaseContext(opts)
	if err != nil {
		return nil, err
	}
	// The chart's values are coalesced already: only the metadata.
	top, err := chartutil.ToRenderValuesWithSchemaValidation(&chart.Chart{Metadata: in.ch.Metadata}, nil, ropts, caps, true)
	if err != nil {
		return nil, fmt.Errorf("chart %s: %w", in.ch.Name(), err)
	}
	top["Values"] = copyTree(in.top["Values"])
	return &prepared{ch: shareChart(in.ch), top: top, guard: newLookupGuard(ctx, ropts.Namespace, opts.Source, opts.Allow), frames: in.frames}, nil
}

// copyTree copies the maps and slices of a render context, keeping each
// one's type (chartutil.Values or map[string]any, []any, …) so that the
// chart's kindOf and typeOf see what they would see in a fresh context.
// A nil map or slice stays nil. Other values (strings, numbers, the
// chart metadata and capabilities) are shared: a template cannot change
// them.
func copyTree(v any) any {
	switch t := v.(type) {
	case map[string]any:
		if t == nil {
			return t
		}
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = copyTree(x)
		}
		return out
	case chartutil.Values:
		if t == nil {
			return t
		}
		out := make(chartutil.Values, len(t))
		for k, x := range t {
			out[k] = copyTree(x)
		}
		return out
	case []any:
		if t == nil {
			return t
		}
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = copyTree(x)
		}
		return out
	case nil, string, bool, int, int64, float64:
		return v
	}
	rv := reflect.ValueOf(v)
	if k := rv.Kind(); (k != reflect.Map && k != reflect.Slice) || rv.IsNil() {
		return v
	}
	elem := func(x any) reflect.Value {
		if c := reflect.ValueOf(copyTree(x)); c.IsValid() {
			return c
		}
		return reflect.Zero(rv.Type().Elem())
	}
	if rv.Kind() == reflect.Map {
		out := reflect.MakeMapWithSize(rv.Type(), rv.Len())
		for it := rv.MapRange(); it.Next(); {
			out.SetMapIndex(it.Key(), elem(it.Value().Interface()))
		}
		return out.Interface()
	}
	out := reflect.MakeSlice(rv.Type(), rv.Len(), rv.Len())
	for i := range rv.Len() {
		out.Index(i).Set(elem(rv.Index(i).Interface()))
	}
	return out.Interface()
}

// shareChart copies the chart tree for one render: its own templates
// list (which reduce changes) and dependencies, sharing the rest.
func shareChart(ch *chart.Chart) *chart.Chart { return copyChart(ch, false) }

// cloneChart copies the chart tree so that a render can change its
// dependencies, values and metadata's dependency list
// (ProcessDependencies does: it marks each entry enabled or not, renames
// aliased ones and drops disabled ones) without touching the loaded chart,
// which renders running at the same time share. Templates and files are
// shared; they are read only.
func cloneChart(ch *chart.Chart) *chart.Chart { return copyChart(ch, true) }

// copyChart copies the chart tree with its own templates list and
// dependencies, and its own values and metadata when values is set.
func copyChart(ch *chart.Chart, values bool) *chart.Chart {
	cp := *ch
	if values {
		cp.Values = units.DeepCopy(orEmpty(ch.Values))
		cp.Metadata = copyMetadata(ch.Metadata)
	}
	cp.Templates = slices.Clone(ch.Templates)
	deps := make([]*chart.Chart, 0, len(ch.Dependencies()))
	for _, d := range ch.Dependencies() {
		deps = append(deps, copyChart(d, values))
	}
	cp.SetDependencies(deps...)
	return &cp
}

// copyMetadata copies what ProcessDependencies changes in a chart's
// metadata: its dependency list and each entry of it.
func copyMetadata(m *chart.Metadata) *chart.Metadata {
	if m == nil {
		return nil
	}
	cp := *m
	cp.Dependencies = make([]*chart.Dependency, len(m.Dependencies))
	for i, d := range m.Dependencies {
		if d != nil {
			dc := *d
			dc.Tags = slices.Clone(d.Tags)
			dc.ImportValues = slices.Clone(d.ImportValues)
			cp.Dependencies[i] = &dc
		}
	}
	if m.Dependencies == nil {
		cp.Dependencies = nil
	}
	return &cp
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// reduce keeps only the partials of the chart tree and adds the given
// templates to the root chart.
func reduce(ch *chart.Chart, extra map[string]string) {
	var keep func(ch *chart.Chart)
	keep = func(ch *chart.Chart) {
		ch.Templates = slices.DeleteFunc(ch.Templates, func(t *chart.File) bool {
			return !strings.HasPrefix(path.Base(t.Name), "_")
		})
		for _, d := range ch.Dependencies() {
			keep(d)
		}
	}
	keep(ch)
	for _, name := range sortedKeys(extra) {
		ch.Templates = append(ch.Templates, &chart.File{Name: name, Data: []byte(extra[name])})
	}
}
