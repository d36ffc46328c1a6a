package main

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestPruneAuditScripts runs the txtar scripts of testdata/pruneaudit with
// $FIXTURES set to the repository's shared testdata/ directory. Rewrite
// their expected output with -run TestPruneAuditScripts -update.
func TestPruneAuditScripts(t *testing.T) {
	fixtures, err := filepath.Abs(filepath.Join("..", "..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/pruneaudit",
		UpdateScripts: *updateScripts,
		Setup: func(e *testscript.Env) error {
			e.Setenv("FIXTURES", fixtures)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"sylva-planner": func(ts *testscript.TestScript, neg bool, args []string) {
				code := runIn(context.Background(), ts.Getenv("WORK"), append([]string{"sylva-planner"}, args...), ts.Stdout(), ts.Stderr(), ts.Getenv)
				ts.Setenv("LAST_EXIT", strconv.Itoa(code))
				if (code != 0) != neg {
					ts.Fatalf("sylva-planner exited %d", code)
				}
			},
			"exitcode": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 1 || neg {
					ts.Fatalf("usage: exitcode N")
				}
				if got := ts.Getenv("LAST_EXIT"); got != args[0] {
					ts.Fatalf("exit code %s, want %s", got, args[0])
				}
			},
		},
	})
}
