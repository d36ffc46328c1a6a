package action_test

import (
	"context"
	"testing"
	"time"

	"gitlab.com/sylva-projects/sylva-planner/action"
	"gitlab.com/sylva-projects/sylva-planner/internal/catalogtest"
	"gitlab.com/sylva-projects/sylva-planner/planner"
)

// plan computes the plan once: the helper values' check (overlay-unavailable)
// reuses it and the per-source plans it needs, rather than computing each
// again. The only other plans are those of the target's other supported
// sources (the overlay covers them) and of an earlier multi-pass hop.
func TestPlanComputesEachPlanOnce(t *testing.T) {
	cat := catalogtest.Default(t)
	for _, tc := range []struct {
		from, to string
		want     int64
	}{
		// 1.4 → 1.6: the plan, and 1.5 → 1.6 (1.6's other source).
		{from: "1.4", to: "1.6", want: 2},
		// 1.5 → 1.6: the plan, and 1.4 → 1.6.
		{from: "1.5", to: "1.6", want: 2},
		// 1.2 → 1.7 (route 1.2 → 1.4 → 1.6 → 1.7): the plan; 1.5 → 1.7
		// and 1.6 → 1.7 (the sources of the last hop); the earlier hop
		// into 1.6, which takes two passes, whose overlay the chart of
		// 1.6 runs: 1.2 → 1.6 and its sources 1.4 → 1.6 and 1.5 → 1.6.
		// Six inputs, each planned once (eleven plans before).
		{from: "1.2", to: "1.7", want: 6},
	} {
		t.Run(tc.from+" to "+tc.to, func(t *testing.T) {
			before := planner.Computations()
			req := action.PlanRequest{Releases: action.Releases{Catalog: cat, From: tc.from, To: tc.to, ToolVersion: "test", AsOf: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)}}
			if _, err := req.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			if got := planner.Computations() - before; got != tc.want {
				t.Errorf("plan --from %s --to %s computed %d plans, want %d", tc.from, tc.to, got, tc.want)
			}
		})
	}
}
