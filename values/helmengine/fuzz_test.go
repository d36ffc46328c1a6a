package helmengine

import (
	"context"
	"errors"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"text/template"

	"github.com/Masterminds/sprig/v3"
	"github.com/google/go-cmp/cmp"
	"helm.sh/helm/v3/pkg/chartutil"

	"gitlab.com/sylva-projects/sylva-planner/units"
)

// FuzzMerge merges two values documents: no panic, merging with an empty
// document changes nothing, and the inputs are left untouched.
func FuzzMerge(f *testing.F) {
	f.Add([]byte("a: 1\nb: {c: 2}\n"), []byte("b: {d: 3}\ne: [1]\n"))
	f.Add([]byte("a: {b: {c: x}}"), []byte("a: null"))
	f.Add([]byte("k: '{{ .Values.x }}'"), []byte("k: {x: 1}"))
	f.Add([]byte(""), []byte("1.30: a"))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		da, err := Parse(a)
		if err != nil {
			return
		}
		db, err := Parse(b)
		if err != nil {
			return
		}
		ca, cb := units.DeepCopy(da), units.DeepCopy(db)
		m := units.MergeValues(da, db)
		if !reflect.DeepEqual(da, ca) || !reflect.DeepEqual(db, cb) {
			t.Fatal("MergeValues modified its inputs")
		}
		if got := units.MergeValues(m, map[string]any{}); !reflect.DeepEqual(got, m) {
			t.Fatal("merging an empty document changed the values")
		}
		for k, v := range db {
			if _, isMap := v.(map[string]any); !isMap && !reflect.DeepEqual(m[k], v) {
				t.Fatalf("key %q: the later document does not win", k)
			}
		}
	})
}

// FuzzRender renders values documents whose strings are gotpl templates and
// compares every result with a reference evaluation by path: each templated
// string is executed on its own with text/template and sprig, as Helm's
// engine does outside strict mode (missing keys give the zero value,
// "<no value>" is removed), against its own copy of the values, with the
// chart context Render documents. Render must fail exactly when a string
// fails, naming one of the failing paths, and never modify its input.
//
// Inputs the reference cannot judge are skipped: functions only Helm's
// engine has (include, tpl, required, lookup, toYaml…), named templates
// (define and template share one namespace across strings), functions that
// read the clock, randomness, the network or the environment, and numbers
// of four digits or more (repeat and indent with a huge count only measure
// memory, and nested ranges over until with such counts only time, which
// would stall the bounded run of make fuzz). Strings that write into .Values (set, unset, merge…) run in one
// engine pass with the others, so the results compared then are those of
// the strings that read no values; the writing strings themselves are
// still rendered, and no result may move to another path. A string that
// prints the whole chart context is rendered but not compared.
func FuzzRender(f *testing.F) {
	for _, seed := range []string{
		"a: '{{ .Values.b }}'\nb: plain\n",
		"a: '{{ .Values.b | upper }}'\nb: '{{ \"raw\" }}'\n",
		"k8s_version_short: '{{ .Values.cluster.k8s_version | trimPrefix \"v\" | splitList \".\" | initial | join \".\" }}'\ncluster: {k8s_version: v1.31.8+rke2r1}\n",
		"a: '{{ .Release.Name }}/{{ .Release.Namespace }}'\nlist: ['{{ 1 | add 2 }}', x, {y: '{{ \"z\" | quote }}'}]\n",
		"a: '{{ .Values.missing }}'\nb: '{{ .Values.missing.deeper | default \"d\" }}'\n",
		"a: '{{ if eq .Values.n 2 }}two{{ else }}other{{ end }}'\nn: 2\n",
		"a: '{{ range $k, $v := .Values.m }}{{ $k }}={{ $v }};{{ end }}'\nm: {x: 1, y: true, z: null}\n",
		"a: '{{ $_ := set .Values \"b\" \"plain\" }}A'\nb: '{{ \"B\" }}'\nc: '{{ \"C\" }}'\n",
		"a: '{{ $_ := set .Values \"aa\" \"{{ 1 }}\" }}A'\nb: '{{ \"B\" }}'\n",
		"a: '{{ $_ := unset .Values \"b\" }}A'\nb: '{{ \"B\" }}'\nc: x\n",
		"a: '{{ .Values.b'\nb: '{{ 1 }}'\n",
		"a: '{{ div 1 0 }}'\nb: '{{ .Values.a }}'\n",
		"a: '{{ .Values.b.c }}'\nb: '{{ x }}'\n",
		"a: '{{ .Capabilities.KubeVersion.Minor }}'\n",
		"'1.30': '{{ index .Values \"1.30\" | len }}'\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 || !judgeable.Match(data) || unjudgeable.Match(data) || readsContext.Match(data) {
			return
		}
		vals, err := Parse(data)
		if err != nil {
			return
		}
		before := units.DeepCopy(vals)
		want, failing := referenceRender(vals)
		if !reflect.DeepEqual(vals, before) {
			t.Fatal("the reference modified the values")
		}
		res, err := Render(context.Background(), vals, RenderOptions{})
		if !reflect.DeepEqual(vals, before) {
			t.Fatal("Render modified its input")
		}
		if len(failing) > 0 {
			var te *TemplateError
			if !errors.As(err, &te) || !failing[te.Path] {
				t.Fatalf("Render error = %v, want a TemplateError on one of %v", err, slices.Sorted(maps.Keys(failing)))
			}
			return
		}
		if err != nil {
			t.Fatalf("Render: %v; every string renders on its own", err)
		}
		mutates := mutating.Match(data)
		got := leavesByPath(res.Values)
		in := leavesByPath(vals)
		if diff := cmp.Diff(slices.Sorted(maps.Keys(in)), slices.Sorted(maps.Keys(got))); diff != "" {
			t.Fatalf("Render changed the shape of the values (-input +result):\n%s", diff)
		}
		for path, v := range in {
			s, isString := v.(string)
			switch {
			case !isString || !IsTemplate(s):
				if !reflect.DeepEqual(got[path], v) {
					t.Errorf("Render %s = %#v, want the plain value %#v", path, got[path], v)
				}
			case mutates && strings.Contains(s, ".Values"):
			case printsContext.MatchString(want[path]):
			case got[path] != want[path]:
				t.Errorf("Render %s = %#v, want %q (reference)", path, got[path], want[path])
			}
		}
	})
}

