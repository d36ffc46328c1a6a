package units_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/units"
)

func auditYAML(t *testing.T, release, values string) *units.Report {
	t.Helper()
	v, err := units.Parse(units.File{Name: "values.yaml", Data: []byte(values)})
	if err != nil {
		t.Fatalf("Parse() error = %v", err)
	}
	p, _ := policy(t)
	r, err := units.Audit(units.AuditInput{Values: v, Release: semver.MustParse(release), Policy: p})
	if err != nil {
		t.Fatalf("Audit(%s) error = %v", release, err)
	}
	return r
}

type row struct{ name, state, prunableIn, dependents, suggested string }

func rows(r *units.Report) []row {
	out := []row{}
	for _, u := range r.Units {
		out = append(out, row{u.Name, string(u.State), u.PrunableIn, strings.Join(u.Dependents, ","), u.SuggestedMetadata})
	}
	return out
}

func TestAuditStates(t *testing.T) {
	tests := []struct {
		name    string
		release string
		values  string
		want    []row
	}{
		{
			name: "keycloak-postgres from 1.4 is kept in 1.5 and 1.6", release: "1.6",
			values: "units: {keycloak-postgres: {info: {transitional-unit: from-1.4}}}",
			want:   []row{{"keycloak-postgres", "keep", "1.7", "", ""}},
		},
		{
			name: "keycloak-postgres from 1.4 is kept in 1.5 while 1.5 supports 1.4", release: "1.5",
			values: "units: {keycloak-postgres: {info: {transitional-unit: from-1.4}}}",
			want:   []row{{"keycloak-postgres", "keep", "1.7", "", ""}},
		},
		{
			name: "keycloak-postgres from 1.4 is prunable in 1.7, whose sources are 1.5 and 1.6", release: "1.7",
			values: "units: {keycloak-postgres: {info: {transitional-unit: from-1.4}}}",
			want:   []row{{"keycloak-postgres", "prunable", "1.7", "", ""}},
		},
		{
			name: "a unit from 1.3 became prunable in 1.5 and stays prunable", release: "1.7",
			values: "units: {old: {info: {transitional-unit: from-1.3}}}",
			want:   []row{{"old", "prunable", "1.5", "", ""}},
		},
		{
			name: "past the catalog, sources are assumed to be the two previous releases", release: "1.8",
			values: "units: {a: {info: {transitional-unit: from-1.5}}, b: {info: {transitional-unit: from-1.6}}}",
			want:   []row{{"a", "prunable", "1.8", "", ""}, {"b", "keep", "1.9", "", ""}},
		},
		{
			name: "an enabled dependent blocks a prunable unit", release: "1.7",
			values: "units: {old: {info: {transitional-unit: from-1.4}}, app: {depends_on: {old: true}}}",
			want:   []row{{"old", "blocked", "1.7", "app", ""}},
		},
		{
			name: "a templated dependency blocks too", release: "1.7",
			values: "units: {old: {info: {transitional-unit: from-1.4}}, app: {depends_on: {old: '{{ .Values.x }}'}}}",
			want:   []row{{"old", "blocked", "1.7", "app", ""}},
		},
		{
			name: "a disabled dependent or a false dependency does not block", release: "1.7",
			values: "units: {old: {info: {transitional-unit: from-1.4}}, off: {enabled: false, depends_on: {old: true}}, " +
				"cond: {enabled_conditions: [true, false], depends_on: {old: true}}, app: {depends_on: {old: false}}}",
			want: []row{{"old", "prunable", "1.7", "", ""}},
		},
		{
			name: "units pruned together do not block each other", release: "1.7",
			values: "units: {a: {info: {transitional-unit: from-1.3}}, b: {info: {transitional-unit: from-1.4}, depends_on: {a: true}}}",
			want:   []row{{"a", "prunable", "1.5", "", ""}, {"b", "prunable", "1.7", "", ""}},
		},
		{
			name: "a kept transitional dependent blocks, and blocking is transitive", release: "1.6",
			values: "units: {a: {info: {transitional-unit: from-1.3}}, b: {info: {transitional-unit: from-1.3}, depends_on: {a: true}}, " +
				"c: {info: {transitional-unit: from-1.4}, depends_on: {b: true}}}",
			want: []row{{"a", "blocked", "1.5", "b", ""}, {"b", "blocked", "1.5", "c", ""}, {"c", "keep", "1.7", "", ""}},
		},
		{
			name: "malformed metadata is reported, never audited", release: "1.7",
			values: "units: {a: {info: {transitional-unit: from-banana}}, b: {info: {transitional-unit: from-1}}, " +
				"c: {info: {transitional-unit: 1.4}}, d: {info: {transitional-unit: '1.4'}}, e: {info: {transitional-unit: from-1.4.2}}, " +
				"f: {info: {transitional-unit: true}}, g: {info: {transitional-unit: from-v1.4}}}",
			want: []row{
				{"a", "malformed", "", "", ""},
				{"b", "malformed", "", "", ""},
				{"c", "malformed", "", "", ""},
				{"d", "malformed", "", "", ""},
				{"e", "malformed", "", "", ""},
				{"f", "malformed", "", "", ""},
				{"g", "malformed", "", "", ""},
			},
		},
		{
			name: "one_shot and removal texts without metadata are untracked, with X inferred when possible", release: "1.7",
			values: `units:
  job: {one_shot: true}
  after: {info: {description: "should be removed after Sylva 1.3"}}
  in: {info: {details: "to be removed in 1.5"}}
  will: {info: {description: "x", details: "This unit will be removed after Sylva 1.4."}}
  from: {one_shot: true, info: {description: "runs when upgrading from Sylva 1.5; will be removed after 1.6"}}
  plain: {info: {description: "removes nothing; version 1.4"}}
  tracked: {one_shot: true, info: {transitional-unit: from-1.6}}
`,
			want: []row{
				{"after", "untracked", "", "", "info: {transitional-unit: from-1.2}"},
				{"from", "untracked", "", "", "info: {transitional-unit: from-1.5}"},
				{"in", "untracked", "", "", "info: {transitional-unit: from-1.3}"},
				{"job", "untracked", "", "", "info: {transitional-unit: from-X.Y}"},
				{"will", "untracked", "", "", "info: {transitional-unit: from-1.3}"},
				{"tracked", "keep", "1.9", "", ""},
			},
		},
		{
			name: "units without transitional marks are not listed", release: "1.7",
			values: "units: {cert-manager: {info: {description: cert-manager}}, kyverno: {}}",
			want:   []row{},
		},
		{
			name: "transitional metadata from a template counts", release: "1.7",
			values: "unit_templates: {legacy: {info: {transitional-unit: from-1.4}}}\nunits: {old: {unit_templates: [legacy]}}",
			want:   []row{{"old", "prunable", "1.7", "", ""}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := rows(auditYAML(t, tt.release, tt.values))
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(row{})); diff != "" {
				t.Errorf("Audit(%s) units (-want +got):\n%s", tt.release, diff)
			}
		})
	}
}

