package values

import (
	"io"
	"log"
	"testing"

	"github.com/google/go-cmp/cmp"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"
)

// helmCoalesce is what Helm gives for a chart whose values.yaml is docs[0]
// and `-f` files docs[1:]: pkg/cli/values merges the files, then
// chartutil.CoalesceValues coalesces them with the chart's values.
func helmCoalesce(t testing.TB, docs ...map[string]any) map[string]any {
	t.Helper()
	log.SetOutput(io.Discard) // Helm logs type conflicts
	user := map[string]any{}
	for _, d := range docs[1:] {
		user = mergeMaps(user, deepCopy(d))
	}
	ch := &chart.Chart{Metadata: &chart.Metadata{APIVersion: chart.APIVersionV2, Name: "c", Version: "0.1.0"}, Values: deepCopy(docs[0])}
	out, err := chartutil.CoalesceValues(ch, user)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestMergeCoalescesAsHelm(t *testing.T) {
	tests := []struct {
		name string
		docs []string
		want string
	}{
		{"a null in a later file deletes a default key", []string{"a: 1\nb: 2", "a: null"}, "b: 2"},
		{"a null deep down deletes a default key", []string{"m: {x: 1, y: 2}", "m: {x: null}"}, "m: {y: 2}"},
		{"a null in the last file deletes what an earlier file and the defaults set", []string{"a: 1", "a: 2", "a: null"}, "{}"},
		{"a later file sets again what a null deleted", []string{"a: 1", "a: null", "a: 3"}, "a: 3"},
		{"a null for a key the defaults lack stays null", []string{"a: 1", "b: 2", "b: null"}, "a: 1\nb: null"},
		{"maps merge key by key and lists replace", []string{"m: {l: [1, 2], k: v}", "m: {l: [3]}"}, "m: {l: [3], k: v}"},
		{"a scalar over a default map replaces it", []string{"m: {k: v}", "m: s"}, "m: s"},
		{"a map over a default scalar replaces it", []string{"m: s", "m: {k: v}"}, "m: {k: v}"},
		{"a null deep down with a null default stays", []string{"m: {x: null}", "m: {x: null}"}, "m: {x: null}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			docs := make([]map[string]any, len(tt.docs))
			for i, d := range tt.docs {
				docs[i] = mustParse(t, d)
			}
			before := deepCopy(map[string]any{"docs": toAny(docs)})
			got := Merge(docs...)
			if diff := cmp.Diff(mustParse(t, tt.want), got); diff != "" {
				t.Errorf("Merge (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(helmCoalesce(t, docs...), got); diff != "" {
				t.Errorf("Merge differs from Helm's coalescing (-helm +ours):\n%s", diff)
			}
			if diff := cmp.Diff(before, map[string]any{"docs": toAny(docs)}); diff != "" {
				t.Errorf("Merge changed its inputs:\n%s", diff)
			}
		})
	}
}

func toAny(docs []map[string]any) []any {
	out := make([]any, len(docs))
	for i, d := range docs {
		out[i] = d
	}
	return out
}

func FuzzMergeAgreesWithHelm(f *testing.F) {
	f.Add("a: 1\nm: {x: 1, y: [1]}", "m: {x: null}", "a: null")
	f.Add("m: {k: v}", "m: s", "n: null")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		var docs []map[string]any
		for _, s := range []string{a, b, c} {
			d, err := Parse([]byte(s))
			if err != nil {
				return
			}
			docs = append(docs, d)
		}
		if diff := cmp.Diff(helmCoalesce(t, docs...), Merge(docs...)); diff != "" {
			t.Errorf("Merge differs from Helm's coalescing (-helm +ours):\n%s", diff)
		}
	})
}
