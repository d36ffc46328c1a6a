package helmengine

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"

	"gitlab.com/sylva-projects/sylva-planner/internal/sylvacore"
	"gitlab.com/sylva-projects/sylva-planner/internal/valuestest"
)

// hasShortcut says whether the chart renders with the wrapper of
// withInterpretShortcut.
func hasShortcut(c *Chart) bool {
	return strings.Contains(c.helpers(), `define "`+interpretRenamed+`"`)
}

// bothCharts loads the ref's chart twice: as NewChart wraps it (with the
// shortcut) and as it is.
func bothCharts(t *testing.T, tr sylvacore.Tree) (fast, plain *Chart) {
	t.Helper()
	ch, err := loader.Load(tr.Chart())
	if err != nil {
		t.Fatal(err)
	}
	fast, plain = NewChart(ch), newChart(ch)
	if !hasShortcut(fast) {
		t.Fatalf("%s: the chart's interpret-inner-gotpl is not one interpretDigests knows; review it (is it still the identity on a subtree without gotpl?) and add its digest", tr.Ref)
	}
	if hasShortcut(plain) {
		t.Fatal("newChart installed the shortcut")
	}
	return fast, plain
}

// TestInterpretShortcutResolvesEveryUnitAsTheChart resolves every unit of
// each ref's chart with the management values (what prune-audit --chart
// reads), with and without the shortcut, and finds the same definitions
// apart from what the chart draws at random. The conformance test checks
// the values Secret of every test-values case against Helm's with the
// shortcut on. It also resolves them with the chart's own unit-def, which
// interprets every field, and finds the fields Units returns as the
// narrowed helper (unitFieldsHelper) gives them; every ref whose chart
// defines unit-def has that helper.
func TestInterpretShortcutResolvesEveryUnitAsTheChart(t *testing.T) {
	if testing.Short() {
		t.Skip("renders the real chart")
	}
	for _, tr := range sylvacore.Trees(t) {
		t.Run(tr.Ref, func(t *testing.T) {
			fast, plain := bothCharts(t, tr)
			files := valuestest.ReadFiles[File](t, tr.Chart(), "values.yaml")
			if _, err := os.Stat(filepath.Join(tr.Chart(), "management.values.yaml")); err == nil {
				files = valuestest.ReadFiles[File](t, tr.Chart(), "values.yaml", "management.values.yaml")
			}
			ctx, opts := context.Background(), ChartOptions{SkipSchemaValidation: true}
			var got [3]map[string]any
			for i, c := range []*Chart{plain, plain, fast} {
				defs, err := c.Units(ctx, files, opts)
				if err != nil {
					t.Fatal(err)
				}
				got[i] = unitLeaves(defs, nil)
			}
			random := randomized(got[0], got[1])
			for _, k := range random {
				delete(got[0], k)
				delete(got[2], k)
			}
			if diff := cmp.Diff(got[0], got[2]); diff != "" {
				t.Errorf("the units differ with the shortcut (-chart +shortcut):\n%s", diff)
			}
			helpers := fast.helpers()
			if _, ok := unitFieldsHelper(fast.ch); !ok {
				if defines(helpers, unitDefName) {
					t.Fatalf("%s: the chart's unit-def has no single interpretation of the whole definition to narrow; review unitFieldsHelper", tr.Ref)
				}
				return
			}
			whole, err := fast.resolveUnits(ctx, files, opts, false)
			if err != nil {
				t.Fatal(err)
			}
			wholeFields := unitLeaves(whole, append(slices.Clone(unitFields), "enabled"))
			for _, k := range random {
				delete(wholeFields, k)
			}
			if diff := cmp.Diff(wholeFields, got[2]); diff != "" {
				t.Errorf("the narrowed unit-def gives other fields than the chart's (-unit-def +narrowed):\n%s", diff)
			}
		})
	}
}

// unitLeaves are the leaves of the units Units resolved, keyed by path
// (units.NAME.FIELD...); of the fields named only, when fields is not nil.
func unitLeaves(defs map[string]map[string]any, fields []string) map[string]any {
	m := map[string]any{}
	for name, def := range defs {
		if fields == nil {
			m[name] = def
			continue
		}
		kept := map[string]any{}
		for _, f := range fields {
			if v, ok := def[f]; ok {
				kept[f] = v
			}
		}
		m[name] = kept
	}
	return leaves(m, "units", map[string]any{})
}

