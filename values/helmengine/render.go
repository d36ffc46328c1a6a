package helmengine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"

	"gitlab.com/sylva-projects/sylva-planner/units"
)

// Chart context defaults.
const (
	// DefaultNamespace is the release namespace of a management cluster.
	DefaultNamespace = "sylva-system"
	// DefaultReleaseName is the name of the sylva-units Helm release.
	DefaultReleaseName = "sylva-units"
)

// RenderOptions is the chart context gotpl strings are rendered against.
type RenderOptions struct {
	// Namespace is .Release.Namespace; empty means DefaultNamespace.
	Namespace string
	// ReleaseName is .Release.Name; empty means DefaultReleaseName.
	ReleaseName string
	// KubeVersion sets .Capabilities.KubeVersion ("1.33" or "v1.33.5");
	// empty keeps Helm's default.
	KubeVersion string
	// Source serves `lookup`; nil means nothing exists.
	Source Source
	// Allow lists what `lookup` may read; nil means DefaultAllowList of the
	// namespace. A refused lookup returns an empty result and a warning.
	Allow []AllowRule
}

// Result is a rendered values tree.
type Result struct {
	// Values is a copy of the input in which every string containing "{{"
	// is replaced by its rendered text (always a string).
	Values map[string]any
	// Templates counts the rendered strings.
	Templates int
	// Warnings are sorted and deduplicated (refused lookups).
	Warnings []string
}

// TemplateError is a gotpl string that failed to parse or execute.
type TemplateError struct {
	// Path names the string in the values, for example
	// "values.k8s_version_short" or "values.units.foo.enabled".
	Path string
	// Parse is true for a parse error, false for an execution error.
	Parse bool
	// Reason is the template message, locations given in lines of the string.
	Reason string
}

func (e *TemplateError) Error() string { return e.Path + ": " + e.Reason }

// slot is one gotpl string of a values tree.
type slot struct {
	path, text string
}

// GotplString is one gotpl string of a values tree: its values path
// ("values.units.foo.enabled") and its text.
type GotplString struct {
	Path, Text string
}

// GotplStrings lists the gotpl strings of vals in a stable order (sorted
// map keys, list order), their paths from "values".
func GotplStrings(vals map[string]any) []GotplString {
	slots := gotplSlots(vals, "values", nil)
	out := make([]GotplString, len(slots))
	for i, s := range slots {
		out[i] = GotplString{Path: s.path, Text: s.text}
	}
	return out
}

// gotplSlots lists the gotpl strings of v in a stable order (sorted map
// keys, list order).
func gotplSlots(v any, path string, out []slot) []slot {
	switch t := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(t) {
			out = gotplSlots(t[k], ChildPath(path, k), out)
		}
	case []any:
		for i, x := range t {
			out = gotplSlots(x, path+"["+strconv.Itoa(i)+"]", out)
		}
	case string:
		if IsTemplate(t) {
			out = append(out, slot{path: path, text: t})
		}
	}
	return out
}

// IsTemplate reports whether the chart would pass s through tpl.
func IsTemplate(s string) bool { return strings.Contains(s, "{{") }

var plainKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// ChildPath is the values path of key under path: "values.a.b", or
// values["a.b"] for a key that is no plain name, as TemplateError and
// ChartError name a string.
func ChildPath(path, key string) string {
	if plainKey.MatchString(key) {
		return path + "." + key
	}
	return path + "[" + strconv.Quote(key) + "]"
}

// substitute returns a copy of v with the gotpl strings replaced, in
// gotplSlots order, by rendered[0], rendered[1], and so on.
func substitute(v any, rendered []string, next *int) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for _, k := range sortedKeys(t) {
			out[k] = substitute(t[k], rendered, next)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = substitute(x, rendered, next)
		}
		return out
	case string:
		if IsTemplate(t) {
			s := rendered[*next]
			*next++
			return s
		}
	}
	return v
}

// Render renders every gotpl string of vals with Helm's engine, each
// against the chart context in which .Values is vals itself: a string that
// reads another gotpl value sees that value's raw template text (the
// sylva-units model without its `interpret` helper). Results are strings.
// A template that fails returns a *TemplateError naming its values path.
//
// Templates may write into .Values (sprig's set): they write into a copy
// of vals, never into vals, and each result lands on the path of its own
// string in vals as given.
func Render(ctx context.Context, vals map[string]any, opts RenderOptions) (*Result, error) {
	slots := gotplSlots(vals, "values", nil)
	r := newRenderer(ctx, units.DeepCopy(vals), opts)
	out, err := r.render(slots)
	if err != nil {
		return nil, r.explainLookups(slots, err)
	}
	next := 0
	return &Result{
		Values:    substitute(vals, out, &next).(map[string]any),
		Templates: len(slots),
		Warnings:  r.guard.warnings(),
	}, nil
}

