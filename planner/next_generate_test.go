package planner

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"gitlab.com/sylva-projects/sylva-planner/envelope"
)

func TestGenerateCommandTakesThePlanFlagsValuesGenerateTakes(t *testing.T) {
	p := &Plan{From: Endpoint{Release: "1.4"}, To: Endpoint{Release: "1.6"}}
	for _, tt := range []struct {
		name, rerun string
		sel         envelope.Selection
		want        string
	}{
		{"no rerun gives the releases only", "", envelope.Selection{}, "sylva-planner values generate --from 1.4 --to 1.6 --kustomize transition"},
		{
			"provider and workers are kept, the rest dropped",
			"sylva-planner plan --from 1.4 --to 1.6 --as-of 2025-01-01 --catalog c.yaml --bootstrap-provider rke2 --workers 1.30 -o json",
			envelope.Selection{Catalog: "c.yaml", To: "1.6"},
			"sylva-planner values generate --from 1.4 --to 1.6 --bootstrap-provider rke2 --workers 1.30 --kustomize transition --catalog c.yaml",
		},
		{
			"the selecting flags come from the selection, quoted, with the plugin's name",
			"kubectl sylva-planner plan --status s.yaml --to 1.6 --catalog 'my dir/c.yaml' -n wc1 --context stub",
			envelope.Selection{Program: "kubectl sylva-planner", Catalog: "my dir/c.yaml", Namespace: "wc1", Context: "stub", State: "s.yaml", To: "1.6"},
			"kubectl sylva-planner values generate --from 1.4 --to 1.6 --kustomize transition -n wc1 --catalog 'my dir/c.yaml'",
		},
	} {
		if got := generateCommand(p, tt.rerun, tt.sel); got != tt.want {
			t.Errorf("%s: generateCommand(%q) = %q, want %q", tt.name, tt.rerun, got, tt.want)
		}
	}
}

// A plan's JSON reads back into the same passes.
func TestPassJSONRoundTrips(t *testing.T) {
	paused := true
	want := Pass{
		Index: 1, Release: "1.6", Trigger: TriggerUpgrade, HopPass: 1, HopPasses: 2,
		Values:         Values{SylvaRelease: "1.6", TransitionFromN2: true, K8sVersionShort: "1.32", MachineDeploymentsPaused: &paused, AdditionalReconciliationRequired: true},
		ExpectedStatus: ExpectedStatus{SylvaRelease: "1.6", AdditionalReconciliationRequired: "true", TransitionFrom: "1.4", TransitionPass: "1"},
	}
	b, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	var got Pass
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("Unmarshal(%s): %v", b, err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Unmarshal(Marshal(pass)) (-want +got):\n%s", diff)
	}
}
