package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/internal/benchcpu"
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

// TestPruneAuditRefusesAReleaseNotTheCharts: --release must be the
// release of --chart, as values check requires the chart of --to, or, for
// a development chart, the release its line becomes: the 1.3.10 chart
// audited as 1.6 is refused in one line naming both and the fix; its own
// release, and the next one with a note, are audited. A values file the chart
// cannot render offline (the workload values, whose checks read what
// only the management cluster has) is one line naming the value, not
// Helm's trace of includes.
func TestPruneAuditRefusesAReleaseNotTheCharts(t *testing.T) {
	if testing.Short() {
		t.Skip("renders the real chart")
	}
	for _, tree := range sylvacore.Trees(t) {
		var own, next string
		switch tree.Ref {
		case "1.3.10":
			own, next = "1.3", "1.4"
		case "main":
			own, next = "1.4", "1.5"
		default:
			continue
		}
		t.Run(tree.Ref, func(t *testing.T) {
			t.Parallel()
			run := func(args ...string) (int, string, string) {
				var stdout, stderr bytes.Buffer
				code := runIn(context.Background(), tree.Dir, append([]string{"sylva-planner", "prune-audit", "--chart", "charts/sylva-units"}, args...), &stdout, &stderr, func(string) string { return "" })
				return code, stdout.String(), stderr.String()
			}
			code, stdout, stderr := run("--release", "1.6")
			want := "sylva-planner: --release 1.6: --chart charts/sylva-units is the chart of Sylva " + own + " ("
			if code != exitError || stdout != "" || !strings.HasPrefix(stderr, want) || !strings.HasSuffix(stderr, "give the charts/sylva-units of Sylva 1.6, or --release "+own+" or "+next+"\n") || strings.Count(stderr, "\n") != 1 {
				t.Errorf("--release 1.6: exit %d, stdout %q, stderr %q; want exit 1 and one line starting %q", code, stdout, stderr, want)
			}
			if code, _, stderr := run("--release", own, "--fail-on", "never"); code != 0 {
				t.Errorf("--release %s: exit %d, stderr %q", own, code, stderr)
			}
			// A development chart audited as the release its line becomes:
			// accepted, and said.
			if code, stdout, stderr := run("--release", next, "--fail-on", "never"); code != 0 || !strings.Contains(stdout, "is a development chart of Sylva "+own+"'s line") {
				t.Errorf("--release %s: exit %d, stdout %q, stderr %q; want the audit with a note saying the chart is of %s's line", next, code, stdout, stderr, own)
			}
			if tree.Ref != "main" {
				return
			}
			code, _, stderr = run("-f", "charts/sylva-units/workload-cluster.values.yaml")
			if code != exitError || strings.Count(stderr, "\n") != 1 || len(stderr) > 400 || !strings.Contains(stderr, "values._internal.checks.capi_bootstrap_provider: ") || strings.Contains(stderr, "error calling include") {
				t.Errorf("workload values: exit %d, stderr (%d characters) %q; want one line naming the value and its cause", code, len(stderr), stderr)
			}
		})
	}
}

