package check

import (
	"bytes"
	"context"
	"slices"
	"testing"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/values/helmengine"
	"gitlab.com/sylva-projects/sylva-planner/values/overlay"
)

// TestAPauseTheChartDoesNotReadIsReported: the generated overlay of
// 1.4 → 1.6 sets no machine_deployments_paused (the 1.6 chart is not
// known to read it); the same overlay with the key added is refused, and
// for a chart the catalog says reads it the key is expected, not refused.
func TestAPauseTheChartDoesNotReadIsReported(t *testing.T) {
	g, err := overlay.Generate(input(t, "1.4", "1.6"))
	if err != nil {
		t.Fatal(err)
	}
	if _, set := g.Final[overlay.KeyMachineDeploymentsPaused]; set {
		t.Errorf("the overlay sets %s for a chart that does not read it", overlay.KeyMachineDeploymentsPaused)
	}
	var buf bytes.Buffer
	if err := g.WriteYAML(&buf); err != nil {
		t.Fatal(err)
	}
	overlayYAML := buf.Bytes()
	with := append([]byte(overlay.KeyMachineDeploymentsPaused+": false\n"), overlayYAML...)
	check := func(in planner.Input, data []byte) []string {
		t.Helper()
		rep, err := Values(context.Background(), ValuesInput{Plan: in, Files: []helmengine.File{{Name: "overlay.yaml", Data: data}}})
		if err != nil {
			t.Fatal(err)
		}
		return codes(rep.Findings)
	}
	if got := check(input(t, "1.4", "1.6"), overlayYAML); slices.Contains(got, CodeValueNotRead) {
		t.Errorf("Values(generated overlay) codes = %v, want no %s", got, CodeValueNotRead)
	}
	if got := check(input(t, "1.4", "1.6"), with); !slices.Contains(got, CodeValueNotRead) {
		t.Errorf("Values(overlay with %s) codes = %v, want %s", overlay.KeyMachineDeploymentsPaused, got, CodeValueNotRead)
	}
	holds := input(t, "1.4", "1.6")
	c := *holds.Catalog
	c.Releases = slices.Clone(c.Releases)
	for i := range c.Releases {
		if c.Releases[i].Release.Short() == "1.6" {
			c.Releases[i].Capabilities = &catalog.Capabilities{HoldWorkers: &catalog.Capability{Value: true, Source: "test"}}
		}
	}
	holds.Catalog = &c
	if got := check(holds, with); slices.Contains(got, CodeValueNotRead) {
		t.Errorf("Values(overlay with %s, chart that reads it) codes = %v, want no %s", overlay.KeyMachineDeploymentsPaused, got, CodeValueNotRead)
	}
}