var (
	// judgeable inputs hold a template.
	judgeable = regexp.MustCompile(`\{\{`)
	// unjudgeable inputs use what the reference does not model.
	unjudgeable = regexp.MustCompile(`include|tpl|required|lookup|toYaml|fromYaml|toJson|fromJson|toToml|toYamlPretty|define|template|block|\.Template|env|expandenv|getHostByName|now|date|ago|toDate|rand|uuid|gen[A-Z]|derivePassword|bcrypt|htpasswd|encrypt|decrypt|shuffle|[0-9]{4,}`)
	// printsContext matches a result that printed the chart context or its
	// capabilities ({{ $ }}, {{ . }}, {{ .Capabilities }}), which Helm's
	// engine fills with more than Render documents (Chart, Files,
	// Template) and pointers.
	printsContext = regexp.MustCompile(`Capabilities:|KubeVersion:|APIVersions:|HelmVersion:|0x[0-9a-f]{6,}`)
	// readsContext matches a template that reads the chart context as a
	// whole: $ or a lone dot (len, keys, index, range over it), whose
	// top-level keys Helm's engine fills with more than the reference
	// models (Chart, Files, Release, Template…). $.Values, $.Capabilities
	// and .Name-style fields are judged.
	readsContext = regexp.MustCompile(`\$(?:$|[^\w.]|\.(?:$|[^VC]))|(?:^|[^\w.\])\]])\.(?:$|[^\w])`)
	// mutating inputs may write into .Values.
	mutating = regexp.MustCompile(`set|merge|append|push|prepend|pick|omit|dig|deepCopy|mustDeepCopy`)
)

// referenceRender executes every templated string of vals on its own and
// returns the results by path, and the paths that failed.
func referenceRender(vals map[string]any) (map[string]string, map[string]bool) {
	funcs := sprig.TxtFuncMap()
	delete(funcs, "env")
	delete(funcs, "expandenv")
	caps := chartutil.DefaultCapabilities.Copy()
	out, failing := map[string]string{}, map[string]bool{}
	for _, s := range gotplSlots(vals, "values", nil) {
		tpl, err := template.New(s.path).Option("missingkey=zero").Funcs(funcs).Parse(s.text)
		if err != nil {
			failing[s.path] = true
			continue
		}
		data := map[string]any{
			"Values":       units.DeepCopy(vals),
			"Release":      map[string]any{"Name": DefaultReleaseName, "Namespace": DefaultNamespace, "Revision": 1, "IsUpgrade": false, "IsInstall": true, "Service": "Helm"},
			"Capabilities": caps,
		}
		var b strings.Builder
		if err := tpl.Execute(&b, data); err != nil {
			failing[s.path] = true
			continue
		}
		out[s.path] = strings.ReplaceAll(b.String(), "<no value>", "")
	}
	return out, failing
}

// leavesByPath returns every leaf of v by the path gotplSlots names it with.
func leavesByPath(v any) map[string]any {
	out := map[string]any{}
	var walk func(v any, path string)
	walk = func(v any, path string) {
		switch t := v.(type) {
		case map[string]any:
			for k, e := range t {
				walk(e, ChildPath(path, k))
			}
		case []any:
			for i, e := range t {
				walk(e, path+"["+strconv.Itoa(i)+"]")
			}
		default:
			out[path] = v
		}
	}
	walk(v, "values")
	return out
}
