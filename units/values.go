package units

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/skew"
)

// File is one values file: Name identifies it in errors (the path as the
// user gave it), Data is its content.
type File struct {
	Name string
	Data []byte
}

// Values is the merged sylva-units values with every unit built.
type Values struct {
	// Units are the units of the `units` map, built from
	// unit_definition_defaults and their unit_templates, sorted by name.
	Units []Unit
	// SylvaRelease is the top-level `sylva_release` value as written
	// ("1.7-pre"), or "" when absent.
	SylvaRelease string
	// SylvaBranch is `_internal.sylva_branch` ("main", "release-1.6"), or ""
	// when absent.
	SylvaBranch string
	// Templates are the names of `unit_templates`, sorted.
	Templates []string
	// Resolution says how gotpl was handled: ResolutionLiteral (read as
	// written) or ResolutionChart (interpreted by a Resolver).
	Resolution Resolution
	// Unresolved lists every entry the units were built from that is a
	// gotpl string the chart interprets at render time, sorted by unit,
	// then field. With a Resolver it lists what the resolver left as gotpl.
	Unresolved []Unresolved

	index map[string]int
	// releaseProblem records a sylva_release that is present but not a
	// string (a YAML number loses its trailing zeros: 1.10 reads as 1.1).
	releaseProblem string
}

// Unit returns the unit called name.
func (v *Values) Unit(name string) (Unit, bool) {
	i, ok := v.index[name]
	if !ok {
		return Unit{}, false
	}
	return v.Units[i], true
}

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

// Unit is one sylva-units unit after unit_definition_defaults and its
// unit_templates were applied. Only the fields the planner reads are kept.
type Unit struct {
	Name string
	Info Info
	// Enabled is the unit's own `enabled` (the chart reads it from the
	// unit, never from its templates); unset means units_enabled_default.
	Enabled Flag
	// EnabledConditions are the unit's own enabled_conditions, ANDed with
	// Enabled.
	EnabledConditions []Flag
	// DependsOn lists the units this unit waits for, sorted by key;
	// entries set to null were removed and gotpl keys are in
	// Values.Unresolved.
	DependsOn []Dependency
	// OneShot is one_shot as built (templates included).
	OneShot Flag
	// UnitTemplates are the templates applied, in the order applied.
	UnitTemplates []string

	enablement Enablement
}

// Info is a unit's `info` block.
type Info struct {
	Description       string
	Details           string
	Maturity          string
	Version           string
	KustomizationPath string
	Internal          Flag
	Test              Flag
	Hidden            Flag
	// Transitional is the `transitional-unit` metadata, nil when absent.
	Transitional *Transitional
}

// Flag is a value that is either a boolean or a gotpl string Helm evaluates
// at render time (such as enabled: '{{ .Values.cluster.capi_providers.x }}').
type Flag struct {
	// Set reports whether the field was present.
	Set bool
	// Bool is the literal value; meaningful when Set and Template is "".
	Bool bool
	// Template is the unevaluated string; the value is decided at render
	// time.
	Template string
}

// IsTrue and IsFalse report a literal true or false; a template is neither.
func (f Flag) IsTrue() bool { return f.Set && f.Template == "" && f.Bool }

// IsFalse reports a literal false.
func (f Flag) IsFalse() bool { return f.Set && f.Template == "" && !f.Bool }

// IsTemplate reports a value decided at render time.
func (f Flag) IsTemplate() bool { return f.Set && f.Template != "" }

// Dependency is one entry of a unit's depends_on.
type Dependency struct {
	// Key is the key as written: "calico", or "sylva-system/os-image-server"
	// for a Kustomization of another namespace (the management cluster's
	// units, seen from a workload cluster).
	Key string
	// Unit is the unit the key names: Key without its namespace.
	Unit string
	// Namespace is the namespace of a "namespace/unit" key, "" otherwise.
	Namespace string
	// When is true, false, or a template deciding at render time.
	When Flag
}

// Enablement says whether a unit is enabled, as far as can be known
// without rendering the chart.
type Enablement string

// Enablements.
const (
	// EnabledYes: enabled for sure.
	EnabledYes Enablement = "enabled"
	// EnabledNo: disabled for sure (enabled, units_enabled_default or one
	// of enabled_conditions is literally false, or units_override_enabled
	// does not list it).
	EnabledNo Enablement = "disabled"
	// EnabledMaybe: decided at render time by a template, or a one_shot
	// unit the chart skips once it ran.
	EnabledMaybe Enablement = "conditional"
)

// Enablement is whether the unit is enabled, computed as the chart's
// unit-enabled helper does: units_override_enabled when set (the unit is
// enabled if listed), else the unit's own enabled, else
// units_enabled_default (true when the values do not set it); then a
// one_shot unit is possibly skipped, and enabled_conditions are ANDed.
func (u Unit) Enablement() Enablement {
	if u.enablement != "" {
		return u.enablement
	}
	return andEnablement(EnabledYes, append([]Flag{u.Enabled}, u.EnabledConditions...)...)
}

