package units

// mergeInto merges src into dst the way Helm merges several values files
// (helm install -f a.yaml -f b.yaml) and the way sylva-units builds a unit
// from its defaults and templates: maps merge recursively and any other
// value (scalars and lists) from src replaces the one in dst.
//
// A null in src deletes the key. When keepNull is set (merging files), the
// null is kept in dst as a tombstone, so that it still deletes what
// unit_definition_defaults or a unit template would set; readers treat a
// null as absent. dst is modified; src is copied, never aliased.
func mergeInto(dst, src map[string]any, keepNull bool) {
	for k, sv := range src {
		if sv == nil {
			if keepNull {
				dst[k] = nil
			} else {
				delete(dst, k)
			}
			continue
		}
		sm, sIsMap := sv.(map[string]any)
		if dm, dIsMap := dst[k].(map[string]any); dIsMap && sIsMap {
			mergeInto(dm, sm, keepNull)
			continue
		}
		dst[k] = deepCopy(sv, keepNull)
	}
}

// deepCopy copies maps and lists so that merged results never share
// mutable state with their sources. Nulls inside a copied map are kept
// only when keepNull is set.
func deepCopy(v any, keepNull bool) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			if e == nil && !keepNull {
				continue
			}
			m[k] = deepCopy(e, keepNull)
		}
		return m
	case []any:
		l := make([]any, len(t))
		for i, e := range t {
			l[i] = deepCopy(e, keepNull)
		}
		return l
	}
	return v
}
