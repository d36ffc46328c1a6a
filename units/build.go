package units

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// BuildWith builds the units of an already merged values tree. A nil
// resolver reads the tree literally: each unit is unit_definition_defaults,
// then its unit_templates in order, then its own fields, merged as the
// chart's merge-append helper does; a gotpl string that decides a boolean
// is read as possibly true; any other gotpl entry (a unit_templates entry,
// a whole depends_on, a depends_on key) is skipped. With a Resolver, the
// units are the resolver's definitions. Every gotpl entry left is listed
// in Values.Unresolved; none is an error. The tree is not modified.
func BuildWith(r Resolver, merged map[string]any) (*Values, error) {
	v := &Values{Resolution: ResolutionLiteral}
	switch s := merged["sylva_release"].(type) {
	case nil:
	case string:
		v.SylvaRelease = s
	default:
		v.releaseProblem = fmt.Sprintf("sylva_release is %s, not a string; quote it (for example sylva_release: \"1.10\", which YAML would otherwise read as 1.1)", describe(s))
	}
	if internal, ok := merged["_internal"].(map[string]any); ok {
		if b, ok := internal["sylva_branch"].(string); ok {
			v.SylvaBranch = b
		}
	}

	defaults, err := mapField(merged, "unit_definition_defaults")
	if err != nil {
		return nil, err
	}
	templates, err := mapField(merged, "unit_templates")
	if err != nil {
		return nil, err
	}
	for _, name := range slices.Sorted(maps.Keys(templates)) {
		if templates[name] == nil {
			continue
		}
		if _, ok := templates[name].(map[string]any); !ok {
			return nil, fmt.Errorf("unit_templates.%s is %s, want a map", name, describe(templates[name]))
		}
		v.Templates = append(v.Templates, name)
	}
	unitMap, err := mapField(merged, "units")
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(unitMap))
	for _, name := range slices.Sorted(maps.Keys(unitMap)) {
		if err := ValidName(name); err != nil {
			return nil, fmt.Errorf("units: %w", err)
		}
		if unitMap[name] == nil {
			continue // deleted by a null
		}
		if _, ok := unitMap[name].(map[string]any); !ok {
			return nil, fmt.Errorf("units.%s is %s, want a map", name, describe(unitMap[name]))
		}
		names = append(names, name)
	}

	var resolved map[string]map[string]any
	var sel selection
	if r != nil {
		v.Resolution = ResolutionChart
		if resolved, err = r.ResolveUnits(merged); err != nil {
			return nil, fmt.Errorf("resolve units: %w", err)
		}
	} else if sel, err = readSelection(merged, &v.Unresolved); err != nil {
		return nil, err
	}
	for _, name := range names {
		own := unitMap[name].(map[string]any)
		var u Unit
		if r != nil {
			def, ok := resolved[name]
			if !ok {
				return nil, fmt.Errorf("units.%s: the resolver returned no definition for it", name)
			}
			u, err = buildResolved(name, def, &v.Unresolved)
			if err == nil {
				addTemplatedReferences(&u, own, defaults, templates)
			}
		} else {
			u, err = buildUnit(name, own, defaults, templates, sel, &v.Unresolved)
		}
		if err != nil {
			return nil, fmt.Errorf("units.%s: %w", name, err)
		}
		v.Units = append(v.Units, u)
	}
	known := map[string]bool{}
	for _, name := range names {
		known[name] = true
	}
	v.TemplateRefs = templateRefs(merged, known)
	slices.SortStableFunc(v.Unresolved, func(a, b Unresolved) int {
		if c := strings.Compare(a.Unit, b.Unit); c != 0 {
			return c
		}
		return strings.Compare(a.Field, b.Field)
	})
	return v, nil
}

// selection is the top-level values that decide which units are enabled.
type selection struct {
	// enabledDefault is units_enabled_default; unset reads as true.
	enabledDefault Flag
	// override is units_override_enabled when set: a unit is enabled iff
	// listed. overrideTemplated is set when the list, or one of its
	// entries, is gotpl.
	overrideSet       bool
	override          map[string]bool
	overrideTemplated bool
}

