package values

import (
	"fmt"
	"maps"
	"slices"

	"sigs.k8s.io/yaml"
)

// Parse decodes one values document the way Helm reads a values file
// (sigs.k8s.io/yaml: YAML to JSON, numbers as float64). An empty document is
// an empty map.
func Parse(data []byte) (map[string]any, error) {
	var m map[string]any
	if err := yaml.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("parse values: %w", err)
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

// Merge merges values documents in order, the way `helm -f a.yaml -f b.yaml`
// does: a map in a later document is merged key by key into a map at the
// same path, anything else (scalars, lists, null) replaces. The inputs are
// not modified; maps shared with the inputs are never written to.
func Merge(docs ...map[string]any) map[string]any {
	out := map[string]any{}
	for _, d := range docs {
		out = mergeMaps(out, d)
	}
	return out
}

// mergeMaps is Helm's pkg/cli/values mergeMaps.
func mergeMaps(a, b map[string]any) map[string]any {
	out := make(map[string]any, len(a))
	maps.Copy(out, a)
	for k, v := range b {
		if vm, ok := v.(map[string]any); ok {
			if bv, ok := out[k]; ok {
				if bm, ok := bv.(map[string]any); ok {
					out[k] = mergeMaps(bm, vm)
					continue
				}
			}
		}
		out[k] = v
	}
	return out
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
