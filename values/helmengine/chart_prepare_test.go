package helmengine

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"helm.sh/helm/v3/pkg/chartutil"
)

// copyTree gives a tree that is equal to its source, of the same types
// (chartutil.Values stays so, nil maps and slices stay nil) and shares no
// map or slice with it.
func TestCopyTreeKeepsTypesAndSharesNothing(t *testing.T) {
	type named map[string]int
	src := chartutil.Values{
		"Values": chartutil.Values{
			"m":      map[string]any{"a": []any{1, "x", map[string]any{"b": nil}}},
			"nilMap": map[string]any(nil),
			"nilSl":  []any(nil),
			"strs":   []string{"p", "q"},
			"named":  named{"n": 1},
			"sub":    map[string]any{"v": chartutil.Values{"w": 2.5}},
		},
		"Release": map[string]any{"IsUpgrade": true, "Revision": 2},
	}
	cp := copyTree(src).(chartutil.Values)
	if diff := cmp.Diff(src, cp); diff != "" {
		t.Fatalf("copy differs (-src +copy):\n%s", diff)
	}
	types := func(v chartutil.Values) string {
		vals := v["Values"].(chartutil.Values)
		return fmt.Sprintf("%T %T %v %v %T %T %T", v["Values"], vals["m"], vals["nilMap"] == nil, vals["nilSl"] == nil, vals["strs"], vals["named"], vals["sub"].(map[string]any)["v"])
	}
	if got, want := types(cp), types(src); got != want {
		t.Errorf("types: got %s, want %s", got, want)
	}
	if m := cp["Values"].(chartutil.Values)["nilMap"].(map[string]any); m != nil {
		t.Errorf("a nil map is copied as %#v", m)
	}
	// Changing the copy leaves the source as it was.
	vals := cp["Values"].(chartutil.Values)
	vals["m"].(map[string]any)["a"].([]any)[2].(map[string]any)["b"] = "changed"
	vals["strs"].([]string)[0] = "changed"
	vals["named"].(named)["n"] = 9
	vals["sub"].(map[string]any)["v"].(chartutil.Values)["w"] = 0
	cp["Release"].(map[string]any)["Revision"] = 3
	orig := src["Values"].(chartutil.Values)
	if orig["m"].(map[string]any)["a"].([]any)[2].(map[string]any)["b"] != nil || orig["strs"].([]string)[0] != "p" ||
		orig["named"].(named)["n"] != 1 || orig["sub"].(map[string]any)["v"].(chartutil.Values)["w"] != 2.5 ||
		src["Release"].(map[string]any)["Revision"] != 2 {
		t.Errorf("changing the copy changed the source: %v", src)
	}
}
