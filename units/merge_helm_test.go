package units_test

import (
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"helm.sh/helm/v3/pkg/chartutil"
	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/units"
)

// helmMerge merges values documents as Helm does: each later document is
// coalesced over the result so far with chartutil.CoalesceTables, the later
// one authoritative.
func helmMerge(t testing.TB, docs ...string) map[string]any {
	t.Helper()
	log.SetOutput(io.Discard) // CoalesceTables logs type mismatches
	out := map[string]any{}
	for _, d := range docs {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(d), &m); err != nil {
			t.Fatalf("test document %q: %v", d, err)
		}
		if m == nil {
			m = map[string]any{}
		}
		out = chartutil.CoalesceTables(m, out)
	}
	return out
}

func unitsMerge(t testing.TB, docs ...string) map[string]any {
	t.Helper()
	files := make([]units.File, len(docs))
	for i, d := range docs {
		files[i] = units.File{Name: fmt.Sprintf("f%d.yaml", i+1), Data: []byte(d)}
	}
	m, err := units.Merge(files...)
	if err != nil {
		t.Fatalf("Merge() error = %v", err)
	}
	return m
}

func TestMergeIsHelmCoalesceTables(t *testing.T) {
	tests := []struct {
		name string
		docs []string
	}{
		{"later scalars win and maps merge", []string{"a: 1\nm: {x: 1, y: 2}", "a: 2\nm: {y: 3, z: 4}"}},
		{"a later list replaces an earlier one", []string{"l: [1, 2]", "l: [3]"}},
		{"a null deletes a key the earlier file has", []string{"units: {a: {enabled: true}, b: {}}", "units: {a: null, b: {x: null}}"}},
		{"a null with no earlier value stays", []string{"units: {a: {}}", "units: {b: null, a: {c: null}}"}},
		{"a null inside a map only the later file has stays", []string{"units: {a: {}}", "units: {n: {depends_on: {x: null}}}"}},
		{"nulls of the first file stay", []string{"a: null\nm: {b: null}"}},
		{"a later scalar replaces an earlier map", []string{"m: {a: 1}", "m: 3"}},
		{"a later map replaces an earlier scalar", []string{"m: 3", "m: {a: 1}"}},
		{"a later map keeps an earlier null's key deleted", []string{"m: {a: null}", "m: {b: 1}"}},
		{"three files", []string{"m: {a: 1, b: 2}", "m: {a: null}", "m: {a: 5, c: {d: null}}"}},
		{"empty files", []string{"", "a: 1", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := helmMerge(t, tt.docs...)
			if diff := cmp.Diff(want, unitsMerge(t, tt.docs...)); diff != "" {
				t.Errorf("Merge(%q) differs from Helm's CoalesceTables (-helm +units):\n%s", tt.docs, diff)
			}
		})
	}
}

// TestMergeIsHelmCoalesceTablesOnRandomTrees compares the two on random
// documents over a small key space, so that keys collide at every depth
// with every kind of value.
func TestMergeIsHelmCoalesceTablesOnRandomTrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		docs := make([]string, 2+rng.IntN(2))
		for j := range docs {
			b, err := yaml.Marshal(randomTree(rng, 3))
			if err != nil {
				t.Fatal(err)
			}
			docs[j] = string(b)
		}
		want := helmMerge(t, docs...)
		if diff := cmp.Diff(want, unitsMerge(t, docs...)); diff != "" {
			t.Fatalf("case %d: Merge differs from Helm's CoalesceTables (-helm +units):\n%s\ndocuments:\n%s", i, diff, strings.Join(docs, "---\n"))
		}
	}
}

func randomTree(rng *rand.Rand, depth int) map[string]any {
	m := map[string]any{}
	for range rng.IntN(4) {
		m[string(rune('a'+rng.IntN(3)))] = randomValue(rng, depth-1)
	}
	return m
}

func randomValue(rng *rand.Rand, depth int) any {
	switch n := rng.IntN(6); {
	case n == 0:
		return nil
	case n == 1:
		return rng.IntN(2) == 0
	case n == 2:
		return []any{float64(rng.IntN(3))}
	case n == 3 || depth <= 0:
		return "s" + fmt.Sprint(rng.IntN(3))
	default:
		return randomTree(rng, depth)
	}
}

// FuzzMergeIsHelmCoalesceTables checks any two YAML maps.
func FuzzMergeIsHelmCoalesceTables(f *testing.F) {
	f.Add("units: {a: {x: 1}}", "units: {a: null, b: {c: null}}")
	f.Add("m: [1]", "m: {a: null}")
	f.Fuzz(func(t *testing.T, a, b string) {
		for _, d := range []string{a, b} {
			var m map[string]any
			if yaml.Unmarshal([]byte(d), &m) != nil {
				return
			}
		}
		files := []units.File{{Name: "a", Data: []byte(a)}, {Name: "b", Data: []byte(b)}}
		got, err := units.Merge(files...)
		if err != nil {
			return
		}
		if diff := cmp.Diff(helmMerge(t, a, b), got); diff != "" {
			t.Fatalf("Merge differs from Helm's CoalesceTables (-helm +units):\n%s", diff)
		}
	})
}