// explainLookups adds to the execution error of a string that calls
// lookup which lookups found nothing, and how to serve them: a template
// that reads a field of an object lookup did not find fails on a nil
// value, with a message that says nothing of the lookup.
func (r *renderer) explainLookups(slots []slot, err error) error {
	var te *TemplateError
	if !errors.As(err, &te) || te.Parse {
		return err
	}
	i := slices.IndexFunc(slots, func(s slot) bool { return s.path == te.Path })
	if i < 0 || !strings.Contains(slots[i].text, "lookup") {
		return err
	}
	if why := r.guard.explain(); why != "" {
		te.Reason += "; " + why
	}
	return err
}

type renderer struct {
	guard  *lookupGuard
	values map[string]any
	top    chartutil.Values
}

// withValues returns a renderer with the same context and other values.
func (r *renderer) withValues(vals map[string]any) *renderer {
	top := make(chartutil.Values, len(r.top))
	for k, v := range r.top {
		top[k] = v
	}
	top["Values"] = chartutil.Values(vals)
	return &renderer{guard: r.guard, values: vals, top: top}
}

func newRenderer(ctx context.Context, vals map[string]any, opts RenderOptions) *renderer {
	ns, name := cmp.Or(opts.Namespace, DefaultNamespace), cmp.Or(opts.ReleaseName, DefaultReleaseName)
	caps := chartutil.DefaultCapabilities.Copy()
	if kv, ok := kubeVersion(opts.KubeVersion); ok {
		caps.KubeVersion = kv
	}
	return &renderer{
		guard:  newLookupGuard(ctx, ns, opts.Source, opts.Allow),
		values: vals,
		top: chartutil.Values{
			"Values": chartutil.Values(vals),
			"Release": chartutil.Values{
				"Name": name, "Namespace": ns, "Revision": 1,
				"IsUpgrade": false, "IsInstall": true, "Service": "Helm",
			},
			"Capabilities": caps,
		},
	}
}

// newLookupGuard serves lookup from src (nil: nothing found) within allow
// (nil: the default allow list of ns, the release namespace).
func newLookupGuard(ctx context.Context, ns string, src Source, allow []AllowRule) *lookupGuard {
	if allow == nil {
		allow = DefaultAllowList(ns)
	}
	// An empty set of objects serves nothing either (no --status or
	// --object given).
	served := src != nil
	if o, ok := src.(*Objects); ok && o.Len() == 0 {
		served = false
	}
	if src == nil {
		src = NewObjects()
	}
	return &lookupGuard{ctx: ctx, src: src, allow: allow, served: served}
}

var kubeVersionRE = regexp.MustCompile(`^v?([0-9]+)\.([0-9]+)(\.[0-9]+)?([-+].*)?$`)

// kubeVersion turns "1.33" or "v1.33.5+rke2r1" into Helm's KubeVersion.
func kubeVersion(s string) (chartutil.KubeVersion, bool) {
	m := kubeVersionRE.FindStringSubmatch(s)
	if m == nil {
		return chartutil.KubeVersion{}, false
	}
	v := "v" + strings.TrimPrefix(s, "v")
	if m[3] == "" {
		v = "v" + m[1] + "." + m[2] + ".0"
	}
	return chartutil.KubeVersion{Version: v, Major: m[1], Minor: m[2]}, true
}

