package helmengine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"gitlab.com/sylva-projects/sylva-planner/internal/golden"
	"gitlab.com/sylva-projects/sylva-planner/internal/valuestest"
	"gitlab.com/sylva-projects/sylva-planner/yamldoc"
)

func mustParse(t testing.TB, s string) map[string]any {
	t.Helper()
	m, err := Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func statusCM(data map[string]any) map[string]any {
	return map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": StatusConfigMap, "namespace": DefaultNamespace},
		"data":     data,
	}
}

func TestRenderGolden(t *testing.T) {
	vals := mustParse(t, readFileString(t, "testdata/render/values.yaml"))
	objs, err := ParseObjects(valuestest.ReadFile(t, "testdata/render/objects.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Render(context.Background(), vals, RenderOptions{KubeVersion: "1.33", Source: NewObjects(objs...)})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteYAML(&b, res.Values); err != nil {
		t.Fatal(err)
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(&b, "# warning: %s\n", w)
	}
	golden.Assert(t, b.Bytes(), "render/values.rendered.yaml")
}

func readFileString(t testing.TB, name string) string {
	t.Helper()
	return string(valuestest.ReadFile(t, name))
}

func TestRenderSemantics(t *testing.T) {
	tests := []struct {
		name string
		vals string
		objs []map[string]any
		opts RenderOptions
		path string
		want string
	}{
		{name: "sprig and helm functions work", vals: `a: '{{ list 1 2 | toYaml | trim }}|{{ include "x" . }}{{ define "x" }}inc{{ end }}'`, path: "a", want: "- 1\n- 2|inc"},
		{name: "tpl works", vals: "t: '{{ \"{{ .Release.Namespace }}\" }}'\na: '{{ tpl \"{{ .Release.Name }}\" . }}'", path: "a", want: "sylva-units"},
		{name: "fromYaml works", vals: `a: '{{ (fromYaml "k: v").k }}'`, path: "a", want: "v"},
		{name: "a value sees another gotpl value as raw text", vals: "x: '{{ 1 }}'\na: '{{ .Values.x }}'", path: "a", want: "{{ 1 }}"},
		{name: "results are strings", vals: "a: '{{ true }}'", path: "a", want: "true"},
		{name: "capabilities come from the kube version", vals: "a: '{{ .Capabilities.KubeVersion.Version }}'", opts: RenderOptions{KubeVersion: "1.32"}, path: "a", want: "v1.32.0"},
		{name: "the namespace is the release namespace", vals: "a: '{{ .Release.Namespace }}'", opts: RenderOptions{Namespace: "ns1"}, path: "a", want: "ns1"},
		{name: "missing values render empty", vals: "a: '{{ .Values.nope }}'", path: "a", want: ""},
		{name: "lists are rendered", vals: "l: ['{{ 1 }}', 2]\na: x", path: "a", want: "x"},
		{
			name: "lookup of the status ConfigMap", vals: `a: '{{ (lookup "v1" "ConfigMap" .Release.Namespace "sylva-units-status").data.k }}'`,
			objs: []map[string]any{statusCM(map[string]any{"k": "v"})}, path: "a", want: "v",
		},
		{name: "lookup of a missing object is empty", vals: `a: '{{ lookup "v1" "ConfigMap" .Release.Namespace "sylva-units-status" | len }}'`, path: "a", want: "0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Source = NewObjects(tt.objs...)
			res, err := Render(context.Background(), mustParse(t, tt.vals), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := yamldoc.Dig(res.Values, strings.Split(tt.path, ".")...)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Render %s (-want +got):\n%s", tt.path, diff)
			}
		})
	}
}

