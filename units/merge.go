package units

// mergeInto merges src into dst the way Helm merges several values files
// (helm install -f a.yaml -f b.yaml) and the way sylva-units builds a unit
// from its defaults and templates: maps merge recursively, any other value
// (scalars and lists) from src replaces the one in dst, and a null in src
// deletes the key. dst is modified; src is copied, never aliased.
func mergeInto(dst, src map[string]any) {
	for k, sv := range src {
		if sv == nil {
			delete(dst, k)
			continue
		}
		sm, sIsMap := sv.(map[string]any)
		if dm, dIsMap := dst[k].(map[string]any); dIsMap && sIsMap {
			mergeInto(dm, sm)
			continue
		}
		dst[k] = deepCopy(sv)
	}
}

// deepCopy copies maps and lists so that merged results never share
// mutable state with their sources. Nulls inside a copied map are dropped,
// as a merge onto nothing would drop them.
func deepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			if e == nil {
				continue
			}
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		l := make([]any, len(t))
		for i, e := range t {
			l[i] = deepCopy(e)
		}
		return l
	}
	return v
}
