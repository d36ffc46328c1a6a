package units

// coalesce merges the values file src over the values merged so far (base)
// the way Helm merges values: its chartutil.CoalesceTables(src, base), where
// src, the later file, is authoritative.
//
//   - A key only in base is kept; a key only in src is added.
//   - Two maps merge key by key, recursively.
//   - Otherwise the later value wins, whatever the types: a scalar or a list
//     replaces a map and a map replaces a scalar (Helm warns, then keeps the
//     later value).
//   - A null deletes the key when base holds a value for it; otherwise the
//     null stays in the result (Build reads it as absent; it still
//     overrides a unit template's value, as the chart's merge-append
//     does). Nulls of base are kept too.
//
// Neither input is modified and the result shares no map or list with them.
// A test checks it against Helm's CoalesceTables.
func coalesce(src, base map[string]any) map[string]any {
	out := make(map[string]any, len(base)+len(src))
	for k, bv := range base {
		if _, inSrc := src[k]; !inSrc {
			out[k] = deepCopy(bv)
		}
	}
	for k, sv := range src {
		if sv == nil {
			if bv, inBase := base[k]; !inBase || bv == nil {
				out[k] = nil
			}
			continue
		}
		bv, inBase := base[k]
		sm, sIsMap := sv.(map[string]any)
		bm, bIsMap := bv.(map[string]any)
		if inBase && sIsMap && bIsMap {
			out[k] = coalesce(sm, bm)
			continue
		}
		out[k] = deepCopy(sv)
	}
	return out
}

// mergeAppend merges src into dst the way sylva-units builds a unit
// (its "merge-append" helper, applied to unit_definition_defaults, the
// unit's templates in order, then the unit's own fields): two maps merge
// recursively, two lists are concatenated, and any other value of src,
// null included, replaces dst's. dst is modified; src is copied, never
// aliased.
func mergeAppend(dst, src map[string]any) {
	for k, sv := range src {
		dv, ok := dst[k]
		if !ok {
			dst[k] = deepCopy(sv)
			continue
		}
		switch s := sv.(type) {
		case map[string]any:
			if d, ok := dv.(map[string]any); ok {
				mergeAppend(d, s)
				continue
			}
		case []any:
			if d, ok := dv.([]any); ok {
				l := make([]any, 0, len(d)+len(s))
				dst[k] = append(append(l, d...), deepCopy(s).([]any)...)
				continue
			}
		}
		dst[k] = deepCopy(sv)
	}
}

// deepCopy copies maps and lists so that merged results never share
// mutable state with their sources.
func deepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
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
