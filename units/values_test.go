package units_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"gitlab.com/sylva-projects/sylva-planner/units"
)

func parse(t *testing.T, docs ...string) *units.Values {
	t.Helper()
	var files []units.File
	for i, d := range docs {
		files = append(files, units.File{Name: "f" + string(rune('1'+i)) + ".yaml", Data: []byte(d)})
	}
	v, err := units.Parse(files...)
	if err != nil {
		t.Fatalf("Parse() error = %v", err)
	}
	return v
}

func unit(t *testing.T, v *units.Values, name string) units.Unit {
	t.Helper()
	u, ok := v.Unit(name)
	if !ok {
		t.Fatalf("unit %s missing", name)
	}
	return u
}

func deps(u units.Unit) string {
	var out []string
	for _, d := range u.DependsOn {
		s := d.Key + "="
		switch {
		case d.When.IsTemplate():
			s += "tpl"
		case d.When.IsTrue():
			s += "true"
		default:
			s += "false"
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

func TestMergeAndTemplateOrder(t *testing.T) {
	tests := []struct {
		name  string
		docs  []string
		check func(*units.Values) string
		want  string
	}{
		{
			name: "defaults, then templates in order, then the unit's own fields",
			docs: []string{`
unit_definition_defaults: {info: {description: default, maturity: stable}, depends_on: {a: true}}
unit_templates:
  t1: {info: {description: t1, version: "1"}, depends_on: {b: true}}
  t2: {info: {description: t2}, depends_on: {b: false, c: true}}
units:
  u: {unit_templates: [t1, t2], depends_on: {d: true}}
  v: {unit_templates: [t2, t1], info: {description: own}}
`},
			check: func(v *units.Values) string {
				u, w := unit(t, v, "u"), unit(t, v, "v")
				return strings.Join([]string{u.Info.Description, u.Info.Maturity, u.Info.Version, deps(u), w.Info.Description, deps(w)}, "|")
			},
			want: "t2|stable|1|a=true b=false c=true d=true|own|a=true b=true c=true",
		},
		{
			name: "later files win, maps merge, lists are replaced",
			docs: []string{
				"units: {u: {info: {description: base, details: kept}, enabled_conditions: [true, true]}}",
				"units: {u: {info: {description: overlay}, enabled_conditions: [false]}}",
			},
			check: func(v *units.Values) string {
				u := unit(t, v, "u")
				return u.Info.Description + "|" + u.Info.Details + "|" + string(u.Enablement())
			},
			want: "overlay|kept|disabled",
		},
		{
			name: "null in a later file deletes a unit, a dependency or inherited metadata",
			docs: []string{
				"unit_templates: {legacy: {info: {transitional-unit: from-1.4}}}\nunits: {a: {}, b: {depends_on: {a: true, c: true}}, c: {unit_templates: [legacy]}}",
				"units: {a: null, b: {depends_on: {c: null}}, c: {info: {transitional-unit: null}}}",
			},
			check: func(v *units.Values) string {
				_, hasA := v.Unit("a")
				return strings.Join([]string{boolString(hasA), deps(unit(t, v, "b")), boolString(unit(t, v, "c").Info.Transitional != nil)}, "|")
			},
			want: "false|a=true|false",
		},
		{
			name: "a null in the unit's own fields removes what a template set",
			docs: []string{"unit_templates: {t: {one_shot: true, enabled: false}}\nunits: {u: {unit_templates: [t], enabled: null}}"},
			check: func(v *units.Values) string {
				u := unit(t, v, "u")
				return boolString(u.OneShot.IsTrue()) + "|" + string(u.Enablement())
			},
			want: "true|enabled",
		},
		{
			name: "enabled comes from the unit's own values, never from a template, as the chart's unit-enabled reads it",
			docs: []string{"unit_templates: {opt: {enabled: false}}\nunits: {plain: {unit_templates: [opt]}, tpl: {unit_templates: [opt], enabled: '{{ .Values.x }}'}, quoted: {enabled: 'false'}}"},
			check: func(v *units.Values) string {
				return string(unit(t, v, "plain").Enablement()) + "|" + string(unit(t, v, "tpl").Enablement()) + "|" + string(unit(t, v, "quoted").Enablement())
			},
			want: "enabled|conditional|disabled",
		},
		{
			name: "units_enabled_default decides for units without enabled; a one_shot unit is conditional",
			docs: []string{"units_enabled_default: false\nunits: {a: {}, b: {enabled: true}, c: {enabled: true, one_shot: true}, d: {one_shot: true}}"},
			check: func(v *units.Values) string {
				var out []string
				for _, n := range []string{"a", "b", "c", "d"} {
					out = append(out, string(unit(t, v, n).Enablement()))
				}
				return strings.Join(out, "|")
			},
			want: "disabled|enabled|conditional|disabled",
		},
		{
			name: "units_override_enabled enables exactly the units it lists; a gotpl entry makes the others conditional",
			docs: []string{"units_override_enabled: [a, '{{ .Values.x }}']\nunits: {a: {enabled: false}, b: {enabled: true}}", "units_override_enabled: [a]\nunits: {c: {}}"},
			check: func(v *units.Values) string {
				return string(unit(t, v, "a").Enablement()) + "|" + string(unit(t, v, "b").Enablement()) + "|" + string(unit(t, v, "c").Enablement())
			},
			want: "enabled|disabled|disabled",
		},
		{
			name: "lists merge as the chart's merge-append: defaults, templates and the unit's own entries appended",
			docs: []string{`
unit_definition_defaults: {unit_templates: [base]}
unit_templates:
  base: {depends_on: {root: true}}
  extra: {depends_on: {flux: true}}
units:
  u: {unit_templates: [extra]}
`},
			check: func(v *units.Values) string {
				u := unit(t, v, "u")
				return strings.Join(u.UnitTemplates, ",") + "|" + deps(u)
			},
			want: "base,extra|flux=true root=true",
		},
		{
			name: "namespace/unit keys name the unit after the slash",
			docs: []string{"units: {cluster: {depends_on: {sylva-system/os-image-server: '{{ .Values.x }}', capm3: true}}, os-image-server: {}}"},
			check: func(v *units.Values) string {
				u := unit(t, v, "cluster")
				f, ok := u.DependsOnUnit("os-image-server")
				return deps(u) + "|" + u.DependsOn[1].Namespace + "|" + boolString(ok && f.IsTemplate())
			},
			want: "capm3=true sylva-system/os-image-server=tpl|sylva-system|true",
		},
		{
			name:  "sylva_release and _internal.sylva_branch are read",
			docs:  []string{"sylva_release: 1.6-pre\n_internal: {sylva_branch: main}", "_internal: {sylva_branch: release-1.6}"},
			check: func(v *units.Values) string { return v.SylvaRelease + "|" + v.SylvaBranch },
			want:  "1.6-pre|release-1.6",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.check(parse(t, tt.docs...)); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func TestParseDoesNotModifyTemplatesSharedByUnits(t *testing.T) {
	v := parse(t, "unit_templates: {t: {depends_on: {x: true}}}\nunits: {a: {unit_templates: [t], depends_on: {x: false}}, b: {unit_templates: [t]}}")
	if got := deps(unit(t, v, "b")); got != "x=true" {
		t.Errorf("b depends_on = %q, want x=true (a's override leaked into the template)", got)
	}
}

func TestParseErrorsNameTheInput(t *testing.T) {
	tests := []struct{ name, doc, want string }{
		{"a file that is not YAML", "units: [", "values file f1.yaml is not valid YAML"},
		{"a file that holds a list", "- a\n- b", "values file f1.yaml holds a list, not a map"},
		{"units that is not a map", "units: [a]", "units is a list, want a map"},
		{"a unit that is not a map", "units: {a: true}", "units.a is a boolean, want a map"},
		{"an unknown template", "units: {a: {unit_templates: [nope]}}", `units.a: unit_templates: template "nope" is not defined`},
		{"a depends_on value of the wrong type", "units: {a: {depends_on: {b: 3}}}", "units.a: depends_on.b: the number 3, want a boolean or a template string"},
		{"enabled_conditions that is not a list", "units: {a: {enabled_conditions: true}}", "units.a: enabled_conditions is a boolean, want a list"},
		{"an info field of the wrong type", "units: {a: {info: {description: [x]}}}", "units.a: info.description: a list, want a string"},
		{"an invalid unit name", "units: {Keycloak: {}}", `units: unit name "Keycloak"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := units.Parse(units.File{Name: "f1.yaml", Data: []byte(tt.doc)})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse(%q) error = %v, want it to contain %q", tt.doc, err, tt.want)
			}
		})
	}
}

func TestValidName(t *testing.T) {
	valid := []string{"a", "cert-manager", "keycloak-postgres", "k8s-1", "0", strings.Repeat("a", 63)}
	invalid := []string{"", "-a", "a-", "Keycloak", "a_b", "a.b", "a b", strings.Repeat("a", 64), "é"}
	for _, n := range valid {
		if err := units.ValidName(n); err != nil {
			t.Errorf("ValidName(%q) = %v, want nil", n, err)
		}
	}
	for _, n := range invalid {
		if units.ValidName(n) == nil {
			t.Errorf("ValidName(%q) = nil, want an error", n)
		}
	}
}

func TestReleaseOf(t *testing.T) {
	tests := []struct {
		name, doc, chart string
		want, from       string
		err              bool
	}{
		{"sylva_release on main is the release being prepared", "sylva_release: 1.7-pre", "", "1.7", `sylva_release "1.7-pre"`, false},
		{"sylva_release wins over the branch", "sylva_release: '1.6'\n_internal: {sylva_branch: main}", "", "1.6", `sylva_release "1.6"`, false},
		{"a release branch names its release", "_internal: {sylva_branch: release-1.6}", "", "1.6", `_internal.sylva_branch "release-1.6"`, false},
		{"main needs --release", "_internal: {sylva_branch: main}", "", "", "", true},
		{"main falls back to the chart version", "_internal: {sylva_branch: main}", "1.5.3", "1.5", `chart version "1.5.3"`, false},
		{"a development chart says nothing", "", "0.0.0-git-c2cf24ef+9675be9d", "", "", true},
		{"a numeric sylva_release is refused", "sylva_release: 1.10", "", "", "", true},
		{"an unparsable sylva_release is refused", "sylva_release: banana", "", "", "", true},
		{"nothing at all", "units: {}", "", "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := units.ReleaseOf(parse(t, tt.doc), tt.chart, "for example --release 1.7")
			if tt.err {
				// A release written wrong is bad input; no release at all
				// is ErrNoRelease, which the audit survives.
				written := strings.Contains(tt.doc, "sylva_release")
				if err == nil || errors.Is(err, units.ErrNoRelease) == written {
					t.Fatalf("ReleaseOf() error = %v, want an error that is ErrNoRelease only when no release is written", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ReleaseOf() error = %v", err)
			}
			if diff := cmp.Diff([]string{tt.want, tt.from}, []string{got.Release.String(), got.From}); diff != "" {
				t.Errorf("ReleaseOf() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBuildWithAResolverTakesTheChartsDefinitions(t *testing.T) {
	merged, err := units.Merge(units.File{Name: "v.yaml", Data: []byte(`
unit_templates: {base: {depends_on: {root: true}}}
units:
  root: {}
  app: {unit_templates: ['{{ tuple "base" true | include "set-only-if" }}'], enabled: '{{ .Values.x }}'}
  old: {}
`)})
	if err != nil {
		t.Fatal(err)
	}
	var seen map[string]any
	r := units.ResolverFunc(func(m map[string]any) (map[string]map[string]any, error) {
		seen = m
		return map[string]map[string]any{
			"root": {"enabled": true},
			"app":  {"enabled": true, "unit_templates": []any{"base"}, "depends_on": map[string]any{"root": true, "old": "{{ .Values.y }}"}},
			"old":  {"enabled": false, "info": map[string]any{"description": "d", "transitional-unit": "from-1.4"}},
		}, nil
	})
	v, err := units.BuildWith(r, merged)
	if err != nil {
		t.Fatalf("BuildWith() error = %v", err)
	}
	if seen == nil {
		t.Fatal("the resolver was not called with the merged values")
	}
	app, old := unit(t, v, "app"), unit(t, v, "old")
	got := []string{string(v.Resolution), string(app.Enablement()), deps(app), strings.Join(app.UnitTemplates, ","), string(old.Enablement()), old.Info.Transitional.Raw}
	want := []string{"chart", "enabled", "old=tpl root=true", "base", "disabled", "from-1.4"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("BuildWith() (-want +got):\n%s", diff)
	}
	if len(v.Unresolved) != 1 || v.Unresolved[0].Field != "depends_on.old" {
		t.Errorf("Unresolved = %+v, want only what the resolver left as gotpl (app depends_on.old)", v.Unresolved)
	}

	missing := units.ResolverFunc(func(map[string]any) (map[string]map[string]any, error) {
		return map[string]map[string]any{"root": {"enabled": true}}, nil
	})
	if _, err := units.BuildWith(missing, merged); err == nil || !strings.Contains(err.Error(), "units.app: the resolver returned no definition") {
		t.Errorf("BuildWith(resolver missing app) error = %v, want it to name units.app", err)
	}
}

func TestLiteralReadingListsEveryGotplEntry(t *testing.T) {
	v := parse(t, `
units_enabled_default: '{{ .Values.x }}'
unit_templates: {base: {depends_on: {root: '{{ .Values.r }}'}}}
units:
  root: {}
  app:
    unit_templates: [base, '{{ tuple "extra" true | include "set-only-if" }}']
    enabled_conditions: [true, '{{ .Values.c }}']
    depends_on: {'{{ .Values.storage }}': true, sylva-system/root: true}
    info: {description: '{{ .Values.d }}'}
  pivot: {depends_on: '{{ omit .Values.units.app.depends_on "x" | include "preserve-type" }}'}
`)
	var got []string
	for _, u := range v.Unresolved {
		got = append(got, u.Unit+" "+u.Field+" "+string(u.Kind))
	}
	want := []string{
		" units_enabled_default condition",
		"app depends_on.root condition",
		"app depends_on[{{ .Values.storage }}] dependency-key",
		"app enabled_conditions[1] condition",
		"app info.description info",
		"app unit_templates[1] unit-template",
		"pivot depends_on depends-on",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Unresolved (-want +got):\n%s", diff)
	}
	if got := deps(unit(t, v, "app")); got != "root=tpl sylva-system/root=true" {
		t.Errorf("app depends_on = %q, want the literal entries only", got)
	}
}