func TestAuditRefusesAReleaseOlderThanTheCatalog(t *testing.T) {
	p, _ := policy(t)
	_, err := units.Audit(units.AuditInput{Values: &units.Values{}, Release: semver.MustParse("0.9"), Policy: p})
	if !errors.Is(err, units.ErrUnknownRelease) {
		t.Fatalf("Audit(0.9) error = %v, want ErrUnknownRelease", err)
	}
}

func TestAuditNotesAssumedSources(t *testing.T) {
	r := auditYAML(t, "1.9", "units: {}")
	if !r.SourcesAssumed || strings.Join(r.SupportedSources, ",") != "1.7,1.8" || len(r.Notes) != 1 {
		t.Errorf("Audit(1.9) = sources %v assumed %v notes %q, want 1.7,1.8 assumed with one note", r.SupportedSources, r.SourcesAssumed, r.Notes)
	}
}

// TestChartFalseConditionStillBlocks: with the chart's resolution, a
// depends_on entry whose template the chart finds false with these values
// is dropped from the unit's dependsOn, but its key still names the unit
// (sylva-units' `tuple . "x" | include "unit-enabled"` fails once x is
// deleted): the prunable unit it names is blocked, the dependent listed as
// conditional, and the reason says why. A literal false entry names
// nothing that breaks.
func TestChartFalseConditionStillBlocks(t *testing.T) {
	merged, err := units.Merge(units.File{Name: "v.yaml", Data: []byte(`
units:
  app:
    depends_on:
      old-cleanup: '{{ tuple . "old-cleanup" | include "unit-enabled" }}'
      older-cleanup: false
  old-cleanup: {info: {transitional-unit: from-1.3}}
  older-cleanup: {info: {transitional-unit: from-1.3}}
`)})
	if err != nil {
		t.Fatal(err)
	}
	r := units.ResolverFunc(func(map[string]any) (map[string]map[string]any, error) {
		return map[string]map[string]any{
			"app":           {"enabled": true, "depends_on": map[string]any{}},
			"old-cleanup":   {"enabled": false, "info": map[string]any{"transitional-unit": "from-1.3"}},
			"older-cleanup": {"enabled": false, "info": map[string]any{"transitional-unit": "from-1.3"}},
		}, nil
	})
	v, err := units.BuildWith(r, merged)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Unresolved) != 0 {
		t.Errorf("Unresolved = %+v, want none: the chart resolved every entry", v.Unresolved)
	}
	p, _ := policy(t)
	rep, err := units.Audit(units.AuditInput{Values: v, Release: semver.MustParse("1.6"), Policy: p})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]units.AuditedUnit{}
	for _, u := range rep.Units {
		got[u.Name] = u
	}
	old, older := got["old-cleanup"], got["older-cleanup"]
	if old.State != units.StateBlocked || strings.Join(old.ConditionalDependents, ",") != "app" ||
		!strings.Contains(old.Reason, "app (named in depends_on under a template false with these values)") {
		t.Errorf("old-cleanup: %s, conditional dependents %v, reason %q; want blocked by app, named under a false template", old.State, old.ConditionalDependents, old.Reason)
	}
	if older.State != units.StatePrunable {
		t.Errorf("older-cleanup: %s (%s); want prunable: a literal false entry breaks nothing", older.State, older.Reason)
	}
}

