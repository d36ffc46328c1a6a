package values

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/fileio"
	"gitlab.com/sylva-projects/sylva-planner/units"
	"gitlab.com/sylva-projects/sylva-planner/yamldoc"
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
	// valuesSecret is the name of the Secret holding the interpreted values.
	valuesSecret = "sylva-units-values"
	// rawOverride replaces the chart's "unshield-raw" (which turns the
	// shield 《 back into {{ in the Secret's YAML text, leaving YAML that
	// may not parse) by the identity; Values then unshields the parsed
	// strings. Its name sorts so that Helm parses it last.
	rawOverride = "templates/_0-sylva-planner-unshield.tpl"
	// rawShield is the character sylva-units' "(raw)" values use for {{.
	rawShield = "《"
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

// SchemaError is a values tree the chart's values.schema.json rejects.
type SchemaError struct {
	// Chart names the chart whose schema failed.
	Chart string
	// Problems are Helm's messages, one per failing path, for example
	// "at '/cluster_virtual_ip': 'oneOf' failed, subschemas 0, 1 matched".
	Problems []string
}

func (e *SchemaError) Error() string {
	return fmt.Sprintf("values do not meet the schema of chart %s: %s (skip the check with --skip-schema-validation)", e.Chart, strings.Join(e.Problems, "; "))
}

// ChartError is a chart template that failed to render.
type ChartError struct {
	// Template is the chart file that failed, for example
	// "sylva-units/templates/units.yaml", with its line when Helm gives it.
	Template string
	// Path is the values path of the gotpl string that failed, when it can
	// be told from the message ("values.units.foo.enabled"); empty
	// otherwise.
	Path string
	// Message is Helm's message.
	Message string
}

func (e *ChartError) Error() string {
	if e.Path != "" {
		return e.Path + ": " + e.Message
	}
	return e.Message
}

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
	// sylva-units-values.yaml, for RenderUnits.
	units, values string
	// unshield is true when the Secret's template unshields "(raw)"
	// strings.
	unshield bool
}

// LoadChart loads a chart directory or archive (.tgz), with its
// subcharts, as Helm does, once checkChartPath accepts it.
func LoadChart(chartPath string) (*Chart, error) {
	if err := checkChartPath(chartPath); err != nil {
		return nil, fmt.Errorf("load chart %s: %w", chartPath, err)
	}
	ch, err := loader.Load(chartPath)
	if err != nil {
		return nil, fmt.Errorf("load chart %s: %w", chartPath, err)
	}
	return NewChart(ch), nil
}

// checkChartPath accepts a chart path that Helm's loader can read without
// harm: a regular file (an archive), or a directory whose files are regular
// files, directories, or symbolic links to those inside the directory. A
// named pipe or a device (which would block the loader or feed it without
// end) and a link out of the chart (which would put, say, /etc/shadow into
// the chart's Files) are refused, naming the file. A dangling link is left
// to Helm (sylva-units' test-values hold some, which .helmignore skips).
func checkChartPath(chartPath string) error {
	st, err := os.Stat(chartPath)
	switch {
	case err != nil:
		return err
	case st.Mode().IsRegular():
		return nil
	case !st.IsDir():
		return fmt.Errorf("not a chart directory or archive: %w", fileio.NotRegular(chartPath, st.Mode()))
	}
	root, err := filepath.EvalSymlinks(chartPath)
	if err != nil {
		return err
	}
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" && p != root {
				return filepath.SkipDir
			}
			return nil
		}
		t := d.Type()
		if t&fs.ModeSymlink != 0 {
			dest, err := filepath.EvalSymlinks(p)
			if err != nil {
				return nil //nolint:nilerr // a dangling link is Helm's to report, where it reads it
			}
			if rel, err := filepath.Rel(root, dest); err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
				return fmt.Errorf("%s is a symbolic link out of the chart (to %s); a chart's files must be its own", p, dest)
			}
			ds, err := os.Stat(dest)
			if err != nil {
				return err
			}
			t = ds.Mode().Type()
		}
		if t != 0 && t&fs.ModeDir == 0 {
			return fmt.Errorf("a chart's files must be regular files: %w", fileio.NotRegular(p, t))
		}
		return nil
	})
}