// TestRenderStringsAreIndependent: a template one string defines is not
// visible in another, as with `tpl`, however many strings there are (the
// strings are rendered in several engine runs above parallelMin); a string
// still sees what it defines itself, and cannot name another string's
// template.
func TestRenderStringsAreIndependent(t *testing.T) {
	for _, n := range []int{0, 5000} {
		t.Run(fmt.Sprintf("%d other strings", n), func(t *testing.T) {
			vals := mustParse(t, `b: '{{ include "secret" . }}'
z: '{{ define "secret" }}S{{ end }}z'`)
			for i := range n {
				vals[fmt.Sprintf("o%05d", i)] = "{{ 1 }}"
			}
			_, err := Render(context.Background(), vals, RenderOptions{})
			var te *TemplateError
			if !errors.As(err, &te) || te.Path != "values.b" || !strings.Contains(te.Reason, `"secret"`) {
				t.Fatalf("Render error = %v, want values.b failing on the undefined template \"secret\"", err)
			}
			delete(vals, "b")
			res, err := Render(context.Background(), vals, RenderOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Values["z"]; got != "z" {
				t.Errorf("z = %q, want \"z\"", got)
			}
		})
	}
	vals := mustParse(t, `a: '{{ include "sylva-units/t/00001" . }}'
b: 'B{{ 1 }}'`)
	if _, err := Render(context.Background(), vals, RenderOptions{}); err == nil {
		t.Error("a string rendered another string's template; want an error")
	}
}

// TestRefusedLookupsAreListedUpToALimit: thousands of refused lookups
// give maxDeniedListed warnings (the first names in sorted order) and one
// counting the rest, the same whatever order the strings ran in.
func TestRefusedLookupsAreListedUpToALimit(t *testing.T) {
	vals := map[string]any{}
	for i := range 2000 {
		// Each name twice: counted once.
		vals[fmt.Sprintf("a%04d", i)] = fmt.Sprintf(`{{ lookup "v1" "ConfigMap" "x" "cm%04d" }}`, i%1000)
	}
	var first []string
	for run := range 3 {
		res, err := Render(context.Background(), vals, RenderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Warnings) != maxDeniedListed+1 {
			t.Fatalf("%d warnings, want %d", len(res.Warnings), maxDeniedListed+1)
		}
		if !strings.Contains(res.Warnings[0], "x/cm0000") || !strings.HasPrefix(res.Warnings[maxDeniedListed], "980 more lookups") {
			t.Errorf("warnings = %q, want cm0000 first and 980 more counted", res.Warnings)
		}
		if run == 0 {
			first = res.Warnings
		} else if !slices.Equal(first, res.Warnings) {
			t.Errorf("run %d warnings differ from run 0:\n%q\n%q", run, res.Warnings, first)
		}
	}
}

func TestRenderErrorsNameTheValuesPath(t *testing.T) {
	tests := []struct {
		name, vals, path, reason string
		parse                    bool
	}{
		{name: "parse error", vals: "a: ok\nk8s_version_short: '{{ .Values.transition_from_n-2 }}'", path: "values.k8s_version_short", reason: "bad character U+002D", parse: true},
		{name: "execution error", vals: "units:\n  x:\n    v: '{{ \"main\" | semverCompare \"<1.5\" }}'", path: "values.units.x.v", reason: "semverCompare"},
		{name: "ternary on a string", vals: "f: '{{ true }}'\nk: '{{ .Values.f | ternary 1 2 }}'", path: "values.k", reason: "expected bool; got string"},
		{name: "required", vals: "l: ['{{ required \"need x\" .Values.x }}']", path: "values.l[0]", reason: "need x"},
		{name: "include recursion is one short line", vals: `a: '{{ define "r" }}{{ include "r" . }}{{ end }}{{ include "r" . }}'`, path: "values.a", reason: `more times] error calling include: rendering template has a nested reference name: r`},
		{name: "odd key", vals: "m:\n  \"1.30\": '{{ fail \"no\" }}'", path: `values.m["1.30"]`, reason: "no"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Render(context.Background(), mustParse(t, tt.vals), RenderOptions{})
			var te *TemplateError
			if !errors.As(err, &te) {
				t.Fatalf("Render error = %v, want a *TemplateError", err)
			}
			if te.Path != tt.path || te.Parse != tt.parse || !strings.Contains(te.Reason, tt.reason) {
				t.Errorf("Render error = %+v, want path %s, parse %t, reason containing %q", te, tt.path, tt.parse, tt.reason)
			}
			if len(te.Error()) > 1000 {
				t.Errorf("error is %d bytes long, want a short line", len(te.Error()))
			}
			if strings.Contains(te.Error(), "t/0") {
				t.Errorf("error leaks the internal template name: %s", te.Error())
			}
		})
	}
}

