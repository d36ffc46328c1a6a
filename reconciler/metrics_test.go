package reconciler

import (
	"bytes"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/gatemetrics"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
)

// TestGateGaugesFollowTheNamespacesPlan: the controller's gauges hold the
// plan of each namespace it set, and none once the plan is gone.
func TestGateGaugesFollowTheNamespacesPlan(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	// Planned from a status, as the controller plans: every gauge is set,
	// sylva_planner_passes_done included.
	progress := &planner.TransitionState{Found: true, Installed: semver.MustParse("1.4")}
	p, err := planner.Compute(planner.Input{Catalog: cat, To: semver.MustParse("1.6"), AsOf: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC), Progress: progress})
	if err != nil {
		t.Fatal(err)
	}
	before := testutil.CollectAndCount(gate, "sylva_planner_score")
	setGateGauges("ns-follow", p)
	if n := testutil.CollectAndCount(gate, "sylva_planner_score"); n != before+1 {
		t.Errorf("score series = %d, want %d once ns-follow is planned", n, before+1)
	}
	setGateGauges("ns-follow", nil)
	if n := testutil.CollectAndCount(gate, "sylva_planner_score"); n != before {
		t.Errorf("score series = %d, want %d once the plan is gone", n, before)
	}
}

// TestTextfileAndControllerExportTheSameGauges keeps the gauges defined
// once: every gauge docs/gate.md lists is in the textfile of plan
// --metrics-file and on the controller's /metrics (controller-runtime's
// registry, as registerMetrics fills it), with the same HELP text and the
// labels the docs give.
func TestTextfileAndControllerExportTheSameGauges(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	// Planned from a status, as the controller plans: every gauge is set,
	// sylva_planner_passes_done included.
	progress := &planner.TransitionState{Found: true, Installed: semver.MustParse("1.4")}
	p, err := planner.Compute(planner.Input{Catalog: cat, To: semver.MustParse("1.6"), AsOf: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC), Progress: progress})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := gatemetrics.Write(&buf, p); err != nil {
		t.Fatal(err)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	file, err := parser.TextToMetricFamilies(&buf)
	if err != nil {
		t.Fatalf("the textfile does not parse: %v", err)
	}
	registerMetrics()
	setGateGauges("gauges-test", p)
	t.Cleanup(func() { setGateGauges("gauges-test", nil) })
	mfs, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]int{}
	for i, mf := range mfs {
		served[mf.GetName()] = i
	}
	doc, err := os.ReadFile("../docs/gate.md")
	if err != nil {
		t.Fatal(err)
	}
	listed := regexp.MustCompile("(?m)^\\| `(sylva_planner_[a-z_]+)\\{([a-z,]+)\\}`").FindAllStringSubmatch(string(doc), -1)
	if len(listed) == 0 {
		t.Fatal("docs/gate.md lists no gauge")
	}
	for _, m := range listed {
		name, labels := m[1], strings.Split(m[2], ",")
		i, ok := served[name]
		if !ok {
			t.Errorf("docs/gate.md lists %s, which the controller does not serve", name)
			continue
		}
		txt, ok := file[name]
		if !ok {
			t.Errorf("docs/gate.md lists %s, which the textfile lacks", name)
			continue
		}
		ctl := mfs[i]
		if ctl.GetHelp() != txt.GetHelp() || ctl.GetType().String() != "GAUGE" || txt.GetType().String() != "GAUGE" {
			t.Errorf("%s: controller %s %q, textfile %s %q; want the same gauge", name, ctl.GetType(), ctl.GetHelp(), txt.GetType(), txt.GetHelp())
		}
		for _, want := range labels {
			for _, metric := range append(txt.GetMetric(), ctl.GetMetric()...) {
				var names []string
				for _, l := range metric.GetLabel() {
					names = append(names, l.GetName())
				}
				if !slices.Contains(names, want) {
					t.Errorf("%s lacks the label %s docs/gate.md gives it: %v", name, want, metric.GetLabel())
				}
			}
		}
	}
	if len(file) != len(listed) {
		t.Errorf("the textfile has %d gauges, docs/gate.md lists %d", len(file), len(listed))
	}
}
