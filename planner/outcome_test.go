package planner_test

import (
	"bytes"
	"strings"
	"testing"

	"gitlab.com/sylva-projects/sylva-planner/internal/catalogtest"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
)

// TestGateSaysWhyItDecides checks the gate's outcome against what the
// outputs for people show: a line naming the reason whenever the gate
// decides otherwise than the verdict, and baseline and suppressed findings
// marked as such.
func TestGateSaysWhyItDecides(t *testing.T) {
	cat := catalogtest.Default(t)
	in := func(from, to, workers string) planner.Input {
		i := planner.Input{Catalog: cat, From: semver.MustParse(from), To: semver.MustParse(to), AsOf: day("2026-11-30"), ToolVersion: "test"}
		if workers != "" {
			i.Workers = semver.MustParse(workers)
		}
		return i
	}
	compute := func(t *testing.T, i planner.Input) *planner.Plan {
		t.Helper()
		p, err := planner.Compute(i)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	blocked := in("1.5", "1.7", "1.29")
	previous := compute(t, blocked)

	withBaseline := blocked
	withBaseline.Baseline = previous.Findings
	suppressed := in("1.4", "1.7", "")
	for _, code := range []string{planner.CodeMultiHopRoute, planner.CodeWorkerExtraRollout, planner.CodeKubeadmWorkerLag} {
		suppressed.Suppressions = append(suppressed.Suppressions, planner.Suppression{Code: code, Reason: "tested in CI"})
	}
	suppressed.Gate.FailOn = planner.FailOnWarning
	multiHop := in("1.4", "1.7", "")
	multiHop.Gate.FailOn = planner.FailOnWarning
	never := blocked
	never.Gate.FailOn = planner.FailOnNever
	unknown := in("1.7", "1.8", "")
	allowed := unknown
	allowed.Gate.AllowIncomplete = true

	tests := []struct {
		name    string
		in      planner.Input
		outcome planner.GateOutcome
		// line is a part of the gate line the table shows; "" means the
		// table shows none (the verdict says it all).
		line string
		// also must appear in the table.
		also string
	}{
		{"a new blocker fails the gate as the verdict says", blocked, planner.GateFail, "", ""},
		{"a blocker accepted by the baseline passes the gate and the table says why", withBaseline, planner.GatePass, "Gate passes: every blocker is in the baseline, none is new (1 accepted); exit 0", "in the baseline: not new, does not fail the gate"},
		{"a warning fails --fail-on warning and the table says why", multiHop, planner.GateFail, "Gate fails: 3 blockers or warnings; exit 2", ""},
		{"a suppressed warning no longer fails --fail-on warning and is listed as suppressed", suppressed, planner.GatePass, "", "tested in CI"},
		{"--fail-on never passes a blocked plan and says so", never, planner.GatePass, "Gate passes: --fail-on never: the gate passes whatever the verdict (blocked); exit 0", ""},
		{"verdict unknown fails the gate", unknown, planner.GateFail, "", ""},
		{"--allow-incomplete passes verdict unknown and says so", allowed, planner.GatePass, "Gate passes: --allow-incomplete: a check not assessed does not fail the gate; exit 0", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := compute(t, tt.in)
			if p.Gate.Outcome != tt.outcome {
				t.Errorf("Compute(%s) gate = %+v, want outcome %s", tt.name, p.Gate, tt.outcome)
			}
			for _, write := range []func(*bytes.Buffer) error{
				func(b *bytes.Buffer) error { return p.WriteTable(b) },
				func(b *bytes.Buffer) error { return p.WriteMarkdown(b) },
				func(b *bytes.Buffer) error { return p.WriteReportMarkdown(b) },
				func(b *bytes.Buffer) error { return p.WriteReportHTML(b) },
			} {
				var b bytes.Buffer
				if err := write(&b); err != nil {
					t.Fatal(err)
				}
				out := b.String()
				if got := strings.Contains(out, "Gate "); tt.line == "" && got {
					t.Errorf("output shows a gate line, want none:\n%s", out)
				}
				if tt.line != "" && !strings.Contains(out, tt.line) {
					t.Errorf("output lacks %q:\n%s", tt.line, out)
				}
				if tt.also != "" && !strings.Contains(out, tt.also) {
					t.Errorf("output lacks %q:\n%s", tt.also, out)
				}
			}
		})
	}
}

func TestNextRepeatsTheCommandThatComputedThePlan(t *testing.T) {
	in := planner.Input{
		Catalog: catalogtest.Default(t), From: semver.MustParse("1.5"), To: semver.MustParse("1.7"), Workers: semver.MustParse("1.29"), AsOf: day("2026-11-30"),
		Rerun: "sylva-planner plan --from 1.5 --to 1.7 --workers 1.29 --inventory inv --catalog cat.yaml",
	}
	p, err := planner.Compute(in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(p.Next, ": "+in.Rerun) {
		t.Errorf("Compute(blocked) next = %q, want it to end with the command %q", p.Next, in.Rerun)
	}
}
