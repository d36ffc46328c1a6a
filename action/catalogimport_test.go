package action_test

import (
	"context"
	"testing"

	"gitlab.com/sylva-projects/sylva-planner/action"
	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/ci"
	"gitlab.com/sylva-projects/sylva-planner/internal/sylvacore"
)

// catalog import --ref main alone, on the bundle (main has no literal
// sylva_release; release-1.3 and the 1.x tags beside it), gives main the
// release ci-matrix gives it, counted from the checkout's releases.
func TestCatalogImportOfMainAloneCountsLikeCIMatrix(t *testing.T) {
	repo := sylvacore.Repo(t)
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	imp, err := action.CatalogImportRequest{Catalog: cat, SylvaCore: "sylva-core", SylvaCorePath: repo, Refs: []string{"main"}}.Run(ctx)
	if err != nil {
		t.Fatalf("catalog import --ref main: %v", err)
	}
	r, err := ci.ReadRepo(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	want, _, ok := r.MainRelease()
	if !ok {
		t.Fatal("ci-matrix finds no release for main in the bundle")
	}
	if len(imp.Refs) != 1 || imp.Refs[0].Release != want.String() || !imp.Refs[0].Development {
		t.Errorf("catalog import --ref main = %+v, want release %s (ci-matrix's), a development line", imp.Refs, want)
	}
}