func readSelection(merged map[string]any, unresolved *[]Unresolved) (selection, error) {
	var s selection
	var err error
	if s.enabledDefault, err = flagField(merged, "units_enabled_default"); err != nil {
		return s, err
	}
	noteFlag(unresolved, "", "units_enabled_default", s.enabledDefault)
	raw, ok := merged["units_override_enabled"]
	if !ok || raw == nil {
		return s, nil
	}
	s.overrideSet, s.override = true, map[string]bool{}
	switch l := raw.(type) {
	case string:
		if !isTemplate(l) {
			return s, fmt.Errorf("units_override_enabled is a string, want a list of unit names")
		}
		s.overrideTemplated = true
		*unresolved = append(*unresolved, Unresolved{Field: "units_override_enabled", Kind: UnresolvedCondition, Template: l})
	case []any:
		for i, e := range l {
			n, ok := e.(string)
			if !ok {
				return s, fmt.Errorf("units_override_enabled[%d] is %s, want a unit name", i, describe(e))
			}
			if isTemplate(n) {
				s.overrideTemplated = true
				*unresolved = append(*unresolved, Unresolved{Field: fmt.Sprintf("units_override_enabled[%d]", i), Kind: UnresolvedCondition, Template: n})
				continue
			}
			s.override[n] = true
		}
	default:
		return s, fmt.Errorf("units_override_enabled is %s, want a list of unit names", describe(raw))
	}
	return s, nil
}

func buildUnit(name string, own, defaults, templates map[string]any, sel selection, unresolved *[]Unresolved) (Unit, error) {
	def, tmpls, skipped, err := Resolve(own, defaults, templates)
	if err != nil {
		return Unit{}, err
	}
	for _, s := range skipped {
		s.Unit = name
		*unresolved = append(*unresolved, s)
	}
	u := Unit{Name: name, UnitTemplates: tmpls}
	if err := readCommon(&u, def, unresolved); err != nil {
		return Unit{}, err
	}
	// The chart's unit-enabled helper reads enabled, enabled_conditions and
	// one_shot from the unit's own values, not from its templates.
	if u.Enabled, err = flagField(own, "enabled"); err != nil {
		return Unit{}, err
	}
	noteFlag(unresolved, name, "enabled", u.Enabled)
	switch c := own["enabled_conditions"].(type) {
	case nil:
	case []any:
		for i, e := range c {
			f, err := toFlag(e)
			if err != nil {
				return Unit{}, fmt.Errorf("enabled_conditions[%d]: %w", i, err)
			}
			noteFlag(unresolved, name, fmt.Sprintf("enabled_conditions[%d]", i), f)
			u.EnabledConditions = append(u.EnabledConditions, f)
		}
	default:
		return Unit{}, fmt.Errorf("enabled_conditions is %s, want a list", describe(c))
	}
	ownOneShot, err := flagField(own, "one_shot")
	if err != nil {
		return Unit{}, err
	}

	e := EnabledYes
	switch {
	case sel.overrideSet && sel.override[name]:
	case sel.overrideSet && sel.overrideTemplated:
		e = EnabledMaybe
	case sel.overrideSet:
		e = EnabledNo
	case u.Enabled.Set:
		e = andEnablement(e, u.Enabled)
	case sel.enabledDefault.Set:
		e = andEnablement(e, sel.enabledDefault)
	}
	if e == EnabledYes && (ownOneShot.IsTrue() || ownOneShot.IsTemplate()) {
		e = EnabledMaybe // skipped once the status records it as done
	}
	if e != EnabledNo {
		e = andEnablement(e, u.EnabledConditions...)
	}
	u.enablement = e
	return u, nil
}

// buildResolved builds a unit from a Resolver's definition, whose enabled
// is the chart's verdict.
func buildResolved(name string, def map[string]any, unresolved *[]Unresolved) (Unit, error) {
	u := Unit{Name: name}
	var err error
	if u.UnitTemplates, err = stringList(def["unit_templates"]); err != nil {
		return Unit{}, fmt.Errorf("unit_templates: %w", err)
	}
	if err := readCommon(&u, def, unresolved); err != nil {
		return Unit{}, err
	}
	if u.Enabled, err = flagField(def, "enabled"); err != nil {
		return Unit{}, err
	}
	noteFlag(unresolved, name, "enabled", u.Enabled)
	u.enablement = andEnablement(EnabledYes, u.Enabled)
	if !u.Enabled.Set {
		u.enablement = EnabledMaybe
	}
	return u, nil
}