// TestTemplatesNamingAUnitHoldIt: a gotpl string that names a prunable
// unit holds it whatever holds the string: a disabled unit (the chart
// interprets every unit's values), a unit template or another top-level
// value (named by its path), with the name quoted in an action or read as
// .units.NAME. A unit's own strings, a name outside {{ }} and a name that
// is no unit hold nothing.
func TestTemplatesNamingAUnitHoldIt(t *testing.T) {
	r := auditYAML(t, "1.6", `
unit_templates:
  base: {depends_on: {b-cleanup: '{{ .Values.units.b-cleanup.enabled }}'}}
_internal:
  x: '{{ index .Values.units "c-cleanup" }}'
units:
  loki:
    enabled: false
    depends_on:
      a-cleanup: '{{ tuple . "a-cleanup" | include "unit-enabled" }}'
  a-cleanup: {info: {transitional-unit: from-1.3}}
  b-cleanup: {info: {transitional-unit: from-1.3}}
  c-cleanup: {info: {transitional-unit: from-1.3}}
  d-cleanup:
    info: {transitional-unit: from-1.3, description: 'd-cleanup "e-cleanup"'}
    enabled: '{{ tuple . "d-cleanup" | include "other" }}'
  e-cleanup: {info: {transitional-unit: from-1.3}}
`)
	want := []row{
		{"d-cleanup", "prunable", "1.5", "", ""},
		{"e-cleanup", "prunable", "1.5", "", ""},
		{"a-cleanup", "blocked", "1.5", "loki", ""},
		{"b-cleanup", "blocked", "1.5", "unit_templates.base.depends_on.b-cleanup", ""},
		{"c-cleanup", "blocked", "1.5", "_internal.x", ""},
	}
	if diff := cmp.Diff(want, rows(r), cmp.AllowUnexported(row{})); diff != "" {
		t.Errorf("Audit() (-want +got):\n%s", diff)
	}
}
