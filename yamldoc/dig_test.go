package yamldoc

import (
	"reflect"
	"testing"
)

func TestDig(t *testing.T) {
	doc := map[string]any{"spec": map[string]any{"chart": map[string]any{"version": "1.2.3", "none": nil}, "list": []any{map[string]any{"a": 1}}}}
	for _, tc := range []struct {
		keys []string
		want any
		ok   bool
	}{
		{[]string{"spec", "chart", "version"}, "1.2.3", true},
		{[]string{"spec", "chart", "none"}, nil, true},
		{[]string{"spec", "chart", "missing"}, nil, false},
		{[]string{"spec", "chart", "version", "deeper"}, nil, false},
		{[]string{"spec", "list", "a"}, nil, false},
		{nil, doc, true},
	} {
		got, ok := Dig(doc, tc.keys...)
		if ok != tc.ok || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Dig(%v) = %v, %v; want %v, %v", tc.keys, got, ok, tc.want, tc.ok)
		}
	}
	if got := DigMap(doc, "spec", "chart"); got["version"] != "1.2.3" {
		t.Errorf("DigMap(spec, chart) = %v", got)
	}
	if got := DigMap(doc, "spec", "chart", "version"); got != nil {
		t.Errorf("DigMap of a string = %v, want nil", got)
	}
}
