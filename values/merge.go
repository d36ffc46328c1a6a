package values

import (
	"fmt"
	"maps"
	"slices"

	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/yamldoc"
)

// Parse decodes one values document the way Helm reads a values file
// (sigs.k8s.io/yaml: YAML to JSON, numbers as float64). An empty document is
// an empty map.
func Parse(data []byte) (map[string]any, error) {
	if err := yamldoc.DuplicateKey(data); err != nil {
		return nil, fmt.Errorf("parse values: %w", err)
	}
	var m map[string]any
	if err := yaml.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("parse values: %w", err)
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
