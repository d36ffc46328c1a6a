package units

import (
	"errors"
	"fmt"
)

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
	// FalseHere is set on a template When the chart found false with the
	// values it resolved: the key still names the unit.
	FalseHere bool
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
