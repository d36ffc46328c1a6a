package planner_test

import (
	"bytes"
	"strings"
	"testing"

	"gitlab.com/sylva-projects/sylva-planner/internal/catalogtest"
	"gitlab.com/sylva-projects/sylva-planner/internal/golden"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
)

// TestReportsPerVerdict renders the nightly report (Markdown, HTML) of one
// plan per verdict; the gauges of --metrics-file are gatemetrics.Write.
func TestReportsPerVerdict(t *testing.T) {
	tests := []struct {
		name    string
		in      planner.Input
		verdict planner.Verdict
	}{
		{"ready", planner.Input{Catalog: catalogtest.Default(t), From: semver.MustParse("1.4"), To: semver.MustParse("1.6")}, planner.VerdictReady},
		{"blocked", planner.Input{Catalog: gateCat(t), From: semver.MustParse("1.4"), To: semver.MustParse("1.6"), Observed: running("kyverno", "1.13.4")}, planner.VerdictBlocked},
		{"held", planner.Input{Catalog: gateCat(t), From: semver.MustParse("1.4"), To: semver.MustParse("1.6"), Observed: running("kyverno", "1.13.4", "gadget", "1.0.0", "widget", "1.0.1")}, planner.VerdictHeld},
		{"unknown", planner.Input{Catalog: catalogtest.Default(t), From: semver.MustParse("1.6"), To: semver.MustParse("1.8")}, planner.VerdictUnknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.in.AsOf, tt.in.ToolVersion = asOf, "test"
			p, err := planner.Compute(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if p.Verdict != tt.verdict {
				t.Fatalf("verdict = %s, want %s", p.Verdict, tt.verdict)
			}
			var md, html bytes.Buffer
			if err := p.WriteReportMarkdown(&md); err != nil {
				t.Fatal(err)
			}
			if err := p.WriteReportHTML(&html); err != nil {
				t.Fatal(err)
			}
			golden.Assert(t, md.Bytes(), "reports/"+tt.name+".md")
			golden.Assert(t, html.Bytes(), "reports/"+tt.name+".html")
		})
	}
}

// TestReportHeaderKeepsItsLines: the inputs line of the header does not run
// into the as-of date ("as of 2026-11-30 inputs: …") in either report.
func TestReportHeaderKeepsItsLines(t *testing.T) {
	p, err := planner.Compute(planner.Input{Catalog: catalogtest.Default(t), From: semver.MustParse("1.4"), To: semver.MustParse("1.6"), AsOf: asOf, ToolVersion: "test", Inputs: []string{"catalog embedded", "status cm.yaml"}})
	if err != nil {
		t.Fatal(err)
	}
	var md, html bytes.Buffer
	if err := p.WriteReportMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := p.WriteReportHTML(&html); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ format, out, want string }{
		{"markdown", md.String(), "as of 2026-11-30  \ninputs: catalog embedded, status cm.yaml"},
		{"html", html.String(), "as of 2026-11-30<br>inputs: catalog embedded, status cm.yaml"},
	} {
		if !strings.Contains(tt.out, tt.want) {
			t.Errorf("%s report lacks %q:\n%s", tt.format, tt.want, tt.out)
		}
	}
}