func andEnablement(e Enablement, flags ...Flag) Enablement {
	for _, f := range flags {
		switch {
		case f.IsFalse():
			return EnabledNo
		case f.IsTemplate():
			e = EnabledMaybe
		}
	}
	return e
}

// DependsOnUnit reports whether u waits for the unit called name, under any
// key (name or namespace/name): a literal true or a template (which may
// render true). The flag returned is the first such entry's.
func (u Unit) DependsOnUnit(name string) (Flag, bool) {
	for _, d := range u.DependsOn {
		if d.Unit == name && (d.When.IsTrue() || d.When.IsTemplate()) {
			return d.When, true
		}
	}
	return Flag{}, false
}

// MaxNameLength is the longest unit name accepted.
const MaxNameLength = 63

// ValidName reports whether name is a valid unit name, and why not. Unit
// names become Flux Kustomization names and label values, so the rule is
// the Kubernetes DNS-1123 label: 1 to 63 characters, lowercase letters,
// digits and '-', starting and ending with a letter or digit.
func ValidName(name string) error {
	if name == "" {
		return errors.New("unit name is empty")
	}
	if len(name) > MaxNameLength {
		return fmt.Errorf("unit name %q is %d characters long, more than %d", name, len(name), MaxNameLength)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '-' && i > 0 && i < len(name)-1:
		default:
			return fmt.Errorf("unit name %q: use lowercase letters, digits and '-', starting and ending with a letter or digit", name)
		}
	}
	return nil
}

// Merge decodes values files and merges them with MergeValues: the first
// is the base (a chart's values.yaml), the others are merged over it as
// `helm -f` merges its files. An empty file is an empty map.
func Merge(files ...File) (map[string]any, error) {
	docs := make([]map[string]any, 0, len(files))
	for _, f := range files {
		var doc any
		if err := yaml.Unmarshal(f.Data, &doc); err != nil {
			return nil, fmt.Errorf("values file %s is not valid YAML: %w", f.Name, cleanYAMLError(err))
		}
		if _, err := yaml.YAMLToJSONStrict(f.Data); err != nil {
			return nil, fmt.Errorf("values file %s: %s", f.Name, duplicateKey(err))
		}
		switch m := doc.(type) {
		case nil:
			docs = append(docs, map[string]any{})
		case map[string]any:
			docs = append(docs, m)
		default:
			return nil, fmt.Errorf("values file %s holds %s, not a map of values; pass a sylva-units values file", f.Name, describe(doc))
		}
	}
	return MergeValues(docs...), nil
}

// Parse merges the files (see Merge) and builds every unit, reading the
// values literally (see Build). Errors name the file or the unit and field
// at fault.
func Parse(files ...File) (*Values, error) {
	return ParseWith(nil, files...)
}

// ParseWith is Parse with a Resolver; a nil resolver reads the values
// literally.
func ParseWith(r Resolver, files ...File) (*Values, error) {
	merged, err := Merge(files...)
	if err != nil {
		return nil, err
	}
	return BuildWith(r, merged)
}

// Build builds the units of an already merged values tree, reading it
// literally: each unit is unit_definition_defaults, then its
// unit_templates in order, then its own fields, merged as the chart's
// merge-append helper does; a gotpl string that decides a boolean is read
// as possibly true; any other gotpl entry (a unit_templates entry, a whole
// depends_on, a depends_on key) is skipped. Every gotpl entry is listed in
// Values.Unresolved; none is an error. The tree is not modified.
func Build(merged map[string]any) (*Values, error) {
	return BuildWith(nil, merged)
}

// BuildWith is Build with a Resolver: the units are the resolver's
// definitions, and what it left as gotpl is listed in Values.Unresolved. A
// nil resolver reads the values literally.
func BuildWith(r Resolver, merged map[string]any) (*Values, error) {
	v := &Values{index: map[string]int{}, Resolution: ResolutionLiteral}
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
		} else {
			u, err = buildUnit(name, own, defaults, templates, sel, &v.Unresolved)
		}
		if err != nil {
			return nil, fmt.Errorf("units.%s: %w", name, err)
		}
		v.index[name] = len(v.Units)
		v.Units = append(v.Units, u)
	}
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

// noteFlag lists a templated flag as unresolved.
func noteFlag(unresolved *[]Unresolved, unit, field string, f Flag) {
	if f.IsTemplate() {
		*unresolved = append(*unresolved, Unresolved{Unit: unit, Field: field, Kind: UnresolvedCondition, Template: f.Template})
	}
}

// isTemplate reports a string Helm's tpl would interpret.
func isTemplate(s string) bool { return strings.Contains(s, "{{") }

// TransitionalKey is the info key that marks a transitional unit.
const TransitionalKey = "transitional-unit"

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

