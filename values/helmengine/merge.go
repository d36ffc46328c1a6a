package helmengine

import (
	"fmt"
	"maps"
	"slices"

	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/yamldoc"
)

// File is a values file, as `helm -f` takes one: its name and contents.
type File struct {
	Name string
	Data []byte
}

// Parse decodes one values document the way Helm reads a values file
// (sigs.k8s.io/yaml: YAML to JSON, numbers as float64). An empty document is
// an empty map.
func Parse(data []byte) (map[string]any, error) {
	if err := yamldoc.DuplicateKey(data); err != nil {
		return nil, fmt.Errorf("parse values: %w", err)
	}
	var doc any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("parse values: %w", err)
	}
	m, ok := doc.(map[string]any)
	if doc != nil && !ok {
		// A list or a scalar: Helm's values are a map of keys.
		return nil, fmt.Errorf("parse values: the file is a YAML %s, not a map of values keys; give a values file such as charts/sylva-units/values.yaml", yamlKind(doc))
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// yamlKind names the kind of a decoded YAML document that is not a map.
func yamlKind(v any) string {
	switch v.(type) {
	case []any:
		return "list"
	case string:
		return "string"
	}
	return "scalar"
}
