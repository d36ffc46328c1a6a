package flux

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/skew"
)

func TestGateGaugesFollowTheNamespacesPlan(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	plan := func(from, to string) *planner.Plan {
		p, err := planner.Compute(planner.Input{Catalog: cat, From: skew.MustParse(from), To: skew.MustParse(to), AsOf: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	setGateGauges("ns-a", plan("1.4", "1.6"))
	l := prometheus.Labels{"namespace": "ns-a", "from": "1.4", "to": "1.6"}
	if got := testutil.ToFloat64(gateBlocked.With(l)); got != 0 {
		t.Errorf("blocked = %v, want 0", got)
	}
	if got := testutil.ToFloat64(gateVerdict.With(prometheus.Labels{"namespace": "ns-a", "from": "1.4", "to": "1.6", "verdict": "ready"})); got != 1 {
		t.Errorf("verdict{ready} = %v, want 1", got)
	}
	// The namespace moves on to 1.5: the 1.4 series go away.
	setGateGauges("ns-a", plan("1.5", "1.6"))
	if n := testutil.CollectAndCount(gateScore); n != 1 {
		t.Errorf("score series = %d, want 1 after the release changed", n)
	}
	setGateGauges("ns-a", nil)
	if n := testutil.CollectAndCount(gateVerdict); n != 0 {
		t.Errorf("verdict series = %d, want 0 once the plan is gone", n)
	}
}
