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
	"gitlab.com/sylva-projects/sylva-planner/semver"
)

func TestWriteFleetGateMetricsLabelsEachNamespace(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	plan := func(from string) *planner.Plan {
		p, err := planner.Compute(planner.Input{Catalog: cat, From: semver.MustParse(from), To: semver.MustParse("1.6"), AsOf: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	workload := func(from, kube string) *planner.Plan {
		p, err := planner.Compute(planner.Input{
			Catalog: cat, From: semver.MustParse(from), To: semver.MustParse("1.6"), AsOf: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC),
			Cluster: planner.ClusterWorkload, Kubernetes: semver.MustParse(kube),
		})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	plans := []gatemetrics.NamespacedPlan{
		{Namespace: "wc2", Plan: plan("1.5")},
		{Namespace: "sylva-system", Plan: plan("1.4")},
		{Namespace: "wc4", Plan: workload("1.4", "1.31")},
		{Namespace: "wc3", From: "1.0", To: "1.6", Cluster: planner.ClusterWorkload},
	}
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
	if passes == nil || len(passes.Metric) != 3 {
		t.Fatalf("sylva_planner_passes = %v, want one series per planned namespace", passes)
	}
	for _, m := range passes.Metric {
		labels := map[string]string{}
		for _, l := range m.Label {
			labels[l.GetName()] = l.GetValue()
		}
		switch want := map[string]float64{"sylva-system": 2, "wc2": 1, "wc4": 1}; {
		case labels["namespace"] == "" || labels["to"] != "1.6":
			t.Errorf("series labels %v, want namespace and to", labels)
		case labels["cluster"] != map[string]string{"sylva-system": "management", "wc2": "management", "wc4": "workload"}[labels["namespace"]]:
			t.Errorf("series labels %v: the cluster label is not the kind planned", labels)
		case m.GetGauge().GetValue() != want[labels["namespace"]]:
			t.Errorf("passes of %s = %v, want %v", labels["namespace"], m.GetGauge().GetValue(), want[labels["namespace"]])
		}
	}
	// The release that could not be planned (what makes plan -A exit 3)
	// reads as verdict unknown, with no passes and no score.
	for _, want := range []string{
		`sylva_planner_verdict{cluster="workload",from="1.0",namespace="wc3",to="1.6",verdict="unknown"} 1`,
		`sylva_planner_verdict{cluster="workload",from="1.0",namespace="wc3",to="1.6",verdict="ready"} 0`,
		`sylva_planner_upgrade_blocked{cluster="workload",from="1.0",namespace="wc3",to="1.6"} 0`,
	} {
		if !strings.Contains(first.String(), want+"\n") {
			t.Errorf("no series %s in:\n%s", want, first.String())
		}
	}
	if strings.Contains(first.String(), `sylva_planner_passes{cluster="workload",from="1.0"`) || strings.Contains(first.String(), `sylva_planner_score{cluster="workload",from="1.0"`) {
		t.Errorf("a release that could not be planned has passes or a score:\n%s", first.String())
	}
}