// Transitional is a unit's info.transitional-unit metadata.
type Transitional struct {
	// Raw is the value as written; a number is shown as YAML read it.
	Raw string
	// From is X.Y of "from-X.Y": the unit is needed while a supported
	// upgrade source is X.Y or older. Zero when Problem is set.
	From skew.Version
	// Problem says why the value does not parse; "" when it does.
	Problem string
}

// ParseTransitional reads a transitional-unit value. It never fails: a value
// that does not parse is returned with Problem set, so the audit can report
// it as malformed.
func ParseTransitional(raw any) Transitional {
	s, ok := raw.(string)
	if !ok {
		r, _ := scalarString(raw)
		if r == "" {
			r = describe(raw)
		}
		problem := fmt.Sprintf("is %s, not a string; write from-X.Y, for example from-1.4", describe(raw))
		if _, isNum := raw.(float64); isNum {
			problem = fmt.Sprintf("is %s, not a string; write from-%s (quoted values keep their trailing zeros)", describe(raw), r)
		}
		return Transitional{Raw: r, Problem: problem}
	}
	t := Transitional{Raw: s}
	rest, ok := strings.CutPrefix(s, "from-")
	if !ok {
		t.Problem = fmt.Sprintf("%q does not start with from-; write from-X.Y, for example from-1.4", s)
		return t
	}
	v, err := skew.Parse(rest)
	if err != nil || v.HasPatch || v.Pre != "" || v.Build != "" || strings.HasPrefix(rest, "v") {
		t.Problem = fmt.Sprintf("%q: %q is not a Sylva release MAJOR.MINOR; write from-X.Y, for example from-1.4", s, rest)
		return t
	}
	t.From = v
	return t
}

func mapField(m map[string]any, key string) (map[string]any, error) {
	switch v := m[key].(type) {
	case nil:
		return map[string]any{}, nil
	case map[string]any:
		return v, nil
	default:
		return nil, fmt.Errorf("%s is %s, want a map", key, describe(v))
	}
}

func flagField(m map[string]any, key string) (Flag, error) {
	f, err := toFlag(m[key])
	if err != nil {
		return Flag{}, fmt.Errorf("%s: %w", key, err)
	}
	return f, nil
}

// toFlag reads a boolean or a template. A string that is not a template is
// read as Helm's tpl would leave it: "true" and "false" are those values,
// any other string is decided at render time.
func toFlag(v any) (Flag, error) {
	switch t := v.(type) {
	case nil:
		return Flag{}, nil
	case bool:
		return Flag{Set: true, Bool: t}, nil
	case string:
		switch strings.TrimSpace(t) {
		case "true":
			return Flag{Set: true, Bool: true}, nil
		case "false":
			return Flag{Set: true}, nil
		}
		return Flag{Set: true, Template: t}, nil
	}
	return Flag{}, fmt.Errorf("%s, want a boolean or a template string", describe(v))
}

func scalarString(v any) (string, error) {
	switch t := v.(type) {
	case nil:
		return "", nil
	case string:
		return t, nil
	case bool:
		return strconv.FormatBool(t), nil
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64), nil
	}
	return "", fmt.Errorf("%s, want a string", describe(v))
}

func stringList(v any) ([]string, error) {
	switch t := v.(type) {
	case nil:
		return nil, nil
	case []any:
		out := make([]string, len(t))
		for i, e := range t {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("entry %d is %s, want a template name", i, describe(e))
			}
			out[i] = s
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s, want a list of template names", describe(v))
}

// describe names the YAML type of v for error messages.
func describe(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64:
		return "the number " + strconv.FormatFloat(t, 'f', -1, 64)
	case string:
		return "a string"
	case []any:
		return "a list"
	case map[string]any:
		return "a map"
	}
	return fmt.Sprintf("a %T", v)
}

// cleanYAMLError drops the YAML-to-JSON converter's prefix.
func cleanYAMLError(err error) error {
	msg := err.Error()
	for _, p := range []string{"error converting YAML to JSON: ", "error unmarshaling JSON: while decoding JSON: "} {
		msg = strings.TrimPrefix(msg, p)
	}
	if msg == err.Error() {
		return err
	}
	return errors.New(msg)
}

// strictDuplicate finds, in the strict decoder's message, the key given
// twice.
var strictDuplicate = regexp.MustCompile(`line ([0-9]+): key "((?:[^"\\]|\\.)*)" already set in map`)

// duplicateKey words the strict decoder's refusal of a key given twice on
// one line, as yamldoc.DuplicateKey does for the other inputs.
func duplicateKey(err error) string {
	if m := strictDuplicate.FindStringSubmatch(err.Error()); m != nil {
		return fmt.Sprintf("key %q is given twice in the same map (again on line %s); give it once", m[2], m[1])
	}
	return cleanYAMLError(err).Error()
}