// TestInterpretShortcutKeepsTheChartsErrors makes the real chart fail in
// its interpretation of the values (deep in a map, in a list, in a unit)
// and finds the same message with and without the shortcut: the wrapper's
// calls never show.
func TestInterpretShortcutKeepsTheChartsErrors(t *testing.T) {
	if testing.Short() {
		t.Skip("renders the real chart")
	}
	tr := sylvacore.At(t, "main")
	fast, plain := bothCharts(t, tr)
	base := valuestest.ReadFiles[File](t, tr.Chart(), "values.yaml")
	for _, bad := range []string{
		"cluster:\n  extra:\n    deep:\n      x: '{{ .Values.nope.nope }}'\n",
		"cluster:\n  extra:\n    deep:\n      - a\n      - '{{ fail \"in a list\" }}'\n",
		"units:\n  cluster:\n    kustomization_spec:\n      x: '{{ fail \"in a unit\" }}'\n",
		"cluster:\n  extra:\n    again: '{{ \"{{ fail \\\"in a result\\\" }}\" }}'\n",
		"cluster:\n  extra:\n    '{{ fail \"in a key\" }}': v\n",
		"cluster:\n  extra:\n    - a: [x, '{{ fail \"in a map in a list\" }}']\n",
	} {
		files := slices.Concat(base, []File{{Name: "bad.yaml", Data: []byte(bad)}})
		var msgs [2]string
		for i, c := range []*Chart{plain, fast} {
			_, err := c.Values(context.Background(), files, ChartOptions{SkipSchemaValidation: true})
			if err == nil {
				t.Fatalf("%q renders", bad)
			}
			msgs[i] = err.Error()
		}
		if msgs[0] != msgs[1] {
			t.Errorf("the message differs with the shortcut:\nchart:    %s\nshortcut: %s", msgs[0], msgs[1])
		}
		if strings.Contains(msgs[1], interpretWrapFile) || strings.Contains(msgs[1], interpretRenamed) {
			t.Errorf("the message names the wrapper: %s", msgs[1])
		}
	}
}

// TestInterpretShortcutOnWhatTheChartActsOn runs each known definition of
// interpret-inner-gotpl, alone in a chart, over values built to reach
// every branch the wrapper decides on (empty and nested maps and lists,
// numbers, booleans, nulls, "(raw)", the strings a parent unwraps or
// drops, gotpl in keys and values) and finds the same result with and
// without the shortcut.
func TestInterpretShortcutOnWhatTheChartActsOn(t *testing.T) {
	const vals = `
_internal: {state: {a: '{{ .Values.num }}'}, plain: {x: 1}}
unit_templates: {t: {x: '{{ .Values.num }}'}}
num: 42
f: 1.5
big: 9007199254740993
b: true
nothing:
empty_map: {}
empty_list: []
plain: {a: [1, 2, {b: c}], d: "<&>"}
nested: {a: {b: {c: '{{ .Values.num }}'}}, d: [x, '{{ "y" }}']}
key: {'{{ "k" }}': v}
skip: [a, '{{ tuple "x" false | include "set-only-if" }}', skip-as-set-only-if-result-was-false]
kept: {a: '{{ tuple "x" true | include "set-only-if" }}'}
typed: {a: '{{ dict "x" 1 | include "preserve-type" }}', b: '{"encapsulated-result":7}'}
raw: {r: {"(raw)": "{{ not interpreted }}"}}
dropped: {list: [a, skip-as-set-only-if-result-was-false], map: {a: skip-as-set-only-if-result-was-false}}
unwrapped: {list: ['{"encapsulated-result":7}'], map: {a: ' {"encapsulated-result":[1]}'}}
shielded: {r: {"(raw)": "plain"}}
pattern: {open: "a {{ b", empty: "{{}}", reversed: "}} x {{", one: "{{1}}", close: "{{ 2 }}}"}
spaced: {a: '  {{ 3 | include "preserve-type" }}', b: "\n {{ 4 | include \"preserve-type\" }} ", c: ['  {{ 5 | include "preserve-type" }}']}
again: {a: '{{ "{{ 6 }}" }}', b: ['{{ "{{ .Values.num }}" }}']}
mixed: {a: [1, true, null, x, {b: '{{ 7 }}'}], c: {d: 1.5, e: null, f: '{{ 8 }}', g: [y]}}
`
	for _, tr := range sylvacore.Trees(t) {
		t.Run(tr.Ref, func(t *testing.T) {
			text, err := os.ReadFile(filepath.Join(tr.Chart(), "templates", "_interpret-values.tpl"))
			if err != nil {
				t.Fatal(err)
			}
			v := vals
			if !strings.Contains(string(text), `"(raw)"`) {
				// Before "(raw)", such a string is gotpl.
				v = strings.ReplaceAll(vals, "{{ not interpreted }}", "not interpreted")
			}
			ch := &chart.Chart{
				Metadata: &chart.Metadata{APIVersion: chart.APIVersionV2, Name: "interpret", Version: "0.1.0"},
				Templates: []*chart.File{
					{Name: path.Join("templates", "_interpret-values.tpl"), Data: text},
				},
			}
			fast, plain := NewChart(ch), newChart(ch)
			if !hasShortcut(fast) {
				t.Fatal("no shortcut")
			}
			eval := `{{ include "interpret-values-gotpl" . }}`
			files := []File{{Name: "values.yaml", Data: []byte(v)}}
			var out [2]string
			for i, c := range []*Chart{plain, fast} {
				s, err := c.Eval(context.Background(), files, ChartOptions{SkipSchemaValidation: true}, eval)
				if err != nil {
					t.Fatal(err)
				}
				out[i] = strings.TrimSpace(s)
			}
			if !strings.Contains(out[0], `"num":42`) {
				t.Fatalf("the chart did not interpret the values: %s", out[0])
			}
			if out[0] != out[1] {
				t.Errorf("differs with the shortcut:\nchart:    %s\nshortcut: %s", out[0], out[1])
			}
		})
	}
}