func TestLookupAllowList(t *testing.T) {
	secret := map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "s", "namespace": DefaultNamespace}, "data": map[string]any{"k": "djE="}}
	hr := map[string]any{"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease", "metadata": map[string]any{"name": "sylva-units", "namespace": DefaultNamespace}}
	vals := mustParse(t, `
secret: '{{ (lookup "v1" "Secret" .Release.Namespace "s").data | toJson }}'
hr: '{{ (lookup "helm.toolkit.fluxcd.io/v2" "HelmRelease" .Release.Namespace "sylva-units").metadata.name }}'
hrs: '{{ (lookup "helm.toolkit.fluxcd.io/v2" "HelmRelease" .Release.Namespace "").items | len }}'
cms: '{{ (lookup "v1" "ConfigMap" "" "").items | len }}'
`)
	tests := []struct {
		name     string
		allow    []string
		want     map[string]string
		warnings int
	}{
		{name: "by default a Secret is refused with a warning", want: map[string]string{"secret": "null", "hr": "sylva-units", "hrs": "1", "cms": "0"}, warnings: 2},
		{name: "a rule widens the allow list", allow: []string{"core/v1/Secret/sylva-system/s", "v1/ConfigMap"}, want: map[string]string{"secret": `{"k":"djE="}`, "hr": "sylva-units", "hrs": "1", "cms": "0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			allow := DefaultAllowList(DefaultNamespace)
			for _, a := range tt.allow {
				r, err := ParseAllowRule(a)
				if err != nil {
					t.Fatal(err)
				}
				allow = append(allow, r)
			}
			res, err := Render(context.Background(), vals, RenderOptions{Source: NewObjects(secret, hr), Allow: allow})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for k, v := range res.Values {
				got[k] = v.(string)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if len(res.Warnings) != tt.warnings {
				t.Errorf("warnings = %q, want %d", res.Warnings, tt.warnings)
			}
		})
	}
}

func TestParseAllowRule(t *testing.T) {
	tests := map[string]string{
		"core/v1/Secret":                          "core/v1/Secret/*/*",
		"v1/Secret/ns/name":                       "core/v1/Secret/ns/name",
		"core/v1/ConfigMap/*/x":                   "core/v1/ConfigMap/*/x",
		"helm.toolkit.fluxcd.io/*/HelmRelease":    "helm.toolkit.fluxcd.io/*/HelmRelease/*/*",
		"*/*/HelmRelease/sylva-system/*":          "*/*/HelmRelease/sylva-system/*",
		"apps/v1/Deployment/sylva-system/coredns": "apps/v1/Deployment/sylva-system/coredns",
	}
	for in, want := range tests {
		r, err := ParseAllowRule(in)
		if err != nil {
			t.Errorf("ParseAllowRule(%q): %v", in, err)
			continue
		}
		if r.String() != want {
			t.Errorf("ParseAllowRule(%q) = %s, want %s", in, r, want)
		}
	}
	refused := map[string]string{
		"a bare kind":                           "Secret",
		"four fields":                           "a/b/c/d",
		"an empty kind":                         "core/v1/",
		"an empty group":                        "/v1/Secret",
		"an empty namespace and name":           "core/v1/Secret//",
		"an empty name (a variable left unset)": "core/v1/Secret/ns/",
		"an empty namespace":                    "core/v1/Secret//name",
	}
	for name, bad := range refused {
		if _, err := ParseAllowRule(bad); err == nil {
			t.Errorf("%s: ParseAllowRule(%q) accepted", name, bad)
		} else if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error is not one line: %q", name, err)
		}
	}
}