// NewChart wraps a chart loaded by Helm's loader. The chart is not
// modified.
func NewChart(ch *chart.Chart) *Chart {
	c := &Chart{ch: ch}
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

// Target is the chart as values generate reads it: its name and version,
// and its default values.
func (c *Chart) Target() *TargetChart {
	return &TargetChart{Name: c.Name() + " " + c.Version(), Values: c.ch.Values}
}

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

// helpers is the text of every partial of the chart and its subcharts.
func (c *Chart) helpers() string {
	var b strings.Builder
	var walk func(ch *chart.Chart)
	walk = func(ch *chart.Chart) {
		for _, t := range ch.Templates {
			if strings.HasPrefix(path.Base(t.Name), "_") {
				b.Write(t.Data)
				b.WriteByte('\n')
			}
		}
		for _, d := range ch.Dependencies() {
			walk(d)
		}
	}
	walk(c.ch)
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
	ch    *chart.Chart
	top   chartutil.Values
	guard *lookupGuard
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
	in, err := c.input(files, opts)
	if err != nil {
		return nil, err
	}
	return &prepared{ch: in.ch, top: in.top, guard: newLookupGuard(ctx, in.ns, opts.Source, opts.Allow)}, nil
}

// renderInput is what prepare builds before a render: the chart tree with
// its dependencies processed for the values, and the render context whose
// .Values are the coalesced values. A render changes both (the engine
// writes into .Values, reduce into the templates), so one input serves
// several renders only through instance.
type renderInput struct {
	ch  *chart.Chart
	top chartutil.Values
	ns  string
}

// input merges, coalesces and validates the files for prepare.
func (c *Chart) input(files []File, opts ChartOptions) (*renderInput, error) {
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
	return &renderInput{ch: ch, top: top, ns: ropts.Namespace}, nil
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
func (in *renderInput) instance(ctx context.Context, opts ChartOptions) (*prepared, error) {
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
	return &prepared{ch: shareChart(in.ch), top: top, guard: newLookupGuard(ctx, ropts.Namespace, opts.Source, opts.Allow)}, nil
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
	switch rv.Kind() {
	case reflect.Map:
		if rv.IsNil() {
			return v
		}
		out := reflect.MakeMapWithSize(rv.Type(), rv.Len())
		for it := rv.MapRange(); it.Next(); {
			x := reflect.ValueOf(copyTree(it.Value().Interface()))
			if !x.IsValid() {
				x = reflect.Zero(rv.Type().Elem())
			}
			out.SetMapIndex(it.Key(), x)
		}
		return out.Interface()
	case reflect.Slice:
		if rv.IsNil() {
			return v
		}
		out := reflect.MakeSlice(rv.Type(), rv.Len(), rv.Len())
		for i := range rv.Len() {
			x := reflect.ValueOf(copyTree(rv.Index(i).Interface()))
			if !x.IsValid() {
				x = reflect.Zero(rv.Type().Elem())
			}
			out.Index(i).Set(x)
		}
		return out.Interface()
	}
	return v
}

// shareChart copies the chart tree for one render: its own templates
// list (which reduce changes) and dependencies, sharing the rest.
func shareChart(ch *chart.Chart) *chart.Chart {
	cp := *ch
	cp.Templates = slices.Clone(ch.Templates)
	deps := make([]*chart.Chart, 0, len(ch.Dependencies()))
	for _, d := range ch.Dependencies() {
		deps = append(deps, shareChart(d))
	}
	cp.SetDependencies(deps...)
	return &cp
}

var schemaLine = regexp.MustCompile(`(?m)^- (.*)$`)

// schemaError turns Helm's schema message into a *SchemaError; any other
// error is returned wrapped.
func schemaError(chartName string, err error) error {
	msg := err.Error()
	if !strings.Contains(msg, "schema") {
		return fmt.Errorf("chart %s values: %w", chartName, err)
	}
	se := &SchemaError{Chart: chartName}
	for _, m := range schemaLine.FindAllStringSubmatch(msg, -1) {
		se.Problems = append(se.Problems, strings.TrimSpace(m[1]))
	}
	if len(se.Problems) == 0 {
		se.Problems = []string{strings.TrimSpace(msg)}
	}
	return se
}

// cloneChart copies the chart tree so that a render can change its
// dependencies and values (ProcessDependencies does) without touching the
// loaded chart. Templates and files are shared; they are read only.
func cloneChart(ch *chart.Chart) *chart.Chart {
	cp := *ch
	cp.Values = deepCopy(orEmpty(ch.Values))
	cp.Templates = slices.Clone(ch.Templates)
	deps := make([]*chart.Chart, 0, len(ch.Dependencies()))
	for _, d := range ch.Dependencies() {
		deps = append(deps, cloneChart(d))
	}
	cp.SetDependencies(deps...)
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
		return nil, chartError(err, p.top)
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
		return nil, fmt.Errorf("chart %s: read the %s Secret: %w", c.ch.Name(), valuesSecret, err)
	}
	raw, ok := secret.StringData["values"]
	if secret.Kind != "Secret" || secret.Metadata.Name != valuesSecret || !ok {
		return nil, fmt.Errorf("chart %s: %s does not render a %s Secret with stringData.values", c.ch.Name(), secretTemplate, valuesSecret)
	}
	if c.unshield {
		// Shielded again, the text parses even where the chart's
		// unshield-raw left a "(raw)" string as unquoted flow syntax; the
		// reduced render did not unshield it at all.
		raw = strings.ReplaceAll(raw, "{{", rawShield)
	}
	vals, err := Parse([]byte(raw))
	if err != nil {
		return nil, fmt.Errorf("chart %s: the %s Secret: %w", c.ch.Name(), valuesSecret, err)
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
			out[strings.ReplaceAll(k, rawShield, "{{")] = unshieldRaw(x)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = unshieldRaw(x)
		}
		return out
	case string:
		return strings.ReplaceAll(t, rawShield, "{{")
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
		return "", chartError(err, p.top)
	}
	return out[path.Join(p.ch.Name(), evalTemplate)], nil
}

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
	if err := c.canRenderUnits(); err != nil {
		return nil, err
	}
	p, err := c.prepare(ctx, files, opts)
	if err != nil {
		return nil, err
	}
	return c.renderUnits(p, units, false)
}

