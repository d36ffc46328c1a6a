package reconciler_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/internal/catalogtest"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/units"
)

// TestRealChartWorkloadTransitionWithHelmController: on real Flux, a
// workload cluster of 1.2 on Kubernetes 1.29 goes to 1.4 (a test catalog
// in which 1.4 supports 1.2) with the overlay values generate gives for
// its plan (--cluster workload --kubernetes 1.29) over main's workload
// test values pinned to 1.29. The window of 1.4 (1.29–1.31) holds 1.29, so
// the plan keeps it and runs two passes for Longhorn alone: helm-controller
// must render Kubernetes 1.29 in the cluster unit on both (a management
// plan would render 1.30, then 1.31), and reconcile requests the second
// pass once.
func TestRealChartWorkloadTransitionWithHelmController(t *testing.T) {
	in := planner.Input{
		Catalog: catalogtest.With12To14(t), From: semver.MustParse("1.2"), To: semver.MustParse("1.4"), FromSource: "flag", ToolVersion: "test",
		Cluster: planner.ClusterWorkload, Kubernetes: semver.MustParse("1.29"),
	}
	rig := newChartRig(t, in, from12, workloadValues("1.29"))
	rig.wantMinors(t, "1.29 1.29")
	rig.waitPasses(t, 1)
	rig.driveToTheEnd(t, "1.29", "1.29")
}

// workloadValues are main's workload test values (those of
// test-values/upgrade-workload-cabpk, each read at the file its link
// names), then k8s_version_short pinned to minor, merged as helm -f
// merges them.
func workloadValues(minor string) func(t *testing.T, dir string) map[string]any {
	return func(t *testing.T, dir string) map[string]any {
		t.Helper()
		var layers []map[string]any
		for _, name := range []string{"workload-cluster.values.yaml", "test-values/upgrade/upgrade.yaml", "test-values/workload-cluster/shared-settings-mock.values.yaml"} {
			var m map[string]any
			if err := yaml.Unmarshal(mustRead(t, filepath.Join(dir, name)), &m); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			layers = append(layers, m)
		}
		var pin map[string]any
		if err := yaml.Unmarshal(fmt.Appendf(nil, "k8s_version_short: %q\n", minor), &pin); err != nil {
			t.Fatal(err)
		}
		return units.MergeValues(append(layers, pin)...)
	}
}
