package gatemetrics

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
)

func TestGaugesFollowTheNamespacesPlan(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	plan := func(from, to string) *planner.Plan {
		p, err := planner.Compute(planner.Input{Catalog: cat, From: semver.MustParse(from), To: semver.MustParse(to), AsOf: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	g := New("namespace")
	g.Set(plan("1.4", "1.6"), "ns-a")
	l := prometheus.Labels{"namespace": "ns-a", "from": "1.4", "to": "1.6", "cluster": "management"}
	if got := testutil.ToFloat64(g.blocked.With(l)); got != 0 {
		t.Errorf("blocked = %v, want 0", got)
	}
	if got := testutil.ToFloat64(g.verdict.With(prometheus.Labels{"namespace": "ns-a", "from": "1.4", "to": "1.6", "cluster": "management", "verdict": "ready"})); got != 1 {
		t.Errorf("verdict{ready} = %v, want 1", got)
	}
	// The namespace moves on to 1.5: the 1.4 series go away.
	g.Set(plan("1.5", "1.6"), "ns-a")
	if n := testutil.CollectAndCount(g.score); n != 1 {
		t.Errorf("score series = %d, want 1 after the release changed", n)
	}
	g.Set(nil, "ns-a")
	if n := testutil.CollectAndCount(g.verdict); n != 0 {
		t.Errorf("verdict series = %d, want 0 once the plan is gone", n)
	}
}
