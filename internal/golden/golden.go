// Package golden compares test output with files under a package's
// testdata/ directory and rewrites them when tests run with -update.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Update is set by the -update test flag: golden files are rewritten instead
// of compared.
var Update = flag.Bool("update", false, "rewrite golden files under testdata/")

// Assert compares got with testdata/<name>, or writes it there under -update.
func Assert(tb testing.TB, got []byte, name string) {
	tb.Helper()
	path := filepath.Join("testdata", filepath.FromSlash(name))
	if *Update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			tb.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("read golden file: %v (run `make golden` to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		tb.Errorf("%s mismatch (-want +got):\n%s\nrun `make golden` and review the diff if the change is intended", path, diff)
	}
}
