// Package catalogtest gives tests the catalog the binary embeds, as it is
// or edited.
package catalogtest

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
)

// Default is catalog.Default, failing tb when it does not load.
func Default(tb testing.TB) *catalog.Catalog {
	tb.Helper()
	cat, err := catalog.Default()
	if err != nil {
		tb.Fatal(err)
	}
	return cat
}

// Edited is the embedded catalog with edits made to its releases.yaml:
// each edit's first string, which must occur once, replaced by its
// second.
func Edited(tb testing.TB, edits ...[2]string) *catalog.Catalog {
	tb.Helper()
	_, self, _, _ := runtime.Caller(0)
	data := filepath.Join(filepath.Dir(self), "..", "..", "catalog", "data")
	fsys := fstest.MapFS{}
	for _, name := range []string{"components.yaml", "releases.yaml"} {
		b, err := os.ReadFile(filepath.Join(data, name))
		if err != nil {
			tb.Fatal(err)
		}
		fsys[name] = &fstest.MapFile{Data: b}
	}
	rel := string(fsys["releases.yaml"].Data)
	for _, e := range edits {
		if strings.Count(rel, e[0]) != 1 {
			tb.Fatalf("releases.yaml holds %q %d times, want once", e[0], strings.Count(rel, e[0]))
		}
		rel = strings.Replace(rel, e[0], e[1], 1)
	}
	fsys["releases.yaml"].Data = []byte(rel)
	cat, err := catalog.Load(fsys)
	if err != nil {
		tb.Fatal(err)
	}
	return cat
}

// With12To14 is the embedded catalog in which 1.4 also supports upgrades
// from 1.2: main of the sylva-core bundle is the 1.4 line, so its chart
// then runs a two-pass transition (Kubernetes 1.29 → 1.30 → 1.31,
// Longhorn 1.6.3 → 1.7.3 → 1.8.1).
func With12To14(tb testing.TB) *catalog.Catalog {
	tb.Helper()
	return Edited(tb, [2]string{"  - release: \"1.4\"\n    upgrade_from: [\"1.3\"]\n", "  - release: \"1.4\"\n    upgrade_from: [\"1.2\", \"1.3\"]\n"})
}
