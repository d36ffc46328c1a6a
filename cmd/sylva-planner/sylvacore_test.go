package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"gitlab.com/sylva-projects/sylva-planner/internal/sylvacore"
)

// TestSylvaCoreScripts runs the txtar scripts of testdata/sylvacore with
// $SYLVA_CORE set to a clone of the sylva-core bundle (all its refs) and
// $CATALOG_DATA to the embedded catalog's source files. It skips when the
// bundle is absent.
func TestSylvaCoreScripts(t *testing.T) {
	if os.Getenv(sylvacore.EnvDir) != "" {
		t.Skip("these scripts read the bundle's refs; SYLVA_CORE_DIR names a single checkout")
	}
	repo := sylvacore.Repo(t)
	data, err := filepath.Abs(filepath.Join("..", "..", "catalog", "data"))
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/sylvacore",
		UpdateScripts: *updateScripts,
		Setup: func(e *testscript.Env) error {
			e.Setenv("SYLVA_CORE", repo)
			e.Setenv("CATALOG_DATA", data)
			return nil
		},
		Cmds: scriptCmds(),
	})
}
