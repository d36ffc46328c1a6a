package main

import (
	"testing"

	"gitlab.com/sylva-projects/sylva-planner/availability"
	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/planner"
)

// drain-check's kubectl commands read the cluster drain-check read: its
// --kubeconfig and --context, quoted.
func TestInspectReadsTheSameCluster(t *testing.T) {
	items := []availability.Item{{
		Finding: planner.Finding{Remediation: "delete one of the budgets or narrow its selector (kubectl -n a get pdb x y -o yaml)"},
		Inspect: "kubectl -n a get pdb x -o yaml",
	}}
	inspectSameCluster(items, envelope.Selection{Kubeconfig: "my kc.yaml", Context: "mgmt", Namespace: "ignored"})
	if got, want := items[0].Inspect, "kubectl --kubeconfig 'my kc.yaml' --context mgmt -n a get pdb x -o yaml"; got != want {
		t.Errorf("Inspect = %q, want %q", got, want)
	}
	if got, want := items[0].Remediation, "delete one of the budgets or narrow its selector (kubectl --kubeconfig 'my kc.yaml' --context mgmt -n a get pdb x y -o yaml)"; got != want {
		t.Errorf("Remediation = %q, want %q", got, want)
	}
	inspectSameCluster(items[:0], envelope.Selection{})
}
