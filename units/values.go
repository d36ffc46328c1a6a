package units

import (
	"errors"
	"fmt"
	"maps"
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

// Unit is one sylva-units unit after unit_definition_defaults and its
// unit_templates were applied. Only the fields the planner reads are kept.
type Unit struct {
	Name string
	Info Info
	// Enabled is the unit's `enabled`; unset means enabled.
	Enabled Flag
	// EnabledConditions are ANDed with Enabled.
	EnabledConditions []Flag
	// DependsOn lists the units this unit waits for, sorted by unit name;
	// entries set to null were removed.
	DependsOn []Dependency
	OneShot   Flag
	// UnitTemplates are the templates applied, in the order applied.
	UnitTemplates []string
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
	Unit string
	// When is true, false, or a template deciding at render time.
	When Flag
}

// Enablement says whether a unit is enabled, as far as can be known
// without rendering the chart.
type Enablement string

// Enablements.
const (
	// EnabledYes: enabled is unset or true and no condition is false or a
	// template.
	EnabledYes Enablement = "enabled"
	// EnabledNo: enabled or one of enabled_conditions is literally false.
	EnabledNo Enablement = "disabled"
	// EnabledMaybe: decided at render time by a template.
	EnabledMaybe Enablement = "conditional"
)

// Enablement combines Enabled and EnabledConditions.
func (u Unit) Enablement() Enablement {
	flags := append([]Flag{u.Enabled}, u.EnabledConditions...)
	e := EnabledYes
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

// DependsOnUnit reports whether u waits for name: a literal true or a
// template (which may render true).
func (u Unit) DependsOnUnit(name string) (Flag, bool) {
	i, ok := slices.BinarySearchFunc(u.DependsOn, name, func(d Dependency, n string) int { return strings.Compare(d.Unit, n) })
	if !ok {
		return Flag{}, false
	}
	d := u.DependsOn[i]
	return d.When, d.When.IsTrue() || d.When.IsTemplate()
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

// Merge merges values files in order, as Helm merges several -f files:
// maps merge recursively, later files win, lists are replaced, and null
// deletes a key. Nulls stay in the result as tombstones, so that a null in
// a unit also deletes what its defaults or templates set; Build treats them
// as absent. An empty file is an empty map.
func Merge(files ...File) (map[string]any, error) {
	out := map[string]any{}
	for _, f := range files {
		var doc any
		if err := yaml.Unmarshal(f.Data, &doc); err != nil {
			return nil, fmt.Errorf("values file %s is not valid YAML: %w", f.Name, cleanYAMLError(err))
		}
		switch m := doc.(type) {
		case nil:
		case map[string]any:
			mergeInto(out, m, true)
		default:
			return nil, fmt.Errorf("values file %s holds %s, not a map of values; pass a sylva-units values file", f.Name, describe(doc))
		}
	}
	return out, nil
}

// Parse merges the files (see Merge) and builds every unit. Errors name the
// file or the unit and field at fault.
func Parse(files ...File) (*Values, error) {
	merged, err := Merge(files...)
	if err != nil {
		return nil, err
	}
	return Build(merged)
}

// Build builds the units of an already merged values tree. The tree is not
// modified.
func Build(merged map[string]any) (*Values, error) {
	v := &Values{index: map[string]int{}}
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
	for _, name := range slices.Sorted(maps.Keys(unitMap)) {
		if err := ValidName(name); err != nil {
			return nil, fmt.Errorf("units: %w", err)
		}
		if unitMap[name] == nil {
			continue // deleted by a null
		}
		own, ok := unitMap[name].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("units.%s is %s, want a map", name, describe(unitMap[name]))
		}
		u, err := buildUnit(name, own, defaults, templates)
		if err != nil {
			return nil, fmt.Errorf("units.%s: %w", name, err)
		}
		v.index[name] = len(v.Units)
		v.Units = append(v.Units, u)
	}
	return v, nil
}

// Resolve returns the definition of unit own after Sylva's order:
// unit_definition_defaults, then each of own's unit_templates in order, then
// own's fields, deep-merged (see Merge for the rules).
func Resolve(own, defaults, templates map[string]any) (map[string]any, []string, error) {
	def := deepCopy(defaults, false).(map[string]any)
	names, err := stringList(own["unit_templates"])
	if err != nil {
		return nil, nil, fmt.Errorf("unit_templates: %w", err)
	}
	for _, t := range names {
		tm, ok := templates[t].(map[string]any)
		if !ok {
			return nil, nil, fmt.Errorf("unit_templates: template %q is not defined under unit_templates", t)
		}
		mergeInto(def, tm, false)
	}
	mergeInto(def, own, false)
	return def, names, nil
}

func buildUnit(name string, own, defaults, templates map[string]any) (Unit, error) {
	def, tmpls, err := Resolve(own, defaults, templates)
	if err != nil {
		return Unit{}, err
	}
	u := Unit{Name: name, UnitTemplates: tmpls}
	if u.Enabled, err = flagField(def, "enabled"); err != nil {
		return Unit{}, err
	}
	if u.OneShot, err = flagField(def, "one_shot"); err != nil {
		return Unit{}, err
	}
	switch c := def["enabled_conditions"].(type) {
	case nil:
	case []any:
		for i, e := range c {
			f, err := toFlag(e)
			if err != nil {
				return Unit{}, fmt.Errorf("enabled_conditions[%d]: %w", i, err)
			}
			u.EnabledConditions = append(u.EnabledConditions, f)
		}
	default:
		return Unit{}, fmt.Errorf("enabled_conditions is %s, want a list", describe(c))
	}
	deps, err := mapField(def, "depends_on")
	if err != nil {
		return Unit{}, err
	}
	for _, d := range slices.Sorted(maps.Keys(deps)) {
		f, err := toFlag(deps[d])
		if err != nil {
			return Unit{}, fmt.Errorf("depends_on.%s: %w", d, err)
		}
		if !f.Set {
			continue
		}
		u.DependsOn = append(u.DependsOn, Dependency{Unit: d, When: f})
	}
	info, err := mapField(def, "info")
	if err != nil {
		return Unit{}, err
	}
	if u.Info, err = buildInfo(info); err != nil {
		return Unit{}, fmt.Errorf("info.%w", err)
	}
	return u, nil
}

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
