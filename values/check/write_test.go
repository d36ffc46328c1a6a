package check

import (
	"strings"
	"testing"

	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/planner"
)

// TestCheckTableNextFitsTheFindings checks the command the values check
// table ends with: the render of the same files where the chart does not
// render them and nothing else blocks, values generate otherwise.
func TestCheckTableNextFitsTheFindings(t *testing.T) {
	renderError := planner.Finding{Code: CodeChartRenderError, Severity: planner.SeverityBlocker, Subject: "fresh install of 1.4"}
	divergence := planner.Finding{Code: CodeChartDivergence, Severity: planner.SeverityBlocker, Subject: "pass 1 of 1: cluster"}
	warning := planner.Finding{Code: CodeChartDivergence, Severity: planner.SeverityWarning, Subject: "pass 1 of 1: cluster"}
	chart := envelope.Selection{Chart: "charts/sylva-units", To: "1.4"}
	const generate = "Next: sylva-planner values generate --from 1.2 --to 1.4"
	for _, tc := range []struct {
		name     string
		values   []string
		findings []planner.Finding
		sel      envelope.Selection
		want     string
	}{
		{
			"render errors only",
			[]string{"values.yaml", "my env.yaml", generatedName},
			[]planner.Finding{renderError, renderError, warning},
			chart,
			"Next: sylva-planner values render -f values.yaml -f 'my env.yaml' --chart charts/sylva-units --to 1.4\n",
		},
		{
			"the user's overlay is rendered too",
			[]string{"values.yaml", "helpers.yaml"},
			[]planner.Finding{renderError},
			chart,
			"Next: sylva-planner values render -f values.yaml -f helpers.yaml --chart charts/sylva-units --to 1.4\n",
		},
		{"a divergence too", []string{"values.yaml", generatedName}, []planner.Finding{renderError, divergence}, chart, generate + " --chart charts/sylva-units\n"},
		{"values from standard input", []string{"-", generatedName}, []planner.Finding{renderError}, chart, generate + " --chart charts/sylva-units\n"},
		{"no file but the generated values", []string{generatedName}, []planner.Finding{renderError}, chart, generate + " --chart charts/sylva-units\n"},
		{"no chart", []string{"values.yaml"}, []planner.Finding{renderError}, envelope.Selection{}, generate + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &Report{From: "1.2", To: "1.4", Values: tc.values, Findings: tc.findings}
			var b strings.Builder
			if err := r.WriteTableSelected(&b, tc.sel); err != nil {
				t.Fatal(err)
			}
			_, next, ok := strings.Cut(b.String(), "warning(s). ")
			if !ok || !strings.HasPrefix(next, tc.want) {
				t.Errorf("table ends with %q, want %q", next, tc.want)
			}
		})
	}
}

// TestCheckTableRendersWithoutTheSchemaWhenTheCheckDid checks that the
// render the table suggests goes without the chart's schema when the check
// did (--skip-schema-validation): with it, the render would fail on the
// schema instead of showing the failing value.
func TestCheckTableRendersWithoutTheSchemaWhenTheCheckDid(t *testing.T) {
	r := &Report{
		From: "1.2", To: "1.4", Values: []string{"values.yaml", generatedName}, skipSchema: true,
		Findings: []planner.Finding{{Code: CodeChartRenderError, Severity: planner.SeverityBlocker, Subject: "fresh install of 1.4"}},
	}
	var b strings.Builder
	if err := r.WriteTableSelected(&b, envelope.Selection{Chart: "charts/sylva-units", To: "1.4"}); err != nil {
		t.Fatal(err)
	}
	want := "Next: sylva-planner values render -f values.yaml --skip-schema-validation --chart charts/sylva-units --to 1.4\n"
	if _, next, _ := strings.Cut(b.String(), "warning(s). "); !strings.HasPrefix(next, want) {
		t.Errorf("table ends with %q, want %q", next, want)
	}
}

// TestCheckTableSaysWhichScenariosRendered checks the head of the values
// check table: with --chart, a scenario with an error did not render;
// without, an error is one value's and the scenario rendered the others.
func TestCheckTableSaysWhichScenariosRendered(t *testing.T) {
	ok, failed := Scenario{Name: "fresh install of 1.4"}, Scenario{Name: "pass 1 of 1 (1.3 → 1.4)", Errors: []string{"boom"}}
	for _, tc := range []struct {
		name      string
		chart     string
		scenarios []Scenario
		want      string
	}{
		{"all rendered", "charts/sylva-units", []Scenario{ok, ok}, "2 scenarios rendered:\n  - fresh install of 1.4\n  - fresh install of 1.4\n"},
		{"one did not", "charts/sylva-units", []Scenario{ok, failed}, "2 scenarios, 1 rendered:\n  - fresh install of 1.4\n  - pass 1 of 1 (1.3 → 1.4) (does not render)\n"},
		{"none did", "charts/sylva-units", []Scenario{failed, failed}, "2 scenarios, none rendered:\n  - pass 1 of 1 (1.3 → 1.4)\n  - pass 1 of 1 (1.3 → 1.4)\n"},
		{"a value's error without --chart", "", []Scenario{ok, failed}, "2 scenarios rendered:\n  - fresh install of 1.4\n  - pass 1 of 1 (1.3 → 1.4)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &Report{From: "1.3", To: "1.4", Chart: tc.chart, Scenarios: tc.scenarios}
			var b strings.Builder
			if err := r.WriteTable(&b); err != nil {
				t.Fatal(err)
			}
			if _, head, _ := strings.Cut(b.String(), "\n\n"); !strings.HasPrefix(head, tc.want) {
				t.Errorf("table:\n%s\nwant after its title:\n%s", b.String(), tc.want)
			}
		})
	}
}