func TestAllowListFailsClosed(t *testing.T) {
	objs := NewObjects(
		map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "s", "namespace": "other"}},
		map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": StatusConfigMap, "namespace": "other"}},
		map[string]any{"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease", "metadata": map[string]any{"name": "hr", "namespace": "other"}},
		map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w", "namespace": "other"}},
	)
	vals := mustParse(t, `
cm: '{{ lookup "v1" "ConfigMap" "other" "sylva-units-status" | dig "metadata" "name" "none" }}'
hrs: '{{ (lookup "helm.toolkit.fluxcd.io/v2" "HelmRelease" "" "").items | len }}'
secrets: '{{ (lookup "v1" "Secret" "" "").items | len }}'
widgets: '{{ (lookup "example.com/v1" "Widget" "other" "").items | len }}'
`)
	rule := func(s string) AllowRule {
		r, err := ParseAllowRule(s)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	tests := []struct {
		name  string
		allow []AllowRule
		want  map[string]string
	}{
		{
			name: "the default list of an empty namespace admits nothing", allow: DefaultAllowList(""),
			want: map[string]string{"cm": "none", "hrs": "0", "secrets": "0", "widgets": "0"},
		},
		{
			name: "the default list of the release namespace admits its status ConfigMap", allow: DefaultAllowList("other"),
			want: map[string]string{"cm": StatusConfigMap, "hrs": "0", "secrets": "0", "widgets": "0"},
		},
		{
			name: "a rule with empty fields admits nothing", allow: []AllowRule{{Kind: "Secret"}, {Group: "helm.toolkit.fluxcd.io", Kind: "HelmRelease"}},
			want: map[string]string{"cm": "none", "hrs": "0", "secrets": "0", "widgets": "0"},
		},
		{
			name: "a namespace rule does not admit a list over every namespace", allow: []AllowRule{rule("core/v1/Secret/other/*")},
			want: map[string]string{"cm": "none", "hrs": "0", "secrets": "0", "widgets": "0"},
		},
		{
			name: "* in every field admits a list over every namespace", allow: []AllowRule{rule("core/v1/Secret/*/*")},
			want: map[string]string{"cm": "none", "hrs": "0", "secrets": "1", "widgets": "0"},
		},
		{
			name: "* in the group admits any group", allow: []AllowRule{rule("*/v1/Widget/other/*")},
			want: map[string]string{"cm": "none", "hrs": "0", "secrets": "0", "widgets": "1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Render(context.Background(), vals, RenderOptions{Namespace: "other", Source: objs, Allow: tt.allow})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for k, v := range res.Values {
				got[k] = v.(string)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseObjectsReadsLists(t *testing.T) {
	objs, err := ParseObjects([]byte(`
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: n}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: b, namespace: n}}
---
apiVersion: v1
kind: Secret
metadata: {name: c, namespace: n}
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 3 {
		t.Fatalf("ParseObjects = %d objects, want 3", len(objs))
	}
	if _, err := ParseObjects([]byte("kind: ConfigMap\n")); err == nil {
		t.Error("an object without apiVersion and name was accepted")
	}
}

func TestRenderIsDeterministic(t *testing.T) {
	vals := benchValues(20, 200)
	var a, b bytes.Buffer
	for _, buf := range []*bytes.Buffer{&a, &b} {
		res, err := Render(context.Background(), vals, RenderOptions{Source: NewObjects(statusCM(map[string]any{"sylva_release": "1.5"}))})
		if err != nil {
			t.Fatal(err)
		}
		if err := WriteYAML(buf, res.Values); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two renders differ")
	}
}

// A template that reads a field of an object lookup did not find fails on
// a nil value; the error says which lookups of the render found nothing,
// and why: nothing served, not found, or not allowed.
func TestRenderErrorsExplainTheLookupsThatFoundNothing(t *testing.T) {
	reads := `c: '{{ (lookup "v1" "ConfigMap" .Release.Namespace "sylva-units-status").data.sylva_release }}'`
	other := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "other", "namespace": DefaultNamespace}}
	tests := []struct {
		name, vals string
		source     Source
		want       string
	}{
		{
			name: "nothing served", vals: reads,
			want: "; the lookups of this render that found nothing: v1 ConfigMap sylva-system/sylva-units-status; no object is served to lookup: give them with --status or --object, or read a cluster with --live, --kubeconfig or --context",
		},
		{
			name: "an empty set of objects serves nothing either", vals: reads, source: NewObjects(),
			want: "; the lookups of this render that found nothing: v1 ConfigMap sylva-system/sylva-units-status; no object is served to lookup",
		},
		{
			name: "not among the objects served", vals: reads, source: NewObjects(other),
			want: "; the lookups of this render that found nothing: v1 ConfigMap sylva-system/sylva-units-status (not found)",
		},
		{
			name: "refused by the allow list", vals: `s: '{{ (lookup "v1" "Secret" "kube-system" "k").data.key }}'`, source: NewObjects(other),
			want: "; the lookups of this render that found nothing: v1 Secret kube-system/k (not allowed: widen with --allow-lookup)",
		},
		{
			name: "a failing string without lookup is not explained by the others", vals: "d: '{{ fail \"no\" }}'\ne: '{{ lookup \"v1\" \"ConfigMap\" \"x\" \"y\" }}'",
			want: "no",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Render(context.Background(), mustParse(t, tt.vals), RenderOptions{Source: tt.source})
			var te *TemplateError
			if !errors.As(err, &te) {
				t.Fatalf("Render error = %v, want a *TemplateError", err)
			}
			if !strings.Contains(te.Reason, tt.want) {
				t.Errorf("reason %q, want it to contain %q", te.Reason, tt.want)
			}
			if strings.HasPrefix(tt.name, "a failing string without") && strings.Contains(te.Reason, "lookup") {
				t.Errorf("reason %q explains lookups of other strings", te.Reason)
			}
		})
	}
}
