package units

// What the tests read of the units and build them with; the commands
// build them with Merge and BuildWith (prune-audit).

// Parse merges the files (see Merge) and builds every unit, reading the
// values literally (see Build). Errors name the file or the unit and field
// at fault.
func Parse(files ...File) (*Values, error) {
	merged, err := Merge(files...)
	if err != nil {
		return nil, err
	}
	return Build(merged)
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

// Unit returns the unit called name.
func (v *Values) Unit(name string) (Unit, bool) {
	for _, u := range v.Units {
		if u.Name == name {
			return u, true
		}
	}
	return Unit{}, false
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
