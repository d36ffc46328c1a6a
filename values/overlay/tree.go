package overlay

import (
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strings"

	"gitlab.com/sylva-projects/sylva-planner/envelope"
)

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// isTemplate reports whether the chart would pass s through tpl.
func isTemplate(s string) bool { return strings.Contains(s, "{{") }

// plainKey is a values key written as it is in a values path and in YAML.
var plainKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

func clone(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// writeValuesJSON writes values as indented JSON (keys sorted).
func writeValuesJSON(w io.Writer, vals map[string]any) error {
	if err := envelope.WriteJSON(w, vals); err != nil {
		return fmt.Errorf("write values: %w", err)
	}
	return nil
}