// addTemplatedReferences adds to u, a unit as a Resolver built it, the
// depends_on entries of its values (read literally: defaults, templates,
// the unit) whose condition is a template the chart found false with these
// values, so dropped. The key still names a unit: the template may call
// the chart's helpers on that unit (the chart's own
// `tuple . "x" | include "unit-enabled"` fails once x is gone) or hold in
// another deployment, whose render then fails on a dependency on a missing
// unit. Such an entry is a conditional dependency (its When the template,
// FalseHere set).
// What the literal reading cannot read is the resolver's to say: it adds
// nothing then.
func addTemplatedReferences(u *Unit, own, defaults, templates map[string]any) {
	def, _, _, err := Resolve(own, defaults, templates)
	if err != nil {
		return
	}
	lit := Unit{Name: u.Name}
	var discard []Unresolved
	if readCommon(&lit, def, &discard) != nil {
		return
	}
	kept := map[string]bool{}
	for _, d := range u.DependsOn {
		kept[d.Key] = true
	}
	added := false
	for _, d := range lit.DependsOn {
		if d.When.IsTemplate() && !kept[d.Key] {
			d.FalseHere = true
			u.DependsOn = append(u.DependsOn, d)
			added = true
		}
	}
	if added {
		slices.SortFunc(u.DependsOn, func(a, b Dependency) int { return strings.Compare(a.Key, b.Key) })
	}
}

// readCommon reads one_shot, depends_on and info from a built definition.
func readCommon(u *Unit, def map[string]any, unresolved *[]Unresolved) error {
	var err error
	if u.OneShot, err = flagField(def, "one_shot"); err != nil {
		return err
	}
	noteFlag(unresolved, u.Name, "one_shot", u.OneShot)
	switch deps := def["depends_on"].(type) {
	case nil:
	case string:
		if !isTemplate(deps) {
			return fmt.Errorf("depends_on is a string that is not a template, want a map of unit names")
		}
		*unresolved = append(*unresolved, Unresolved{Unit: u.Name, Field: "depends_on", Kind: UnresolvedDependsOn, Template: deps})
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(deps)) {
			f, err := toFlag(deps[k])
			if err != nil {
				return fmt.Errorf("depends_on.%s: %w", k, err)
			}
			if !f.Set {
				continue
			}
			if isTemplate(k) {
				*unresolved = append(*unresolved, Unresolved{Unit: u.Name, Field: "depends_on[" + k + "]", Kind: UnresolvedDependencyKey, Template: k})
				continue
			}
			noteFlag(unresolved, u.Name, "depends_on."+k, f)
			d := Dependency{Key: k, Unit: k, When: f}
			if ns, n, ok := strings.Cut(k, "/"); ok {
				d.Namespace, d.Unit = ns, n
			}
			u.DependsOn = append(u.DependsOn, d)
		}
	default:
		return fmt.Errorf("depends_on is %s, want a map", describe(deps))
	}
	info, err := mapField(def, "info")
	if err != nil {
		return err
	}
	if u.Info, err = buildInfo(info); err != nil {
		return fmt.Errorf("info.%w", err)
	}
	for _, f := range []struct{ key, val string }{{"description", u.Info.Description}, {"details", u.Info.Details}} {
		if isTemplate(f.val) {
			*unresolved = append(*unresolved, Unresolved{Unit: u.Name, Field: "info." + f.key, Kind: UnresolvedInfo, Template: f.val})
		}
	}
	if t := u.Info.Transitional; t != nil && isTemplate(t.Raw) {
		*unresolved = append(*unresolved, Unresolved{Unit: u.Name, Field: "info." + TransitionalKey, Kind: UnresolvedInfo, Template: t.Raw})
	}
	return nil
}

func buildInfo(m map[string]any) (Info, error) {
	var in Info
	var err error
	for _, f := range []struct {
		key string
		dst *string
	}{
		{"description", &in.Description},
		{"details", &in.Details},
		{"kustomization_path", &in.KustomizationPath},
		{"maturity", &in.Maturity},
		{"version", &in.Version},
	} {
		if *f.dst, err = scalarString(m[f.key]); err != nil {
			return Info{}, fmt.Errorf("%s: %w", f.key, err)
		}
	}
	for _, f := range []struct {
		key string
		dst *Flag
	}{{"hidden", &in.Hidden}, {"internal", &in.Internal}, {"test", &in.Test}} {
		if *f.dst, err = flagField(m, f.key); err != nil {
			return Info{}, err
		}
	}
	if raw, ok := m[TransitionalKey]; ok && raw != nil {
		t := ParseTransitional(raw)
		in.Transitional = &t
	}
	return in, nil
}
