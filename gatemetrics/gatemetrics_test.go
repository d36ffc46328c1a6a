package gatemetrics_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/gatemetrics"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/skew"
)

func TestWriteFleetGateMetricsLabelsEachNamespace(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	plan := func(from string) *planner.Plan {
		p, err := planner.Compute(planner.Input{Catalog: cat, From: skew.MustParse(from), To: skew.MustParse("1.6"), AsOf: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	plans := []gatemetrics.NamespacedPlan{{"wc2", plan("1.5")}, {"sylva-system", plan("1.4")}, {"wc3", nil}}
	var first, second bytes.Buffer
	if err := gatemetrics.WriteFleet(&first, plans); err != nil {
		t.Fatal(err)
	}
	if err := gatemetrics.WriteFleet(&second, plans); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first.Bytes(), second.Bytes()) {
		t.Errorf("two writes of the same plans differ")
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(first.Bytes()))
	if err != nil {
		t.Fatalf("not the Prometheus text format: %v\n%s", err, first.String())
	}
	passes := families["sylva_planner_passes"]
	if passes == nil || len(passes.Metric) != 2 {
		t.Fatalf("sylva_planner_passes = %v, want one series per planned namespace", passes)
	}
	for _, m := range passes.Metric {
		labels := map[string]string{}
		for _, l := range m.Label {
			labels[l.GetName()] = l.GetValue()
		}
		switch want := map[string]float64{"sylva-system": 2, "wc2": 1}; {
		case labels["namespace"] == "" || labels["to"] != "1.6":
			t.Errorf("series labels %v, want namespace and to", labels)
		case m.GetGauge().GetValue() != want[labels["namespace"]]:
			t.Errorf("passes of %s = %v, want %v", labels["namespace"], m.GetGauge().GetValue(), want[labels["namespace"]])
		}
	}
	if strings.Contains(first.String(), `namespace="wc3"`) {
		t.Errorf("a namespace without a plan has series:\n%s", first.String())
	}
}
