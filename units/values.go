package units

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
	// TemplateRefs are the gotpl strings of the values that name a unit,
	// sorted by path.
	TemplateRefs []TemplateRef

	// releaseProblem records a sylva_release that is present but not a
	// string (a YAML number loses its trailing zeros: 1.10 reads as 1.1).
	releaseProblem string
}
