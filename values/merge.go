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

// Merge merges values documents in order the way Helm combines a chart's
// values.yaml (the first document) with `helm -f b.yaml -f c.yaml` (the
// others): the later documents are merged together first (a map merged key
// by key into a map at the same path, anything else replacing, nulls kept),
// then coalesced with the first, where a null deletes the key the first
// document sets, as Helm's chartutil.CoalesceValues does. A null for a key
// the first document does not set stays null, as in Helm. The inputs are
// not modified; maps shared with the inputs are never written to.
func Merge(docs ...map[string]any) map[string]any {
	if len(docs) == 0 {
		return map[string]any{}
	}
	user := map[string]any{}
	for _, d := range docs[1:] {
		user = mergeMaps(user, d)
	}
	return coalesce(user, docs[0], true)
}

// coalesce returns user coalesced with defaults, with the rules of Helm's
// chartutil coalesceValues (top level: a null deletes the key when the
// defaults have it) and coalesceTablesFullKey (below: a null deletes the
// key when the default is not null). Neither input is modified.
func coalesce(user, defaults map[string]any, top bool) map[string]any {
	out := make(map[string]any, len(user)+len(defaults))
	maps.Copy(out, user)
	for k, dv := range defaults {
		uv, ok := user[k]
		switch {
		case !ok:
			out[k] = dv
		case uv == nil:
			if top || dv != nil {
				delete(out, k)
			}
		default:
			um, uok := uv.(map[string]any)
			dm, dok := dv.(map[string]any)
			if uok && dok {
				out[k] = coalesce(um, dm, false)
			}
		}
	}
	return out
}

// mergeMaps is Helm's pkg/cli/values mergeMaps: how `helm -f` merges the
// files before coalescing them with the chart's defaults (nulls kept).
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
