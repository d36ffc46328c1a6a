package flux

import (
	"bytes"
	"os"
	"regexp"
	"slices"
	"strings"
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
	if got := testutil.ToFloat64(gate.blocked.With(l)); got != 0 {
		t.Errorf("blocked = %v, want 0", got)
	}
	if got := testutil.ToFloat64(gate.verdict.With(prometheus.Labels{"namespace": "ns-a", "from": "1.4", "to": "1.6", "verdict": "ready"})); got != 1 {
		t.Errorf("verdict{ready} = %v, want 1", got)
	}
	// The namespace moves on to 1.5: the 1.4 series go away.
	setGateGauges("ns-a", plan("1.5", "1.6"))
	if n := testutil.CollectAndCount(gate.score); n != 1 {
		t.Errorf("score series = %d, want 1 after the release changed", n)
	}
	setGateGauges("ns-a", nil)
	if n := testutil.CollectAndCount(gate.verdict); n != 0 {
		t.Errorf("verdict series = %d, want 0 once the plan is gone", n)
	}
}

// TestTextfileAndControllerExportTheSameGauges keeps the gauges defined
// once: the textfile of plan --metrics-file and the controller's /metrics
// carry the same names and HELP texts, and every gauge docs/gate.md lists.
func TestTextfileAndControllerExportTheSameGauges(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	p, err := planner.Compute(planner.Input{Catalog: cat, From: skew.MustParse("1.4"), To: skew.MustParse("1.6"), AsOf: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteGateMetrics(&buf, p); err != nil {
		t.Fatal(err)
	}
	file := buf.Bytes()
	ctl := NewGateGauges("namespace")
	ctl.Set(p, "sylva-system")
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(ctl)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../docs/gate.md")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, mf := range mfs {
		names = append(names, mf.GetName())
		help := "# HELP " + mf.GetName() + " " + mf.GetHelp() + "\n"
		if !strings.Contains(string(file), help) {
			t.Errorf("the textfile lacks %q", help)
		}
	}
	for _, m := range regexp.MustCompile("`(sylva_planner_[a-z_]+)\\{").FindAllStringSubmatch(string(doc), -1) {
		if m[1] == "sylva_planner_reconcile_requests_total" || m[1] == "sylva_planner_pending_passes" || m[1] == "sylva_planner_last_trigger_timestamp_seconds" {
			continue
		}
		if !slices.Contains(names, m[1]) {
			t.Errorf("docs/gate.md lists %s, which the controller does not export (it exports %v)", m[1], names)
		}
	}
	if len(names) != 5 {
		t.Errorf("gauges = %v, want the five of docs/gate.md", names)
	}
}
