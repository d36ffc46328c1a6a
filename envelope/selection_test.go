package envelope_test

import (
	"testing"

	"gitlab.com/sylva-projects/sylva-planner/envelope"
)

func TestSelectionCommand(t *testing.T) {
	full := envelope.Selection{
		Kubeconfig: "kc.yaml", Context: "kind mgmt", Namespace: "wc1",
		Catalog: "cat.yaml", Chart: "charts/sylva-units", To: "1.6", State: "cm.yaml",
	}
	for _, tt := range []struct {
		name    string
		sel     envelope.Selection
		command string
		args    []string
		want    string
	}{
		{"the zero selection adds nothing", envelope.Selection{}, "status", nil, "sylva-planner status"},
		{
			"status takes every selecting flag but the chart, the file as -f", full, "status", nil,
			"sylva-planner status --kubeconfig kc.yaml --context 'kind mgmt' -n wc1 --catalog cat.yaml --to 1.6 -f cm.yaml",
		},
		{
			"reconcile reads no file", full, "reconcile", nil,
			"sylva-planner reconcile --kubeconfig kc.yaml --context 'kind mgmt' -n wc1 --catalog cat.yaml --to 1.6",
		},
		{
			"plan names the file --status, and a --to in args is not repeated", full, "plan",
			[]string{"--from", "1.4", "--to", "1.7"},
			"sylva-planner plan --from 1.4 --to 1.7 --kubeconfig kc.yaml --context 'kind mgmt' -n wc1 --catalog cat.yaml --status cm.yaml",
		},
		{
			"prune-audit takes the catalog and the chart only", full, "prune-audit",
			[]string{"-f", "values.yaml"},
			"sylva-planner prune-audit -f values.yaml --catalog cat.yaml --chart charts/sylva-units",
		},
		{
			"drain-check takes the cluster only", full, "drain-check", nil,
			"sylva-planner drain-check --kubeconfig kc.yaml --context 'kind mgmt'",
		},
		{
			"the plugin's name",
			envelope.Selection{Program: "kubectl sylva-planner", Namespace: "it's"},
			"status", nil,
			`kubectl sylva-planner status -n 'it'\''s'`,
		},
	} {
		if got := tt.sel.Command(tt.command, tt.args...); got != tt.want {
			t.Errorf("%s: Command(%q, %q) = %q, want %q", tt.name, tt.command, tt.args, got, tt.want)
		}
	}
}

func TestSelectionKubectl(t *testing.T) {
	if got, want := (envelope.Selection{Context: "stub", Namespace: "wc1"}).Kubectl(), "kubectl --context stub"; got != want {
		t.Errorf("Kubectl() = %q, want %q", got, want)
	}
}

func TestSelectionAbs(t *testing.T) {
	sel := envelope.Selection{
		Kubeconfig: "kc.yaml", Context: "mgmt", Namespace: "wc1", Catalog: "in/my cat.yaml",
		Chart: "/charts/sylva-units", To: "1.6", State: "../cm.yaml", Dir: "/work/env",
	}
	got := sel.Abs()
	want := sel
	want.Kubeconfig, want.Catalog, want.State = "/work/env/kc.yaml", "/work/env/in/my cat.yaml", "/work/cm.yaml"
	if got != want {
		t.Errorf("Abs() = %+v, want %+v", got, want)
	}
	if got, want := got.Command("values generate", "--from", "1.4"), "sylva-planner values generate --from 1.4 -n wc1 --catalog '/work/env/in/my cat.yaml' --chart /charts/sylva-units --to 1.6"; got != want {
		t.Errorf("Abs().Command = %q, want %q", got, want)
	}
	// No directory known: the paths stay as given.
	sel.Dir = ""
	if got := sel.Abs(); got != sel {
		t.Errorf("Abs() without Dir = %+v, want %+v", got, sel)
	}
}
