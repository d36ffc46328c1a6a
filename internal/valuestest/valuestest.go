// Package valuestest holds the test helpers the values packages share
// (values/overlay, values/helmengine, values/check).
package valuestest

import (
	"os"
	"path/filepath"
	"testing"
)

// valuesFile is the values file type of a values package: its name and
// contents.
type valuesFile interface {
	~struct {
		Name string
		Data []byte
	}
}

// LonghornEnabled is a values file that deploys the longhorn and
// longhorn-crd units, which sylva-core main's management values enable
// only with the capm3 provider.
func LonghornEnabled[F valuesFile]() F {
	return F{Name: "longhorn.yaml", Data: []byte("units:\n  longhorn:\n    enabled: true\n    enabled_conditions: []\n")}
}

// ReadFiles reads the values files names under dir (a chart's
// directory: "values.yaml", "management.values.yaml") as F, the values
// file type of the package under test, in the order given.
func ReadFiles[F valuesFile](tb testing.TB, dir string, names ...string) []F {
	tb.Helper()
	out := make([]F, 0, len(names))
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, F{Name: n, Data: data})
	}
	return out
}

// ReadFile is os.ReadFile, failing tb when the file does not read.
func ReadFile(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
