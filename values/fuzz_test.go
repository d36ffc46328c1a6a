package values

import (
	"reflect"
	"testing"
)

// FuzzMerge merges two values documents: no panic, merging with an empty
// document changes nothing, and the inputs are left untouched.
func FuzzMerge(f *testing.F) {
	f.Add([]byte("a: 1\nb: {c: 2}\n"), []byte("b: {d: 3}\ne: [1]\n"))
	f.Add([]byte("a: {b: {c: x}}"), []byte("a: null"))
	f.Add([]byte("k: '{{ .Values.x }}'"), []byte("k: {x: 1}"))
	f.Add([]byte(""), []byte("1.30: a"))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		da, err := Parse(a)
		if err != nil {
			return
		}
		db, err := Parse(b)
		if err != nil {
			return
		}
		ca, cb := deepCopy(da), deepCopy(db)
		m := Merge(da, db)
		if !reflect.DeepEqual(da, ca) || !reflect.DeepEqual(db, cb) {
			t.Fatal("Merge modified its inputs")
		}
		if got := Merge(m, map[string]any{}); !reflect.DeepEqual(got, m) {
			t.Fatal("merging an empty document changed the values")
		}
		for k, v := range db {
			if _, isMap := v.(map[string]any); !isMap && !reflect.DeepEqual(m[k], v) {
				t.Fatalf("key %q: the later document does not win", k)
			}
		}
	})
}
