package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"gitlab.com/sylva-projects/sylva-planner/internal/sylvacore"
	"gitlab.com/sylva-projects/sylva-planner/units"
)

// TestPruneAuditWithTheChartOnRealRefs runs prune-audit --chart on every
// ref of the bundle, values.yaml alone and with management.values.yaml:
// every one audits with the units resolved by the chart, and nothing is
// left unresolved (the chart decides every gotpl entry the literal
// reading lists).
func TestPruneAuditWithTheChartOnRealRefs(t *testing.T) {
	if testing.Short() {
		t.Skip("renders the real chart")
	}
	for _, tree := range sylvacore.Trees(t) {
		for _, overlay := range []string{"", "management.values.yaml"} {
			args := []string{"sylva-planner", "prune-audit", "--chart", "charts/sylva-units", "-f", "charts/sylva-units/values.yaml"}
			if overlay != "" {
				args = append(args, "-f", "charts/sylva-units/"+overlay)
			}
			t.Run(strings.Join(append([]string{tree.Ref}, args[2:]...), " "), func(t *testing.T) {
				t.Parallel()
				var stdout, stderr bytes.Buffer
				code := runIn(context.Background(), tree.Dir, append(args, "-o", "json", "--fail-on", "never"), &stdout, &stderr, func(string) string { return "" })
				if code != 0 || stderr.Len() > 0 {
					t.Fatalf("exit %d, stderr %q", code, stderr.String())
				}
				var r units.Report
				if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
					t.Fatal(err)
				}
				if r.Resolution != units.ResolutionChart || len(r.Unresolved) != 0 {
					t.Errorf("resolution %s, unresolved %v; want the chart's resolution and nothing unresolved", r.Resolution, r.Unresolved)
				}
			})
		}
	}
}

// BenchmarkPruneAuditChartMainManagement is prune-audit --chart on main's
// chart with management values, as a release manager runs it.
func BenchmarkPruneAuditChartMainManagement(b *testing.B) {
	tree := sylvacore.At(b, "main")
	args := []string{
		"sylva-planner", "prune-audit", "--chart", "charts/sylva-units",
		"-f", "charts/sylva-units/values.yaml", "-f", "charts/sylva-units/management.values.yaml", "-o", "json", "--fail-on", "never",
	}
	for b.Loop() {
		var stdout, stderr bytes.Buffer
		if code := runIn(context.Background(), tree.Dir, args, &stdout, &stderr, func(string) string { return "" }); code != 0 {
			b.Fatalf("exit %d: %s", code, stderr.String())
		}
	}
}