// canRenderUnits says why RenderUnits cannot reduce the chart, if it
// cannot.
func (c *Chart) canRenderUnits() error {
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

// renderUnits renders p reduced to the units, as RenderUnits does. With
// pickStatus, the loops of the status Kustomizations over the units (after
// the values Secret's document) are restricted to the units too: their
// dependsOn and one-shot-units then name those units only, and the rest of
// each Kustomization (its additional-info among them) is what Render
// renders, without resolving every enabled unit (kustomization-name calls
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

// manifests renders a prepared chart and decodes its objects.
func (p *prepared) manifests() (*Manifests, error) {
	out, err := engine.RenderWithClientProvider(p.ch, p.top, p.guard)
	if err != nil {
		return nil, chartError(err, p.top)
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

// RenderChart loads the chart at chartPath (a directory or a .tgz) and
// renders its interpreted values; see Chart.Values.
func RenderChart(ctx context.Context, chartPath string, files []File, opts ChartOptions) (*ChartResult, error) {
	c, err := LoadChart(chartPath)
	if err != nil {
		return nil, err
	}
	return c.Values(ctx, files, opts)
}

var (
	chartLoc = regexp.MustCompile(`\(([^()\s]+/templates/[^()\s:]+(?::[0-9]+)*)\)`)
	execAt   = regexp.MustCompile(`executing "[^"]*" at <([^>]+)>`)
	failMsg  = regexp.MustCompile(`^execution error at \([^()]*\): (.+)$`)
)

// chartError turns an engine error into a *ChartError: the template and
// line Helm names, Helm's message, and the values path of the gotpl string
// the failing expression comes from, when exactly one string of the values
// contains it.
func chartError(err error, top chartutil.Values) error {
	msg := collapseRepeats(err.Error())
	ce := &ChartError{Message: msg}
	if m := chartLoc.FindStringSubmatch(msg); m != nil {
		ce.Template = m[1]
	}
	vals, _ := top["Values"].(chartutil.Values)
	for _, m := range execAt.FindAllStringSubmatch(msg, -1) {
		if paths := stringsContaining(map[string]any(vals), "values", m[1], nil); len(paths) == 1 {
			ce.Path = paths[0]
		}
	}
	// Helm shortens a `fail` to its message: look for the string that
	// holds it literally.
	if m := failMsg.FindStringSubmatch(msg); ce.Path == "" && m != nil && len(m[1]) >= 3 {
		if paths := stringsContaining(map[string]any(vals), "values", m[1], nil); len(paths) == 1 {
			ce.Path = paths[0]
		}
	}
	return ce
}

// stringsContaining lists the paths of the gotpl strings of v that contain
// sub, in sorted order, stopping at two.
func stringsContaining(v any, p, sub string, out []string) []string {
	if len(out) > 1 {
		return out
	}
	switch t := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(t) {
			out = stringsContaining(t[k], childPath(p, k), sub, out)
		}
	case chartutil.Values:
		return stringsContaining(map[string]any(t), p, sub, out)
	case []any:
		for i, x := range t {
			out = stringsContaining(x, fmt.Sprintf("%s[%d]", p, i), sub, out)
		}
	case string:
		if isTemplate(t) && strings.Contains(t, sub) {
			out = append(out, p)
		}
	}
	return out
}

// IsSchemaError reports whether err is (or wraps) a *SchemaError.
func IsSchemaError(err error) bool {
	var se *SchemaError
	return errors.As(err, &se)
}
