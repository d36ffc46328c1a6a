package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"gitlab.com/sylva-projects/sylva-planner/internal/sylvacore"
	"gitlab.com/sylva-projects/sylva-planner/units"
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
		Cmds: scriptCmds(),
	})
}

// TestPruneAuditOnRealRefs runs the commands a release manager runs in a
// sylva-core checkout, on every ref of the bundle: the chart's values
// alone and with each cluster role's overlay, without --release (the refs
// name none) and with the ref's release. Every one audits: exit 0 with
// --fail-on never, unresolved gotpl listed, never an error.
func TestPruneAuditOnRealRefs(t *testing.T) {
	release := map[string]string{"1.0.0": "1.0", "1.2.1": "1.2", "1.3.10": "1.3", "release-1.3": "1.3", "main": "1.4"}
	for _, tree := range sylvacore.Trees(t) {
		for _, overlay := range []string{"", "management.values.yaml", "workload-cluster.values.yaml"} {
			args := []string{"sylva-planner", "prune-audit", "-f", "charts/sylva-units/values.yaml"}
			if overlay != "" {
				args = append(args, "-f", "charts/sylva-units/"+overlay)
			}
			for _, rel := range []string{"", release[tree.Ref]} {
				a := slices.Clone(args)
				if rel != "" {
					a = append(a, "--release", rel)
				}
				t.Run(strings.Join(append([]string{tree.Ref}, a[2:]...), " "), func(t *testing.T) {
					var stdout, stderr bytes.Buffer
					code := runIn(context.Background(), tree.Dir, append(a, "-o", "json", "--fail-on", "never"), &stdout, &stderr, func(string) string { return "" })
					if code != 0 || stderr.Len() > 0 {
						t.Fatalf("exit %d, stderr %q", code, stderr.String())
					}
					var r units.Report
					if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
						t.Fatal(err)
					}
					if r.Release != rel || len(r.Unresolved) == 0 || r.Resolution != units.ResolutionLiteral {
						t.Errorf("release %q, %d unresolved, resolution %s; want release %q and the literal reading's unresolved entries", r.Release, len(r.Unresolved), r.Resolution, rel)
					}
					for _, u := range r.Units {
						if u.State != units.StateUntracked {
							t.Errorf("%s is %s; the refs carry no transitional-unit metadata, so only untracked units are expected", u.Name, u.State)
						}
					}
				})
			}
		}
	}
}
