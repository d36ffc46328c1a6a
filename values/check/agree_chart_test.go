package check

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/internal/catalogtest"
	"gitlab.com/sylva-projects/sylva-planner/internal/sylvacore"
	"gitlab.com/sylva-projects/sylva-planner/internal/valuestest"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/status"
	"gitlab.com/sylva-projects/sylva-planner/values/helmengine"
	"gitlab.com/sylva-projects/sylva-planner/values/overlay"
)

// TestOverlayAndLocateAgreeOnEveryPassOfAThreePassPlan runs the generated
// overlay of a three-pass transition (1.1 → 1.4, Kubernetes 1.28 → 1.29 →
// 1.30 → 1.31) in main's chart with Longhorn deployed: before each pass the
// status ConfigMap is the one the previous pass left, and in each render
// the chart must apply that pass (no finding of values check --chart), and
// planner.Locate — the reading of plan --status, status --to, reconcile --to
// and the controller — must name the same pass as next. After the last pass
// the status it leaves reads as done.
func TestOverlayAndLocateAgreeOnEveryPassOfAThreePassPlan(t *testing.T) {
	if testing.Short() {
		t.Skip("renders the real chart")
	}
	tr := sylvacore.At(t, "main")
	c, err := helmengine.LoadChart(tr.Chart())
	if err != nil {
		t.Fatal(err)
	}
	cat := catalogtest.Edited(t, [2]string{"  - release: \"1.4\"\n    upgrade_from: [\"1.3\"]\n", "  - release: \"1.4\"\n    upgrade_from: [\"1.1\", \"1.2\", \"1.3\"]\n"})
	in := planner.Input{Catalog: cat, From: semver.MustParse("1.1"), To: semver.MustParse("1.4"), FromSource: "flag", ToolVersion: "test"}
	files := append(valuestest.ReadFiles[helmengine.File](t, tr.Chart(), "values.yaml", "management.values.yaml"),
		longhornEnabled)
	rep, err := Chart(context.Background(), ChartInput{Plan: in, Chart: c, Files: files, SkipSchemaValidation: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Findings {
		t.Errorf("values check --chart: %s %s: %s", f.Code, f.Subject, f.Message)
	}
	locate := func(data map[string]string) *planner.Position {
		t.Helper()
		cm, err := status.Decode(configMapYAML(t, data))
		if err != nil {
			t.Fatal(err)
		}
		pr := planner.TransitionStateOf(status.Observation{ConfigMap: cm})
		if pr.Installed.IsZero() {
			// A 1.1 status names no release (sylva_release came later):
			// the operator says it with --from.
			pr.Installed = in.From
		}
		pos, err := planner.Locate(in, pr)
		if err != nil {
			t.Fatal(err)
		}
		return pos
	}
	passes := 0
	var last Scenario
	for _, sc := range rep.Scenarios {
		var pass, of int
		if _, err := fmt.Sscanf(sc.Name, "pass %d of %d", &pass, &of); err != nil || strings.Contains(sc.Name, " from a ") {
			continue
		}
		passes++
		last = sc
		pos := locate(sc.Status)
		if pos.Next == nil || pos.Next.HopPass != pass {
			t.Errorf("%s: the chart applies pass %d; Locate on the status before it says %q", sc.Name, pass, pos.Summary)
		}
		info, err := statusInfo(sc.Got["additional-info"])
		if err != nil || info[overlay.KeyTransitionPass] != fmt.Sprint(pass) {
			t.Errorf("%s: the chart writes transition_pass %q into the status, want %d", sc.Name, info[overlay.KeyTransitionPass], pass)
		}
	}
	if passes != 3 {
		t.Fatalf("%d pass scenarios, want 3 (1.28 → 1.29 → 1.30 → 1.31)", passes)
	}
	// What the last pass leaves: the chart's additional-info over the
	// status it read.
	after := maps.Clone(last.Status)
	info, _ := statusInfo(last.Got["additional-info"])
	for k, v := range info {
		after[k] = v
	}
	b, _ := yaml.Marshal(info)
	after[overlay.AdditionalInfo] = string(b)
	if pos := locate(after); pos.Next != nil || pos.PassPending {
		t.Errorf("after the last pass Locate says %q, want done", pos.Summary)
	}
}

// locateStatus places a release whose status ConfigMap has data in the
// plan of in, as every command does (planner.TransitionStateOf, planner.Locate).
func locateStatus(t *testing.T, in planner.Input, data map[string]string) *planner.Position {
	t.Helper()
	cm, err := status.Decode(configMapYAML(t, data))
	if err != nil {
		t.Fatal(err)
	}
	pos, err := planner.Locate(in, planner.TransitionStateOf(status.Observation{ConfigMap: cm}))
	if err != nil {
		t.Fatal(err)
	}
	return pos
}

// configMapYAML is the status ConfigMap with data, as kubectl prints it.
func configMapYAML(t *testing.T, data map[string]string) []byte {
	t.Helper()
	b, err := yaml.Marshal(chartStatusObject(helmengine.DefaultNamespace, data))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