// TestPruneAuditAdviceHoldsInTheChart checks prune-audit --chart's advice
// against the chart itself, on main with the management values and three
// cleanup units marked transitional: cluster-import-legacy-cleanup, which
// no value names, is prunable in 1.5; ingress-nginx-cleanup is blocked by
// ingress-nginx, whose depends_on names it under a template (`include
// "unit-enabled"` on it) false with these values; minio-logging-cleanup is
// blocked by loki, disabled here, whose depends_on template names it (the
// chart interprets every unit's values). Deleting the prunable unit, the
// chart still renders the values; deleting either blocked one, it fails.
func TestPruneAuditAdviceHoldsInTheChart(t *testing.T) {
	if testing.Short() {
		t.Skip("renders the real chart")
	}
	tree := sylvacore.At(t, "main")
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	marked := write("marked.yaml", "units:\n  cluster-import-legacy-cleanup: {info: {transitional-unit: from-1.3}}\n"+
		"  minio-logging-cleanup: {info: {transitional-unit: from-1.3}}\n  ingress-nginx-cleanup: {info: {transitional-unit: from-1.2}}\n")
	run := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		base := []string{"sylva-planner"}
		code := runIn(context.Background(), tree.Dir, append(base, args...), &stdout, &stderr, func(string) string { return "" })
		return code, stdout.String(), stderr.String()
	}
	mgmt := []string{"-f", "charts/sylva-units/values.yaml", "-f", "charts/sylva-units/management.values.yaml"}
	code, out, errOut := run(append(append([]string{"prune-audit", "--chart", "charts/sylva-units"}, mgmt...), "-f", marked, "--release", "1.5", "-o", "json", "--fail-on", "never")...)
	if code != 0 {
		t.Fatalf("prune-audit: exit %d: %s", code, errOut)
	}
	var r units.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	states := map[string]units.AuditedUnit{}
	for _, u := range r.Units {
		states[u.Name] = u
	}
	for name, want := range map[string]string{"cluster-import-legacy-cleanup": "", "ingress-nginx-cleanup": "ingress-nginx", "minio-logging-cleanup": "loki"} {
		u := states[name]
		if want == "" && u.State != units.StatePrunable {
			t.Errorf("%s: %s (%s), want prunable", name, u.State, u.Reason)
		}
		if want != "" && (u.State != units.StateBlocked || strings.Join(u.Dependents, ",") != want) {
			t.Errorf("%s: %s, dependents %v (%s); want blocked by %s", name, u.State, u.Dependents, u.Reason, want)
		}
	}
	// Deleting a unit is removing its block from the file that defines
	// it: management.values.yaml is edited (re-written without it), a unit
	// of the chart's values.yaml is set to null (Helm deletes a default so).
	readValues := func(name string) map[string]any {
		data, err := os.ReadFile(filepath.Join(tree.Chart(), name))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := yaml.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	render := func(unit string) (int, string) {
		m := readValues("management.values.yaml")
		delete(m["units"].(map[string]any), unit)
		data, err := yaml.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		args := []string{"values", "render", "--chart", "charts/sylva-units", "--skip-schema-validation", "-f", "charts/sylva-units/values.yaml", "-f", write("management.yaml", string(data))}
		if _, ok := readValues("values.yaml")["units"].(map[string]any)[unit]; ok {
			args = append(args, "-f", write(unit+".yaml", "units:\n  "+unit+": null\n"))
		}
		code, _, errOut := run(args...)
		return code, errOut
	}
	if code, errOut := render("cluster-import-legacy-cleanup"); code != 0 {
		t.Errorf("the chart without cluster-import-legacy-cleanup, which prune-audit calls prunable: exit %d: %s", code, errOut)
	}
	for _, name := range []string{"ingress-nginx-cleanup", "minio-logging-cleanup"} {
		if code, errOut := render(name); code == 0 || !strings.Contains(errOut, name) {
			t.Errorf("the chart without %s, which prune-audit calls blocked: exit %d (%q); want the render to fail on it", name, code, errOut)
		}
	}
}

// BenchmarkPruneAuditChartMainManagement is prune-audit --chart on main's
// chart with management values, as a release manager runs it (in this
// process: no budgeted child). It reports the process's CPU time per run
// too (cpu-s/op), the figure of the 1 s target.
func BenchmarkPruneAuditChartMainManagement(b *testing.B) {
	tree := sylvacore.At(b, "main")
	args := []string{
		"sylva-planner", "prune-audit", "--chart", "charts/sylva-units",
		"-f", "charts/sylva-units/values.yaml", "-f", "charts/sylva-units/management.values.yaml", "-o", "json", "--fail-on", "never",
	}
	defer benchcpu.Report(b)()
	for b.Loop() {
		var stdout, stderr bytes.Buffer
		if code := runIn(context.Background(), tree.Dir, args, &stdout, &stderr, func(string) string { return "" }); code != 0 {
			b.Fatalf("exit %d: %s", code, stderr.String())
		}
	}
}
