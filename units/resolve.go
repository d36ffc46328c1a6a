package units

import (
	"fmt"
	"strings"
)

// Resolution is how the gotpl of the values was handled.
type Resolution string

// Resolutions.
const (
	// ResolutionLiteral: values read as written; gotpl entries are listed
	// in Values.Unresolved.
	ResolutionLiteral Resolution = "literal"
	// ResolutionChart: units built and interpreted by a Resolver, as the
	// chart builds them.
	ResolutionChart Resolution = "chart"
)

// UnresolvedKind says what a gotpl entry hides and how the literal
// reading treats it.
type UnresolvedKind string

// Unresolved kinds.
const (
	// UnresolvedCondition: a boolean decided at render time (enabled, an
	// enabled_conditions entry, a depends_on value, one_shot,
	// units_enabled_default, units_override_enabled); read as possibly
	// true.
	UnresolvedCondition UnresolvedKind = "condition"
	// UnresolvedUnitTemplate: a unit_templates entry (such as the chart's
	// `tuple "base-deps" … | include "set-only-if"`); the template it names
	// is not applied.
	UnresolvedUnitTemplate UnresolvedKind = "unit-template"
	// UnresolvedDependsOn: the whole depends_on is gotpl; the unit's
	// dependencies are unknown.
	UnresolvedDependsOn UnresolvedKind = "depends-on"
	// UnresolvedDependencyKey: a depends_on key is gotpl; the unit it names
	// is unknown.
	UnresolvedDependencyKey UnresolvedKind = "dependency-key"
	// UnresolvedInfo: an info field the audit reads (transitional-unit,
	// description, details) is gotpl; it is read as written.
	UnresolvedInfo UnresolvedKind = "info"
)

// Unresolved is one gotpl entry the literal reading cannot interpret.
type Unresolved struct {
	// Unit is the unit the entry belongs to ("" for a top-level value such
	// as units_enabled_default).
	Unit string `json:"unit,omitempty"`
	// Field is the path in the unit's built definition:
	// "unit_templates[1]", "depends_on", "depends_on[{{ … }}]",
	// "depends_on.calico", "enabled_conditions[0]", "info.description";
	// or a top-level key.
	Field string         `json:"field"`
	Kind  UnresolvedKind `json:"kind"`
	// Template is the gotpl text as written.
	Template string `json:"template"`
}

// Resolver interprets the chart's gotpl for the units: given the merged
// values, it returns every unit's definition as the chart builds it
// (unit_definition_defaults, then its unit_templates in order, then its own
// fields) with each gotpl string interpreted, and "enabled" set to the
// chart's own verdict for the unit (a boolean). Units absent from the
// result are an error. A resolver that renders the real chart lets the
// audit follow every dependency; without one the values are read
// literally.
type Resolver interface {
	ResolveUnits(merged map[string]any) (map[string]map[string]any, error)
}

// ResolverFunc adapts a function to Resolver.
type ResolverFunc func(merged map[string]any) (map[string]map[string]any, error)

// ResolveUnits calls f.
func (f ResolverFunc) ResolveUnits(merged map[string]any) (map[string]map[string]any, error) {
	return f(merged)
}

// Resolve returns the definition of unit own as sylva-units builds it:
// unit_definition_defaults, then each of its unit_templates in order (the
// defaults' list followed by the unit's own), then its own fields, merged
// as the chart's merge-append helper does (maps merge, lists append, other
// values replace). It also returns the templates applied and, for each
// unit_templates entry that is gotpl, its index and text: those are not
// applied.
func Resolve(own, defaults, templates map[string]any) (def map[string]any, applied []string, skipped []Unresolved, err error) {
	first := deepCopy(defaults).(map[string]any)
	mergeAppend(first, own)
	names, err := stringList(first["unit_templates"])
	if err != nil {
		return nil, nil, nil, fmt.Errorf("unit_templates: %w", err)
	}
	merged := map[string]any{}
	for i, t := range names {
		if isTemplate(t) {
			skipped = append(skipped, Unresolved{Field: fmt.Sprintf("unit_templates[%d]", i), Kind: UnresolvedUnitTemplate, Template: t})
			continue
		}
		tm, ok := templates[t].(map[string]any)
		if !ok {
			return nil, nil, nil, fmt.Errorf("unit_templates: template %q is not defined under unit_templates", t)
		}
		mergeAppend(merged, tm)
		applied = append(applied, t)
	}
	def = deepCopy(defaults).(map[string]any)
	mergeAppend(def, merged)
	mergeAppend(def, own)
	return def, applied, skipped, nil
}

// noteFlag lists a templated flag as unresolved.
func noteFlag(unresolved *[]Unresolved, unit, field string, f Flag) {
	if f.IsTemplate() {
		*unresolved = append(*unresolved, Unresolved{Unit: unit, Field: field, Kind: UnresolvedCondition, Template: f.Template})
	}
}

// isTemplate reports a string Helm's tpl would interpret.
func isTemplate(s string) bool { return strings.Contains(s, "{{") }
