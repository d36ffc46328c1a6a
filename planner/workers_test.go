package planner_test

import (
	"slices"
	"strings"
	"testing"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/internal/catalogtest"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
)

// withHoldWorkers returns the embedded catalog with release rel's chart
// able, or not, to hold the MachineDeployments back.
func withHoldWorkers(t *testing.T, rel string, hold bool) *catalog.Catalog {
	t.Helper()
	// A copy: the embedded catalog is shared by every test.
	c := *catalogtest.Default(t)
	c.Releases = slices.Clone(c.Releases)
	cat := &c
	for i := range cat.Releases {
		if cat.Releases[i].Release.Short() == rel {
			cat.Releases[i].Capabilities = &catalog.Capabilities{HoldWorkers: &catalog.Capability{Value: hold, Source: "test"}}
			return cat
		}
	}
	t.Fatalf("release %s not in the catalog", rel)
	return nil
}

type workerPass struct {
	rolls, paused bool
	to            string
	// value is machine_deployments_paused as the pass sets it: "" when
	// it sets none.
	value string
}

func workerPasses(p *planner.Plan) []workerPass {
	var out []workerPass
	for _, ps := range p.Passes {
		w := workerPass{rolls: ps.Workers.Rolls, paused: ps.Workers.Paused, to: ps.Workers.To}
		if v := ps.Values.MachineDeploymentsPaused; v != nil {
			w.value = map[bool]string{true: "true", false: "false"}[*v]
		}
		out = append(out, w)
	}
	return out
}

// TestWorkersFollowTheChartsCapability: the workers roll on every pass
// that changes the Kubernetes version unless the catalog says the chart
// can hold them, and only a chart that can is given
// machine_deployments_paused.
func TestWorkersFollowTheChartsCapability(t *testing.T) {
	tests := []struct {
		name string
		// hold is the 1.6 chart's hold_workers in the catalog: "" as
		// embedded, else "true" or "false".
		hold     string
		from, to string
		workers  string
		want     []workerPass
		rollouts int
		warned   bool
	}{
		{
			"a chart not known to hold them rolls the workers on both passes of 1.4 → 1.6",
			"", "1.4", "1.6", "",
			[]workerPass{{rolls: true, to: "1.32"}, {rolls: true, to: "1.33"}},
			2, true,
		},
		{
			"a chart known not to hold them rolls the workers on both passes",
			"false", "1.4", "1.6", "",
			[]workerPass{{rolls: true, to: "1.32"}, {rolls: true, to: "1.33"}},
			2, true,
		},
		{
			"a chart that holds them pauses the workers in pass 1 and rolls them once",
			"true", "1.4", "1.6", "",
			[]workerPass{{paused: true, to: "1.31", value: "true"}, {rolls: true, to: "1.33", value: "false"}},
			1, false,
		},
		{
			"a chart that holds them still rolls workers early that would lag too far",
			"true", "1.4", "1.6", "1.29",
			[]workerPass{{rolls: true, to: "1.32", value: "false"}, {rolls: true, to: "1.33", value: "false"}},
			2, true,
		},
		{
			"the three passes of 1.5 → 1.7 each change the Kubernetes version and roll the workers",
			"", "1.5", "1.7", "",
			[]workerPass{{rolls: true, to: "1.33"}, {rolls: true, to: "1.34"}, {rolls: true, to: "1.35"}},
			3, true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cat := catalogtest.Default(t)
			if tt.hold != "" {
				cat = withHoldWorkers(t, "1.6", tt.hold == "true")
			}
			in := planner.Input{Catalog: cat, From: semver.MustParse(tt.from), To: semver.MustParse(tt.to), AsOf: asOf}
			if tt.workers != "" {
				in.Workers = semver.MustParse(tt.workers)
			}
			p, err := planner.Compute(in)
			if err != nil {
				t.Fatal(err)
			}
			if got := workerPasses(p); !slices.Equal(got, tt.want) {
				t.Errorf("Compute(%s → %s) workers = %+v, want %+v", tt.from, tt.to, got, tt.want)
			}
			if p.Summary.WorkerRollouts != tt.rollouts {
				t.Errorf("Compute(%s → %s) worker rollouts = %d, want %d", tt.from, tt.to, p.Summary.WorkerRollouts, tt.rollouts)
			}
			warned := slices.ContainsFunc(p.Findings, func(f planner.Finding) bool { return f.Code == planner.CodeWorkerExtraRollout })
			if warned != tt.warned {
				t.Errorf("Compute(%s → %s) worker-extra-rollout = %v, want %v", tt.from, tt.to, warned, tt.warned)
			}
			var b strings.Builder
			if err := p.WriteTable(&b); err != nil {
				t.Fatal(err)
			}
			if holds := tt.want[0].value != ""; strings.Contains(b.String(), "machine_deployments_paused") != holds {
				t.Errorf("table mentions machine_deployments_paused = %v, want %v (only for a chart that reads it)", !holds, holds)
			}
		})
	}
}
