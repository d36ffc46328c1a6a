// Package catalogtest gives tests the catalog the binary embeds.
package catalogtest

import (
	"testing"

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