// RenderPhased renders the gotpl strings of vals in the order the
// sylva-units chart interprets them: _internal.state, then the rest of
// _internal, then everything else, each phase against the values the
// previous phases rendered (a string sees the raw text of any other
// string of its own phase). It returns the rendered text and the errors,
// by values path.
func RenderPhased(ctx context.Context, vals map[string]any, opts RenderOptions) (map[string]string, map[string]*TemplateError) {
	got := map[string]string{}
	errs := map[string]*TemplateError{}
	phases := []func(string) bool{
		func(p string) bool { return UnderPath(p, "values._internal.state") },
		func(p string) bool {
			return UnderPath(p, "values._internal") && !UnderPath(p, "values._internal.state")
		},
		func(p string) bool { return !UnderPath(p, "values._internal") },
	}
	cur := vals
	for _, in := range phases {
		var slots []slot
		for _, s := range gotplSlots(cur, "values", nil) {
			if in(s.path) {
				slots = append(slots, s)
			}
		}
		r := newRenderer(ctx, cur, opts)
		if out, err := r.render(slots); err == nil {
			for i, s := range slots {
				got[s.path] = out[i]
			}
		} else {
			for _, s := range slots {
				out, err := r.render([]slot{s})
				var te *TemplateError
				switch {
				case err == nil:
					got[s.path] = out[0]
				case errors.As(err, &te):
					errs[s.path] = te
				default:
					errs[s.path] = &TemplateError{Path: s.path, Reason: err.Error()}
				}
			}
		}
		cur = substitutePaths(cur, "values", got).(map[string]any)
	}
	return got, errs
}

// UnderPath reports whether the values path p is prefix or below it.
func UnderPath(p, prefix string) bool {
	return p == prefix || strings.HasPrefix(p, prefix+".") || strings.HasPrefix(p, prefix+"[")
}

// substitutePaths returns a copy of v in which each gotpl string whose
// path is in rendered is replaced by its rendered text.
func substitutePaths(v any, path string, rendered map[string]string) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = substitutePaths(x, ChildPath(path, k), rendered)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = substitutePaths(x, path+"["+strconv.Itoa(i)+"]", rendered)
		}
		return out
	case string:
		if s, ok := rendered[path]; ok && IsTemplate(t) {
			return s
		}
	}
	return v
}

// ValidKubeVersion reports whether s can set .Capabilities.KubeVersion.
func ValidKubeVersion(s string) bool { _, ok := kubeVersion(s); return ok }

// chartName names the in-memory chart; template names are chartName/t/N.
const chartName = "sylva-units"

var templateName = regexp.MustCompile(chartName + `/t/([0-9]+)`)

// parallelMin is the number of strings from which render splits the work
// over the CPUs.
const parallelMin = 256

