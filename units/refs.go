package units

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// TemplateRef is a gotpl string of the values that names a unit: a quoted
// unit name in one of its actions (`tuple . "x" | include "unit-enabled"`,
// `index .Values.units "x"`) or a field path `.units.x`. sylva-units
// interprets every gotpl string of its values on every render, whatever
// unit holds it and whether that unit is enabled, and its helpers fail on
// a unit that is not there ("'unit-enabled' called to test if a
// non-existing unit is enabled"): the unit named cannot be deleted while
// the string stays.
type TemplateRef struct {
	// Unit is the unit named.
	Unit string
	// Holder is the unit whose definition holds the string (the path starts
	// units.HOLDER.), or "" for a string elsewhere in the values.
	Holder string
	// Path is where the string is: "units.loki.depends_on.minio-logging-cleanup",
	// "unit_templates.base-deps.depends_on.x", "_internal.y".
	Path string
}

var (
	// gotplAction is one {{ … }} of a gotpl string.
	gotplAction = regexp.MustCompile(`(?s)\{\{.*?\}\}`)
	// quoted is a double-quoted string of an action, or a field path
	// through .units.
	quoted = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"|\.units\.([A-Za-z0-9_-]+)`)
)

// templateRefs lists, sorted by path, the gotpl strings of merged that
// name one of the units (a unit's strings naming itself are left out).
func templateRefs(merged map[string]any, units map[string]bool) []TemplateRef {
	var out []TemplateRef
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(v)) {
				walk(join(path, k), v[k])
				// A depends_on key may be gotpl too.
				if isTemplate(k) {
					out = appendRefs(out, path+"["+k+"]", k, units)
				}
			}
		case []any:
			for i, e := range v {
				walk(fmt.Sprintf("%s[%d]", path, i), e)
			}
		case string:
			if isTemplate(v) {
				out = appendRefs(out, path, v, units)
			}
		}
	}
	walk("", merged)
	return out
}

// appendRefs adds a ref for every unit the gotpl string s at path names.
func appendRefs(out []TemplateRef, path, s string, units map[string]bool) []TemplateRef {
	holder := ""
	if rest, ok := strings.CutPrefix(path, "units."); ok {
		holder, _, _ = strings.Cut(rest, ".")
	}
	seen := map[string]bool{}
	for _, action := range gotplAction.FindAllString(s, -1) {
		for _, m := range quoted.FindAllStringSubmatch(action, -1) {
			name := m[1] + m[2]
			if !units[name] || name == holder || seen[name] {
				continue
			}
			seen[name] = true
			out = append(out, TemplateRef{Unit: name, Holder: holder, Path: path})
		}
	}
	return out
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
