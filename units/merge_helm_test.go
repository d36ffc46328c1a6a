package units_test

import (
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"
	helmvalues "helm.sh/helm/v3/pkg/cli/values"
	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/units"
)

// helmMerge is what Helm itself gives for a chart whose values.yaml is
// docs[0] under `helm -f` docs[1:]: pkg/cli/values merges the files, then
// chartutil.CoalesceValues coalesces them with the chart's values.
func helmMerge(t testing.TB, docs ...string) map[string]any {
	t.Helper()
	log.SetOutput(io.Discard) // Helm logs type conflicts
	dir := t.TempDir()
	var files []string
	for i, d := range docs[1:] {
		f := filepath.Join(dir, fmt.Sprintf("f%d.yaml", i+1))
		if err := os.WriteFile(f, []byte(d), 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	user, err := (&helmvalues.Options{ValueFiles: files}).MergeValues(nil)
	if err != nil {
		t.Fatalf("helm -f %q: %v", docs[1:], err)
	}
	var defaults map[string]any
	if err := yaml.Unmarshal([]byte(docs[0]), &defaults); err != nil {
		t.Fatalf("test document %q: %v", docs[0], err)
	}
	ch := &chart.Chart{Metadata: &chart.Metadata{APIVersion: chart.APIVersionV2, Name: "c", Version: "0.1.0"}, Values: defaults}
	out, err := chartutil.CoalesceValues(ch, user)
	if err != nil {
		t.Fatal(err)
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

func TestMergeIsHelm(t *testing.T) {
	tests := []struct {
		name string
		docs []string
		want string
	}{
		{"later scalars win and maps merge", []string{"a: 1\nm: {x: 1, y: 2}", "a: 2\nm: {y: 3, z: 4}"}, "a: 2\nm: {x: 1, y: 3, z: 4}"},
		{"a later list replaces an earlier one", []string{"l: [1, 2]", "l: [3]"}, "l: [3]"},
		{"a null deletes a key the chart's values have", []string{"units: {a: {enabled: true}, b: {x: 1}}", "units: {a: null, b: {x: null}}"}, "units: {b: {}}"},
		{"a null with no default stays", []string{"units: {a: {}}", "units: {b: null, a: {c: null}}"}, "units: {a: {c: null}, b: null}"},
		{"a null in the last file deletes what an earlier file and the defaults set", []string{"a: 1", "a: 2", "a: null"}, "{}"},
		{"a later file sets again what a null deleted", []string{"a: 1", "a: null", "a: 3"}, "a: 3"},
		{"a null then a map merge with the defaults' map", []string{"m: {z: 2}", "m: null", "m: {y: 1}"}, "m: {y: 1, z: 2}"},
		{"nulls of the first file stay", []string{"a: null\nm: {b: null}"}, "a: null\nm: {b: null}"},
		{"a later scalar replaces an earlier map", []string{"m: {a: 1}", "m: 3"}, "m: 3"},
		{"a later map replaces an earlier scalar", []string{"m: 3", "m: {a: 1}"}, "m: {a: 1}"},
		{"a default null stays beside a later map's keys", []string{"m: {a: null}", "m: {b: 1}"}, "m: {a: null, b: 1}"},
		{"three files", []string{"m: {a: 1, b: 2}", "m: {a: null}", "m: {a: 5, c: {d: null}}"}, "m: {a: 5, b: 2, c: {d: null}}"},
		{"empty files", []string{"", "a: 1", ""}, "a: 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := unitsMerge(t, tt.docs...)
			var want map[string]any
			if err := yaml.Unmarshal([]byte(tt.want), &want); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Merge(%q) (-want +got):\n%s", tt.docs, diff)
			}
			if diff := cmp.Diff(helmMerge(t, tt.docs...), got); diff != "" {
				t.Errorf("Merge(%q) differs from Helm (-helm +units):\n%s", tt.docs, diff)
			}
		})
	}
}

// TestMergeIsHelmOnRandomTrees compares the two on random documents over a
// small key space, so that keys collide at every depth with every kind of
// value, and checks that no input is modified.
func TestMergeIsHelmOnRandomTrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 1000 {
		trees := make([]map[string]any, 1+rng.IntN(3))
		docs := make([]string, len(trees))
		for j := range docs {
			trees[j] = randomTree(rng, 3)
			b, err := yaml.Marshal(trees[j])
			if err != nil {
				t.Fatal(err)
			}
			docs[j] = string(b)
		}
		before, err := yaml.Marshal(trees)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(helmMerge(t, docs...), unitsMerge(t, docs...)); diff != "" {
			t.Fatalf("case %d: Merge differs from Helm (-helm +units):\n%s\ndocuments:\n%s", i, diff, strings.Join(docs, "---\n"))
		}
		units.MergeValues(trees...)
		if after, _ := yaml.Marshal(trees); string(after) != string(before) {
			t.Fatalf("case %d: MergeValues modified its inputs:\n%s\nnow:\n%s", i, before, after)
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

// FuzzMergeIsHelm checks any three YAML maps.
func FuzzMergeIsHelm(f *testing.F) {
	f.Add("units: {a: {x: 1}}", "units: {a: null, b: {c: null}}", "")
	f.Add("m: [1]", "m: {a: null}", "m: null")
	f.Add("a: 1\nm: {x: 1, y: [1]}", "m: {x: null}", "a: null")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		for _, d := range []string{a, b, c} {
			var m map[string]any
			if yaml.Unmarshal([]byte(d), &m) != nil {
				return
			}
		}
		got, err := units.Merge(units.File{Name: "a", Data: []byte(a)}, units.File{Name: "b", Data: []byte(b)}, units.File{Name: "c", Data: []byte(c)})
		if err != nil {
			return
		}
		if diff := cmp.Diff(helmMerge(t, a, b, c), got); diff != "" {
			t.Fatalf("Merge differs from Helm (-helm +units):\n%s", diff)
		}
	})
}
