package check

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/internal/catalogtest"
	"gitlab.com/sylva-projects/sylva-planner/internal/golden"
	"gitlab.com/sylva-projects/sylva-planner/internal/valuestest"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/values/helmengine"
	"gitlab.com/sylva-projects/sylva-planner/values/overlay"
	"gitlab.com/sylva-projects/sylva-planner/yamldoc"
)

func input(t testing.TB, from, to string) planner.Input {
	t.Helper()
	return planner.Input{Catalog: catalogtest.Default(t), From: semver.MustParse(from), To: semver.MustParse(to), FromSource: "flag", ToolVersion: "test"}
}

func codes(fs []planner.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Code)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func TestGenerateMatchesGoldenFiles(t *testing.T) {
	tests := []struct {
		name string
		in   planner.Input
	}{
		{"1.4-to-1.6", input(t, "1.4", "1.6")},
		{"1.0-to-1.1", input(t, "1.0", "1.1")},
		// Longhorn moves on the first pass: the overlay sets its chart.
		{"1.2-to-1.4", input12To14(t)},
	}
	for _, tt := range tests {
		name := tt.name
		t.Run(name, func(t *testing.T) {
			g, err := overlay.Generate(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			var y, j bytes.Buffer
			if err := g.WriteYAML(&y); err != nil {
				t.Fatal(err)
			}
			if err := g.WriteJSON(&j); err != nil {
				t.Fatal(err)
			}
			golden.Assert(t, y.Bytes(), "generate/"+name+".yaml")
			golden.Assert(t, j.Bytes(), "generate/"+name+".json")
			// The same inputs give the same bytes.
			g2, _ := overlay.Generate(tt.in)
			var y2 bytes.Buffer
			_ = g2.WriteYAML(&y2)
			if !bytes.Equal(y.Bytes(), y2.Bytes()) {
				t.Error("Generate is not deterministic")
			}
		})
	}
}

// A pass that moves Longhorn to a version whose chart version the catalog
// does not know makes Generate fail, naming the version and the fix.
func TestGenerateNamesAMissingLonghornChartVersion(t *testing.T) {
	// The plan's own passes need Longhorn 1.9.2's chart version, which the
	// catalog lacks: an error naming it and the pass that sets it.
	_, err := overlay.Generate(input(t, "1.5", "1.7"))
	if !errors.Is(err, overlay.ErrChartVersionUnknown) {
		t.Fatalf("Generate(1.5 → 1.7) error = %v, want ErrChartVersionUnknown", err)
	}
	for _, want := range []string{"Longhorn 1.9.2 (pass 1 of the hop from 1.5)", "add chart:"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
}

// TestGenerateLeavesOutASourceItCannotCover: 1.7 supports upgrades from
// 1.5 and 1.6, and only 1.5's passes need Longhorn 1.9.2's chart version,
// which the catalog lacks. The overlay of a 1.6 → 1.7 plan covers 1.6,
// says it leaves 1.5 out, and a status naming 1.5 (or a pending pass of a
// transition from 1.5) fails the render, naming why, rather than taking
// the final values.
func TestGenerateLeavesOutASourceItCannotCover(t *testing.T) {
	g, err := overlay.Generate(input(t, "1.6", "1.7"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(g.Sources, ",") != "1.6" || !strings.Contains(g.Uncovered["1.5"], "Longhorn 1.9.2") {
		t.Fatalf("sources %v, uncovered %v; want 1.6 covered and 1.5 left out for Longhorn 1.9.2", g.Sources, g.Uncovered)
	}
	state := func(data map[string]string) (string, error) {
		vals := map[string]any{"sylva_release": "1.7", "_internal": map[string]any{"state": map[string]any{overlay.StateKey: stateTemplate(g)}}}
		res, err := helmengine.Render(context.Background(), vals, helmengine.RenderOptions{Source: helmengine.NewObjects(statusObject(helmengine.DefaultNamespace, data))})
		if err != nil {
			return "", err
		}
		return res.Values["_internal"].(map[string]any)["state"].(map[string]any)[overlay.StateKey].(string), nil
	}
	if got, err := state(map[string]string{overlay.KeySylvaRelease: "1.6"}); err != nil || !strings.Contains(got, `"k8s_version_short":"1.34"`) {
		t.Errorf("from 1.6: %s, %v; want pass 1 (Kubernetes 1.34)", got, err)
	}
	for _, data := range []map[string]string{
		{overlay.KeySylvaRelease: "1.5"},
		{overlay.KeySylvaRelease: "1.7", overlay.KeyAdditionalReconciliationRequired: "true", overlay.KeyTransitionFrom: "1.5", overlay.KeyTransitionPass: "1"},
	} {
		if got, err := state(data); err == nil || !strings.Contains(err.Error(), "does not cover upgrades from 1.5") {
			t.Errorf("status %v: %s, %v; want the render to fail naming 1.5", data, got, err)
		}
	}
}

// Every pair of catalog releases (with chart versions for every Longhorn
// version): the generated values, written as YAML and read back as a
// values file, check clean, and every pass renders exactly the plan's
// values.
func TestGeneratedValuesCheckCleanForEveryPair(t *testing.T) {
	cat := catalogWithLonghornCharts(t)
	names := cat.ReleaseNames()
	for i, from := range names {
		for _, to := range names[i:] {
			t.Run(from+"-to-"+to, func(t *testing.T) {
				in := input(t, from, to)
				in.Catalog = cat
				g, err := overlay.Generate(in)
				if err != nil {
					t.Fatal(err)
				}
				var y bytes.Buffer
				if err := g.WriteYAML(&y); err != nil {
					t.Fatal(err)
				}
				rep, err := Values(context.Background(), ValuesInput{Plan: in, Files: []helmengine.File{{Name: "generated.yaml", Data: y.Bytes()}}})
				if err != nil {
					t.Fatal(err)
				}
				if len(rep.Findings) != 0 {
					var b bytes.Buffer
					_ = rep.WriteTable(&b)
					t.Fatalf("Values(generated %s → %s) has findings:\n%s", from, to, b.String())
				}
				plan, err := planner.Compute(in)
				if err != nil {
					t.Fatal(err)
				}
				hop := overlay.LastHop(plan)
				var passes []Scenario
				for _, s := range rep.Scenarios {
					if strings.HasPrefix(s.Name, "pass ") && !strings.Contains(s.Name, " from a ") {
						passes = append(passes, s)
					}
				}
				if len(passes) != len(hop) {
					t.Fatalf("%d pass scenarios, plan's last hop has %d passes", len(passes), len(hop))
				}
				for k, pass := range hop {
					want, _ := overlay.PassValues(pass.Values)
					got := map[string]string{}
					for key := range want {
						got[key] = passes[k].Got[key]
					}
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("pass %d rendered values (-plan +rendered):\n%s", pass.Index, diff)
					}
				}
			})
		}
	}
}

func TestThreePassHopRecordsItsPassInTheStatus(t *testing.T) {
	in := input(t, "1.5", "1.7")
	in.Catalog = catalogWithLonghornCharts(t)
	rep, err := Values(context.Background(), ValuesInput{Plan: in})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range rep.Scenarios {
		if strings.HasPrefix(s.Name, "pass ") && !strings.Contains(s.Name, " from a ") {
			got = append(got, s.Got[overlay.KeyTransitionFrom]+"/"+s.Got[overlay.KeyTransitionPass]+" k8s "+s.Got[overlay.KeyK8sVersionShort])
		}
	}
	want := []string{"1.5/1 k8s 1.33", "1.5/2 k8s 1.34", "1.5/3 k8s 1.35"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("passes (-want +got):\n%s", diff)
	}
	if len(rep.Findings) != 0 {
		t.Errorf("findings: %v", codes(rep.Findings))
	}
}

func TestEpicIllustrationIsReported(t *testing.T) {
	data := valuestest.ReadFile(t, "testdata/epic-illustration.yaml")
	rep, err := Values(context.Background(), ValuesInput{Plan: input(t, "1.4", "1.6"), Files: []helmengine.File{{Name: "epic-illustration.yaml", Data: data}}})
	if err != nil {
		t.Fatal(err)
	}
	got := codes(rep.Findings)
	for _, want := range []string{CodeHyphenatedField, CodeTemplateError, CodeFreshInstallTransition, CodeDigDefault, CodeSemverPrerelease, CodeSemverBranchName, CodeConditionOnGotpl} {
		if !slices.Contains(got, want) {
			t.Errorf("Values(epic illustration) codes = %v, want %s among them", got, want)
		}
	}
	var parse bool
	for _, f := range rep.Findings {
		if f.Code == CodeTemplateError && f.Subject == "values.k8s_version_short" && strings.Contains(f.Message, "bad character U+002D") {
			parse = true
		}
	}
	if !parse {
		t.Error("no parse error reported for values.k8s_version_short")
	}
	if rep.Blockers() == 0 {
		t.Error("no blocker")
	}
	// The 1.6 chart is not known to read machine_deployments_paused (the
	// catalog's hold_workers): no finding may ask to add it.
	for _, f := range rep.Findings {
		if strings.Contains(f.Subject+f.Message+f.Remediation, overlay.KeyMachineDeploymentsPaused) {
			t.Errorf("Values(epic illustration) advises %s, which the chart does not read: %s: %s", overlay.KeyMachineDeploymentsPaused, f.Subject, f.Message)
		}
	}
	var j, tb bytes.Buffer
	_ = envelope.WriteJSON(&j, rep.Document())
	_ = rep.WriteTable(&tb)
	golden.Assert(t, j.Bytes(), "check/epic-illustration.json")
	golden.Assert(t, tb.Bytes(), "check/epic-illustration.txt")
}

func TestLintRules(t *testing.T) {
	tests := []struct {
		name string
		vals string
		want []string
	}{
		{
			name: "hyphenated field access is a parse error",
			vals: `a-b: "x"` + "\n" + `c: '{{ .Values.a-b }}'`,
			want: []string{CodeHyphenatedField},
		},
		{
			name: "index on a hyphenated key is fine",
			vals: `a-b: "x"` + "\n" + `c: '{{ index .Values "a-b" }}'`,
		},
		{
			name: "a hyphen inside a string literal is fine",
			vals: `c: '{{ lookup "v1" "ConfigMap" "ns" "sylva-units-status" }}'`,
		},
		{
			name: "semverCompare without a pre-release bound is pre-release blind",
			vals: `c: '{{ "1.4" | semverCompare "<1.5" | ternary "a" "b" }}'`,
			want: []string{CodeSemverBranchName, CodeSemverPrerelease},
		},
		{
			name: "semverCompare with -0 guarded by regexMatch is fine",
			vals: `c: '{{ $v := "1.4" }}{{ if regexMatch "^[0-9]+[.][0-9]+" $v }}{{ $v | semverCompare "<1.5-0" }}{{ end }}'`,
		},
		{
			name: "a dig default for sylva_release turns a fresh install into a transition",
			vals: `c: '{{ lookup "v1" "ConfigMap" .Release.Namespace "s" | dig "data" "sylva_release" "1.4" }}'`,
			want: []string{CodeDigDefault},
		},
		{
			name: "ternary on another gotpl value",
			vals: `a: '{{ true }}'` + "\n" + `c: '{{ index .Values "a" | ternary "x" "y" }}'`,
			want: []string{CodeConditionOnGotpl},
		},
		{
			name: "if on another gotpl value",
			vals: `a: '{{ true }}'` + "\n" + `c: '{{ if .Values.a }}x{{ end }}'`,
			want: []string{CodeConditionOnGotpl},
		},
		{
			name: "reading another gotpl value without a condition",
			vals: `a: '{{ true }}'` + "\n" + `c: '{{ .Values.a }}'`,
			want: []string{CodeGotplReference},
		},
		{
			name: "reading _internal.state from a later value is fine: the chart interprets it first",
			vals: "_internal:\n  state:\n    s: '{{ true }}'\n  x: '{{ .Values._internal.state.s }}'\nc: '{{ if .Values._internal.state.s }}x{{ end }}'\nd: '{{ .Values._internal.x }}'",
		},
		{
			name: "reading _internal from _internal.state sees the raw text",
			vals: "_internal:\n  a: '{{ true }}'\n  state:\n    s: '{{ .Values._internal.a }}'",
			want: []string{CodeGotplReference},
		},
		{
			name: "ternary on a plain bool value is fine",
			vals: `a: true` + "\n" + `c: '{{ .Values.a | ternary "x" "y" }}'`,
		},
		{
			name: "an unquoted version key ending in 0 is read as another version",
			vals: "_internal:\n  k8s_version_map:\n    1.30: v1.30.11\n    \"1.31\": v1.31.8\n",
			want: []string{CodeUnquotedVersionKey},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := helmengine.File{Name: "v.yaml", Data: []byte(tt.vals)}
			vals, err := helmengine.Parse(f.Data)
			if err != nil {
				t.Fatal(err)
			}
			keys, err := lintKeys(f)
			if err != nil {
				t.Fatal(err)
			}
			got := codes(append(lintTemplates(vals), keys...))
			want := slices.Clone(tt.want)
			slices.Sort(want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("lint codes (-want +got):\n%s", diff)
			}
		})
	}
}

// GenerateFor refuses, in one line naming the chart and the fix, a chart
// that lacks what the overlay is wired to.
func TestGenerateForRefusesAChartWithoutWhatTheOverlayNeeds(t *testing.T) {
	good := func() map[string]any {
		return map[string]any{
			"cluster":                            map[string]any{"k8s_version": "{{ x }}"},
			"additional_sylva_units_status_info": map[string]any{},
			"_internal":                          map[string]any{"k8s_version_map": map[string]any{"1.32": "a", "1.33": "b"}},
		}
	}
	tests := []struct {
		name string
		edit func(map[string]any)
		want string
	}{
		{"a chart with all of it is fine", func(map[string]any) {}, ""},
		{"no cluster.k8s_version", func(v map[string]any) { delete(v["cluster"].(map[string]any), "k8s_version") }, "no cluster.k8s_version"},
		{"no status info value", func(v map[string]any) { delete(v, "additional_sylva_units_status_info") }, "no additional_sylva_units_status_info"},
		{"a pass's minor missing from the version map", func(v map[string]any) {
			delete(v["_internal"].(map[string]any)["k8s_version_map"].(map[string]any), "1.32")
		}, "_internal.k8s_version_map has no Kubernetes 1.32, which pass 1 of the hop from 1.4 sets (it maps 1.33)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := good()
			tt.edit(v)
			_, err := overlay.GenerateFor(input(t, "1.4", "1.6"), &overlay.TargetChart{Name: "test", Values: v})
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("GenerateFor: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("GenerateFor error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestUnquotedVersionKeySeverity(t *testing.T) {
	fs, err := lintKeys(helmengine.File{Name: "v.yaml", Data: []byte("m:\n  1.30: a\n  1.31: b\n")})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range fs {
		got = append(got, string(f.Severity)+" "+f.Subject)
	}
	want := []string{`blocker v.yaml:2 values.m["1.30"]`, `warning v.yaml:3 values.m["1.31"]`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestBothChecksRenderThePreReleaseOfTheHopSource: on a route of several
// hops (1.3 → 1.4 → 1.6) the offline check and the chart check render the
// same scenarios, the pre-release one included, and its status names a
// pre-release of the last hop's source (1.4-pre), the line whose
// development chart wrote it, not of the release the route starts from.
func TestBothChecksRenderThePreReleaseOfTheHopSource(t *testing.T) {
	in := input(t, "1.3", "1.6")
	plan, err := planner.Compute(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Route) < 3 {
		t.Fatalf("route %v: want several hops", plan.Route)
	}
	walk := func(o scenarioOptions) (names []string, pre map[string]string) {
		err := walkScenarios(plan, in, o, func(s planScenario) (map[string]string, map[string]string) {
			names = append(names, s.name)
			if s.kind == kindPrerelease {
				pre = s.status
			}
			return s.want, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return names, pre
	}
	offline, pre := walk(scenarioOptions{})
	chart, _ := walk(scenarioOptions{transition: true})
	if diff := cmp.Diff(offline, chart); diff != "" {
		t.Errorf("the checks render different scenarios (-offline +chart):\n%s", diff)
	}
	if pre == nil || pre[overlay.KeySylvaRelease] != "1.4-pre" {
		t.Errorf("pre-release scenario status %v, want sylva_release 1.4-pre", pre)
	}
}

// TestReportTableSaysWhatWasNotChecked: the table ends with the notes of
// what a check could not check, with or without findings.
func TestReportTableSaysWhatWasNotChecked(t *testing.T) {
	for _, findings := range [][]planner.Finding{nil, {{Severity: planner.SeverityWarning, Code: "x", Subject: "pass 1", Message: "m"}}} {
		rep := &Report{From: "1.4", To: "1.6", Findings: findings, Notes: []string{"longhorn_version: not checked; a", "b"}}
		var b bytes.Buffer
		if err := rep.WriteTable(&b); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(b.String(), "\nNot checked:\n  - longhorn_version: not checked; a\n  - b\n") {
			t.Errorf("%d findings: the table does not end with the notes:\n%s", len(findings), b.String())
		}
	}
}

// TestCheckNamesTheHopsAnotherChartRuns: a route of several chart
// upgrades simulates only the hop the chart of --to runs; the report
// names each earlier hop's passes as not checked, with the check of that
// hop, and has no such note for a route of one hop.
func TestCheckNamesTheHopsAnotherChartRuns(t *testing.T) {
	for _, tc := range []struct {
		from, to string
		want     []string
	}{
		{"1.2", "1.6", []string{
			"pass 1 (1.2 → 1.3): not checked; the chart of Sylva 1.3 runs it, not the chart of 1.6: check it with values check --from 1.2 --to 1.3 (and --chart of 1.3's sylva-units)",
			"pass 2 (1.3 → 1.4): not checked; the chart of Sylva 1.4 runs it, not the chart of 1.6: check it with values check --from 1.3 --to 1.4 (and --chart of 1.4's sylva-units)",
		}},
		{"1.4", "1.7", []string{
			"passes 1, 2 (1.4 → 1.6): not checked; the chart of Sylva 1.6 runs them, not the chart of 1.7: check them with values check --from 1.4 --to 1.6 (and --chart of 1.6's sylva-units)",
		}},
		{"1.4", "1.6", nil},
	} {
		in := input(t, tc.from, tc.to)
		in.Catalog = catalogWithLonghornCharts(t)
		rep, err := Values(context.Background(), ValuesInput{Plan: in})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, rep.Notes); diff != "" {
			t.Errorf("%s → %s: notes (-want +got):\n%s", tc.from, tc.to, diff)
		}
	}
}

// TestOverlayReadsAStatusWithoutPassKeysAsTheCommandsDo: a status that
// asks for a further pass and records no transition_from/transition_pass
// (a transition the chart ran itself) renders the pass planner.Locate
// places: pass 2 from 1.4 in 1.6, the only hop into 1.6 that takes a
// further pass. In 1.7, where a hop from 1.5 (3 passes) and one from 1.6
// (2 passes) could be in flight, Locate places none and the render fails,
// naming them and the fix, rather than take the final values (which would
// skip a Kubernetes minor after pass 1 from 1.5).
func TestOverlayReadsAStatusWithoutPassKeysAsTheCommandsDo(t *testing.T) {
	unkeyed := map[string]string{overlay.KeySylvaRelease: "", overlay.KeyAdditionalReconciliationRequired: "true"}
	for _, tc := range []struct {
		from, to string
		wantK8s  string
		wantErr  string
	}{
		{"1.4", "1.6", "1.33", ""},
		{"1.6", "1.7", "", "several passes possible: after pass 1 to 2 of 3 from 1.5; after pass 1 of 2 from 1.6: the transition in flight was started without this overlay, which cannot tell its next pass; remove the overlay"},
	} {
		in := input(t, tc.from, tc.to)
		g, err := overlay.Generate(in)
		if err != nil {
			t.Fatal(err)
		}
		data := maps.Clone(unkeyed)
		data[overlay.KeySylvaRelease] = tc.to
		vals := map[string]any{"sylva_release": tc.to, "_internal": map[string]any{"state": map[string]any{overlay.StateKey: stateTemplate(g)}}}
		res, err := helmengine.Render(context.Background(), vals, helmengine.RenderOptions{Source: helmengine.NewObjects(statusObject(helmengine.DefaultNamespace, data))})
		pos := locateStatus(t, in, data)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: render error %v, want one saying %q", tc.to, err, tc.wantErr)
			}
			if pos.PassKnown || pos.Next != nil {
				t.Errorf("%s: Locate places %q, want no pass", tc.to, pos.Summary)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.to, err)
		}
		var st map[string]string
		if err := json.Unmarshal([]byte(res.Values["_internal"].(map[string]any)["state"].(map[string]any)[overlay.StateKey].(string)), &st); err != nil {
			t.Fatal(err)
		}
		if pos.Next == nil || pos.Next.Values.K8sVersionShort != st[overlay.KeyK8sVersionShort] || st[overlay.KeyK8sVersionShort] != tc.wantK8s ||
			st[overlay.KeyTransitionPass] != strconv.Itoa(pos.Next.HopPass) || st[overlay.KeyTransitionFrom] != tc.from {
			t.Errorf("%s: the overlay renders %v; Locate says %q; want both on pass 2 from %s (Kubernetes %s)", tc.to, st, pos.Summary, tc.from, tc.wantK8s)
		}
	}
}

// TestFindingsSuggestCommandsAsTheCheckRan: a command a finding suggests
// repeats how the check was run — the program name (kubectl sylva-planner
// as the plugin) and the --catalog given — so that it runs as printed, in
// the directory the check ran in.
func TestFindingsSuggestCommandsAsTheCheckRan(t *testing.T) {
	data := valuestest.ReadFile(t, "testdata/epic-illustration.yaml")
	sel := envelope.Selection{Program: "kubectl sylva-planner", Catalog: "my catalog.yaml"}
	rep, err := Values(context.Background(), ValuesInput{Plan: input(t, "1.4", "1.6"), Files: []helmengine.File{{Name: "epic-illustration.yaml", Data: data}}, Selection: sel})
	if err != nil {
		t.Fatal(err)
	}
	suggested := 0
	for _, f := range rep.Findings {
		for _, cmd := range strings.Split(f.Remediation, "`")[1:] {
			if !strings.Contains(cmd, "sylva-planner ") {
				continue
			}
			suggested++
			if !strings.HasPrefix(cmd, "kubectl sylva-planner ") || !strings.Contains(cmd, "--catalog 'my catalog.yaml'") {
				t.Errorf("%s suggests %q, not as the check ran (kubectl sylva-planner … --catalog 'my catalog.yaml')", f.Code, cmd)
			}
		}
	}
	if suggested == 0 {
		t.Fatal("no finding suggests a command")
	}
}

// stateTemplate is the gotpl string of the overlay's pass state
// (_internal.state.release_transition).
func stateTemplate(g *overlay.Generated) string {
	state, _ := yamldoc.Dig(g.Values(), "_internal", "state", overlay.StateKey)
	return state.(string)
}
