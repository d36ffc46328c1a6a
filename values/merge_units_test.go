package values_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/units"
	"gitlab.com/sylva-projects/sylva-planner/values"
)

// withoutNulls drops null entries, recursively: both readers take a null
// for an absent value.
func withoutNulls(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		switch t := v.(type) {
		case nil:
		case map[string]any:
			out[k] = withoutNulls(t)
		default:
			out[k] = v
		}
	}
	return out
}

func randomValues(rng *rand.Rand, depth int) map[string]any {
	m := map[string]any{}
	for range rng.IntN(4) {
		key := string(rune('a' + rng.IntN(3)))
		switch n := rng.IntN(5); {
		case n == 0:
			m[key] = nil
		case n == 1:
			m[key] = []any{float64(rng.IntN(3))}
		case n == 2 || depth <= 0:
			m[key] = "s" + fmt.Sprint(rng.IntN(3))
		default:
			m[key] = randomValues(rng, depth-1)
		}
	}
	return m
}

// The chart's values.yaml under one override file read the same in
// `values render --chart` (values.Merge, Helm's -f and coalesce) and in
// prune-audit (units.Merge, Helm's CoalesceTables): one null rule. (With
// two or more override files the two models part: a null then a map for
// the same key in later files, over a map of the chart's, is merged with the
// chart's map by Helm's -f, replaced by a chain of CoalesceTables.)
func TestValuesAndUnitsMergeAChartAndAnOverrideAlike(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 2000 {
		docs := []map[string]any{randomValues(rng, 3), randomValues(rng, 3)}
		files := make([]units.File, len(docs))
		for j, d := range docs {
			b, err := yaml.Marshal(d)
			if err != nil {
				t.Fatal(err)
			}
			files[j] = units.File{Name: fmt.Sprint(j), Data: b}
		}
		parsed := make([]map[string]any, len(files))
		for j, f := range files {
			var err error
			if parsed[j], err = values.Parse(f.Data); err != nil {
				t.Fatal(err)
			}
		}
		u, err := units.Merge(files...)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(withoutNulls(values.Merge(parsed...)), withoutNulls(u)); diff != "" {
			t.Fatalf("case %d: values.Merge and units.Merge read differently (-values +units):\n%s\nchart: %s\noverride: %s", i, diff, files[0].Data, files[1].Data)
		}
	}
}
