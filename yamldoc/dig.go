package yamldoc

// Dig is the value at the path keys of a decoded YAML document (maps of
// string keys, as sigs.k8s.io/yaml and encoding/json decode them), and
// whether every key of the path was there; it does not look into lists.
func Dig(m map[string]any, keys ...string) (any, bool) {
	var cur any = m
	for _, k := range keys {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = mm[k]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// DigMap is the map at the path keys of m, nil when the path does not end
// on one.
func DigMap(m map[string]any, keys ...string) map[string]any {
	v, _ := Dig(m, keys...)
	mm, _ := v.(map[string]any)
	return mm
}