// render renders the slots, each as `tpl` renders a string: alone, so
// that a template one string defines is not visible in another. Strings
// that define no template (nearly all) share engine runs, where nothing
// of one can reach another; a string that defines one, or names the
// in-memory chart's own templates, gets a run of its own. A failure is the
// one of the first failing string in slot order.
func (r *renderer) render(slots []slot) ([]string, error) {
	var shared, alone []int
	for i, s := range slots {
		if needsOwnRun(s.text) {
			alone = append(alone, i)
		} else {
			shared = append(shared, i)
		}
	}
	if len(alone) == 0 {
		return r.renderShared(slots)
	}
	out := make([]string, len(slots))
	first, firstErr := len(slots), error(nil)
	sub := make([]slot, len(shared))
	for j, i := range shared {
		sub[j] = slots[i]
	}
	if res, err := r.renderShared(sub); err != nil {
		first, firstErr = shared[failedSlot(sub, err)], err
	} else {
		for j, i := range shared {
			out[i] = res[j]
		}
	}
	for _, i := range alone {
		if i > first {
			break
		}
		res, err := r.renderChunk(slots[i : i+1])
		if err != nil {
			firstErr = err
			break
		}
		out[i] = res[0]
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return out, nil
}

// needsOwnRun reports whether a string must render alone: it defines a
// template (define or block), names one of the in-memory chart's
// templates, or holds one of those words and does not parse (its error is
// then its own; any other parse error is reported from the shared run,
// which names the string that failed first).
func needsOwnRun(text string) bool {
	if strings.Contains(text, chartName+"/") {
		return true
	}
	// Only a define or a block action defines a template: the others, nearly
	// every string, are not parsed twice.
	if !strings.Contains(text, "define") && !strings.Contains(text, "block") {
		return false
	}
	trees, err := parseTrees("s", text)
	if err != nil {
		return true
	}
	for name := range trees {
		if name != "s" {
			return true
		}
	}
	return false
}

// failedSlot is the index in slots of the string err names, 0 when it
// names none.
func failedSlot(slots []slot, err error) int {
	var te *TemplateError
	if errors.As(err, &te) {
		for i, s := range slots {
			if s.path == te.Path {
				return i
			}
		}
	}
	return 0
}

// renderShared renders slots that define no template. Large sets are
// split into one chart per CPU, rendered concurrently; a failure is the
// one of the first failing string in slot order, as with a single run.
func (r *renderer) renderShared(slots []slot) ([]string, error) {
	n := min(runtime.GOMAXPROCS(0), len(slots)/parallelMin)
	if n <= 1 {
		return r.renderChunk(slots)
	}
	size := (len(slots) + n - 1) / n
	out := make([]string, len(slots))
	errs := make([]error, n)
	var wg sync.WaitGroup
	for c := range n {
		lo, hi := c*size, min((c+1)*size, len(slots))
		cr := r
		if c > 0 {
			// Templates may write into .Values (sprig's set): each
			// concurrent chunk gets its own copy.
			cr = r.withValues(units.DeepCopy(r.values))
		}
		wg.Go(func() {
			res, err := cr.renderChunk(slots[lo:hi])
			if err != nil {
				errs[c] = err
				return
			}
			copy(out[lo:hi], res)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// renderChunk renders the slots with one engine run.
func (r *renderer) renderChunk(slots []slot) ([]string, error) {
	if len(slots) == 0 {
		return nil, nil
	}
	ch := &chart.Chart{
		Metadata:  &chart.Metadata{APIVersion: chart.APIVersionV2, Name: chartName, Version: "0.0.0"},
		Templates: make([]*chart.File, len(slots)),
	}
	for i, s := range slots {
		ch.Templates[i] = &chart.File{Name: templateFile(i), Data: []byte(s.text)}
	}
	out, err := engine.RenderWithClientProvider(ch, r.top, r.guard)
	if err != nil {
		return nil, templateError(slots, err)
	}
	res := make([]string, len(slots))
	for i := range slots {
		res[i] = out[chartName+"/"+templateFile(i)]
	}
	return res, nil
}

func templateFile(i int) string { return fmt.Sprintf("t/%05d", i) }

var (
	parseLoc = regexp.MustCompile(`^parse error at \(` + chartName + `/t/[0-9]+:([0-9]+)\): `)
	execLoc  = regexp.MustCompile(`^template: ` + chartName + `/t/[0-9]+:([0-9:]+): executing "` + chartName + `/t/[0-9]+" at `)
	execLoc2 = regexp.MustCompile(`^execution error at \(` + chartName + `/t/[0-9]+:([0-9:]+)\): `)
)

// templateError maps an engine error back to the values path of the
// string that failed.
func templateError(slots []slot, err error) error {
	msg := collapseRepeats(err.Error())
	m := templateName.FindStringSubmatch(msg)
	if m == nil {
		return fmt.Errorf("render values: %w", err)
	}
	i, _ := strconv.Atoi(m[1])
	if i >= len(slots) {
		return fmt.Errorf("render values: %w", err)
	}
	te := &TemplateError{Path: slots[i].path}
	switch {
	case parseLoc.MatchString(msg):
		te.Parse = true
		te.Reason = parseLoc.ReplaceAllString(msg, "parse error at line $1: ")
	case execLoc.MatchString(msg):
		te.Reason = execLoc.ReplaceAllString(msg, "execution error at line $1: ")
	case execLoc2.MatchString(msg):
		te.Reason = execLoc2.ReplaceAllString(msg, "execution error at line $1: ")
	default:
		te.Parse = strings.HasPrefix(msg, "parse error")
		te.Reason = msg
	}
	te.Reason = templateName.ReplaceAllStringFunc(te.Reason, func(s string) string {
		j, _ := strconv.Atoi(templateName.FindStringSubmatch(s)[1])
		if j < len(slots) {
			return slots[j].path
		}
		return s
	})
	return te
}

// callLink starts each link of the engine's chain of nested calls.
var callLink = regexp.MustCompile(`error calling \w+: `)

// collapseRepeats shortens the engine's message for a template that calls
// itself: the same link of the call chain, repeated up to the engine's
// depth limit (a thousand times, 80 KB), is written once with a count.
func collapseRepeats(msg string) string {
	at := callLink.FindAllStringIndex(msg, -1)
	if len(at) < 3 {
		return msg
	}
	var links []string
	for i, a := range at {
		end := len(msg)
		if i+1 < len(at) {
			end = at[i+1][0]
		}
		links = append(links, msg[a[0]:end])
	}
	var b strings.Builder
	b.WriteString(msg[:at[0][0]])
	for i := 0; i < len(links); {
		j := i
		for j < len(links) && links[j] == links[i] {
			j++
		}
		b.WriteString(links[i])
		if n := j - i - 1; n > 0 {
			fmt.Fprintf(&b, "[the same call %d more times] ", n)
		}
		i = j
	}
	return b.String()
}
