package helmengine

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"gitlab.com/sylva-projects/sylva-planner/units"
)

// Templates that write into .Values with sprig's set must not shift the
// results onto other keys, nor make the render panic.
func TestRenderWithTemplatesThatSetValues(t *testing.T) {
	tests := []struct {
		name   string
		values string
		want   map[string]any
	}{
		{
			name:   "a template replacing another gotpl value keeps every result on its own key",
			values: "a: '{{ $_ := set .Values \"b\" \"plain\" }}A'\nb: '{{ \"B\" }}'\nc: '{{ \"C\" }}'\n",
			want:   map[string]any{"a": "A", "b": "B", "c": "C"},
		},
		{
			name:   "a template adding a gotpl key does not panic and adds nothing",
			values: "a: '{{ $_ := set .Values \"aa\" \"{{ 1 }}\" }}A'\nb: '{{ \"B\" }}'\n",
			want:   map[string]any{"a": "A", "b": "B"},
		},
		{
			name:   "a template deleting a key keeps the result of that key",
			values: "a: '{{ $_ := unset .Values \"b\" }}A'\nb: '{{ \"B\" }}'\nc: x\n",
			want:   map[string]any{"a": "A", "b": "B", "c": "x"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vals := mustParse(t, tt.values)
			before := units.DeepCopy(vals)
			res, err := Render(context.Background(), vals, RenderOptions{})
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			if diff := cmp.Diff(tt.want, res.Values); diff != "" {
				t.Errorf("Render values (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, vals); diff != "" {
				t.Errorf("Render changed its input (-before +after):\n%s", diff)
			}
		})
	}
}

// The same holds when the strings are split over several engine runs.
func TestRenderWithTemplatesThatSetValuesInParallelChunks(t *testing.T) {
	var b strings.Builder
	b.WriteString("a: '{{ $_ := set .Values \"k0000\" \"plain\" }}{{ $_ := set .Values \"new\" \"{{ 1 }}\" }}A'\n")
	for i := range 4 * parallelMin {
		b.WriteString("k" + pad4(i) + ": '{{ \"" + pad4(i) + "\" }}'\n")
	}
	res, err := Render(context.Background(), mustParse(t, b.String()), RenderOptions{})
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	for i := range 4 * parallelMin {
		if got := res.Values["k"+pad4(i)]; got != pad4(i) {
			t.Fatalf("Render k%s = %v, want %s", pad4(i), got, pad4(i))
		}
	}
	if _, ok := res.Values["new"]; ok {
		t.Errorf("Render kept the key a template added")
	}
}

func pad4(i int) string {
	s := "000" + strconv.Itoa(i)
	return s[len(s)-4:]
}
