package planner_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/internal/catalogtest"
	"gitlab.com/sylva-projects/sylva-planner/internal/golden"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/skew"
)

var asOf = time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)

// scenario is the input.yaml of a folder under testdata/.
type scenario struct {
	From     string `json:"from"`
	To       string `json:"to"`
	Provider string `json:"provider"`
	Workers  string `json:"workers"`
	Catalog  string `json:"catalog"`
	// Cluster, Kubernetes and KubernetesTo plan a workload cluster.
	Cluster      string `json:"cluster"`
	Kubernetes   string `json:"kubernetes"`
	KubernetesTo string `json:"kubernetesTo"`
}

func loadScenario(t *testing.T, dir string) planner.Input {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "input.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var s scenario
	if err := yaml.UnmarshalStrict(data, &s); err != nil {
		t.Fatalf("%s/input.yaml: %v", dir, err)
	}
	in := planner.Input{
		Catalog: catalogtest.Default(t), AsOf: asOf, ToolVersion: "test", FromSource: "flag",
		From: semver.MustParse(s.From), To: semver.MustParse(s.To), Provider: catalog.Provider(s.Provider),
	}
	if s.Workers != "" {
		in.Workers = semver.MustParse(s.Workers)
	}
	in.Cluster = planner.ClusterKind(s.Cluster)
	if s.Kubernetes != "" {
		in.Kubernetes = semver.MustParse(s.Kubernetes)
	}
	if s.KubernetesTo != "" {
		in.KubernetesTo = semver.MustParse(s.KubernetesTo)
	}
	if s.Catalog != "" {
		in.Catalog, err = catalog.LoadFile(os.DirFS(dir), s.Catalog)
		if err != nil {
			t.Fatal(err)
		}
	}
	return in
}

// TestScenarios runs every folder of testdata/: it checks the plan (or
// the error) against the facts.yaml beside its input, written by hand and
// never rewritten, and against the rules every plan keeps, then compares
// it in every format with the golden files, which -update rewrites.
func TestScenarios(t *testing.T) {
	dirs, err := filepath.Glob("testdata/*/input.yaml")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no scenario found: %v", err)
	}
	for _, in := range dirs {
		dir := filepath.Dir(in)
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			p, err := planner.Compute(loadScenario(t, dir))
			checkFacts(t, loadFacts(t, dir), p, err)
			if err != nil {
				golden.Assert(t, []byte(err.Error()+"\n"), name+"/error.txt")
				return
			}
			checkDomainRules(t, p)
			for _, f := range formats {
				var buf bytes.Buffer
				if err := f.write(p, &buf); err != nil {
					t.Fatal(err)
				}
				golden.Assert(t, buf.Bytes(), name+"/plan."+f.ext)
			}
		})
	}
}

var formats = []struct {
	ext   string
	write func(*planner.Plan, *bytes.Buffer) error
}{
	{"txt", func(p *planner.Plan, b *bytes.Buffer) error { return p.WriteTable(b) }},
	{"json", func(p *planner.Plan, b *bytes.Buffer) error { return envelope.WriteJSON(b, p.Document()) }},
	{"yaml", func(p *planner.Plan, b *bytes.Buffer) error { return envelope.WriteYAML(b, p.Document()) }},
	{"md", func(p *planner.Plan, b *bytes.Buffer) error { return p.WriteMarkdown(b) }},
}

func codes(p *planner.Plan) []string {
	var out []string
	for _, f := range p.Findings {
		out = append(out, f.Code)
	}
	return out
}

func TestComputeFindings(t *testing.T) {
	tests := []struct {
		name     string
		from, to string
		workers  string
		want     []string
		verdict  planner.Verdict
	}{
		{"an n-2 jump is ready with extra reconciliations, workers rolling on both passes (the 1.6 chart cannot hold them) and an EOL target", "1.4", "1.6", "", []string{planner.CodeExtraReconciliations, planner.CodeWorkerExtraRollout, planner.CodeEOLKubernetes, planner.CodeThinRelease}, planner.VerdictReady},
		{"an n-1 upgrade of one minor only warns that 1.33 is past its end of life", "1.5", "1.6", "", []string{planner.CodeEOLKubernetes}, planner.VerdictReady},
		// Sylva 1.4 (main) ships external-secrets 0.16.2 on Kubernetes 1.31: its project's table names
		// the minor it was tested with, which is no range, so nothing blocks.
		{"a jump past the supported sources takes several hops and is ready", "1.3", "1.6", "", []string{planner.CodeMultiHopRoute, planner.CodeWorkerExtraRollout, planner.CodeExtraReconciliations, planner.CodeEOLKubernetes, planner.CodeThinRelease}, planner.VerdictReady},
		{"the same release needs no pass", "1.6", "1.6", "", []string{planner.CodeSameRelease}, planner.VerdictReady},
		{"workers lagging too far for a three-minor hop block it", "1.5", "1.7", "1.29", []string{planner.CodeKubeletSkew, planner.CodeWorkerExtraRollout, planner.CodeExtraReconciliations}, planner.VerdictBlocked},
		{"workers lagging the control plane roll early", "1.4", "1.6", "1.29", []string{planner.CodeWorkerExtraRollout, planner.CodeExtraReconciliations, planner.CodeEOLKubernetes, planner.CodeThinRelease}, planner.VerdictReady},
		{"the n-1 hop to 1.7 rolls the workers on both passes: its chart is not known to hold them", "1.6", "1.7", "", []string{planner.CodeExtraReconciliations, planner.CodeWorkerExtraRollout, planner.CodeThinRelease}, planner.VerdictReady},
		{"development builds on both ends are planned as their releases, and said so", "1.5-pre", "1.6-pre", "", []string{planner.CodePrereleaseSource, planner.CodePrereleaseTarget, planner.CodeEOLKubernetes}, planner.VerdictReady},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := planner.Input{Catalog: catalogtest.Default(t), From: semver.MustParse(tt.from), To: semver.MustParse(tt.to), AsOf: asOf}
			if tt.workers != "" {
				in.Workers = semver.MustParse(tt.workers)
			}
			p, err := planner.Compute(in)
			if err != nil {
				t.Fatal(err)
			}
			got := codes(p)
			slices.Sort(got)
			want := slices.Clone(tt.want)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("Compute(%s → %s) codes = %v, want %v", tt.from, tt.to, got, want)
			}
			if p.Verdict != tt.verdict {
				t.Errorf("Compute(%s → %s) verdict = %s, want %s", tt.from, tt.to, p.Verdict, tt.verdict)
			}
		})
	}
}

func TestComputeRefusesBadInput(t *testing.T) {
	tests := []struct {
		name, from, to string
		want           error
	}{
		{"a downgrade", "1.6", "1.4", planner.ErrDowngrade},
		{"a target before the catalog", "1.4", "0.9", planner.ErrUnknownRelease},
		{"a source before the catalog", "0.9", "1.6", planner.ErrUnknownRelease},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := planner.Compute(planner.Input{Catalog: catalogtest.Default(t), From: semver.MustParse(tt.from), To: semver.MustParse(tt.to)})
			if !errors.Is(err, tt.want) {
				t.Fatalf("Compute(%s → %s) error = %v, want %v", tt.from, tt.to, err, tt.want)
			}
			var ie *planner.InputError
			if !errors.As(err, &ie) || ie.Field == "" {
				t.Errorf("error %v does not name the input field", err)
			}
		})
	}
}

func TestSameInputsGiveTheSameBytes(t *testing.T) {
	cat := catalogtest.Default(t)
	for _, pair := range [][2]string{{"1.4", "1.6"}, {"1.2", "1.7"}, {"1.6", "1.7"}} {
		var outs [2][]byte
		for i := range outs {
			p, err := planner.Compute(planner.Input{Catalog: cat, From: semver.MustParse(pair[0]), To: semver.MustParse(pair[1]), AsOf: asOf})
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			for _, f := range formats {
				if err := f.write(p, &buf); err != nil {
					t.Fatal(err)
				}
			}
			outs[i] = buf.Bytes()
		}
		if !bytes.Equal(outs[0], outs[1]) {
			t.Errorf("plan %s → %s rendered twice differs", pair[0], pair[1])
		}
	}
}

// TestInvariantsHoldForEveryPairOfReleases plans every upgrade the catalog
// allows and checks the rules no plan may break.
func TestInvariantsHoldForEveryPairOfReleases(t *testing.T) {
	cat := catalogtest.Default(t)
	lh, _ := cat.Component("longhorn")
	for i, from := range cat.Releases {
		for _, to := range cat.Releases[i:] {
			name := from.Release.String() + "→" + to.Release.String()
			t.Run(name, func(t *testing.T) {
				p, err := planner.Compute(planner.Input{Catalog: cat, From: from.Release, To: to.Release, AsOf: asOf})
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range p.Findings {
					// The gate's judgements of the add-on versions a release
					// ships (end of life, Kubernetes range of a component
					// that jumps) are facts about the releases, not flaws of
					// the plan; every other blocker is.
					if f.Severity == planner.SeverityBlocker && !shippedAddOnJudgement(cat, f) {
						t.Errorf("blocker on the embedded catalog: %+v", f)
					}
				}
				cp := from.Kubernetes.Management
				workers := cp
				lhVersion, _ := from.Component("longhorn")
				curLH := lhVersion.Version
				for _, ps := range p.Passes {
					next := semver.MustParse(ps.ControlPlane.To)
					if v := skew.ControlPlaneStep(cp, next); v != nil {
						t.Errorf("pass %d: %s", ps.Index, v.Message)
					}
					if semver.MustParse(ps.ControlPlane.From).CompareMinor(cp) != 0 {
						t.Errorf("pass %d starts the control plane on %s, previous pass left %s", ps.Index, ps.ControlPlane.From, cp.Short())
					}
					// kubelets are checked against the oldest and the newest API server of the pass
					for _, api := range []semver.Version{cp, next} {
						if v := skew.KubeletSkew(api, workers); v != nil {
							t.Errorf("pass %d: %s", ps.Index, v.Message)
						}
					}
					if ps.Workers.Rolls {
						workers = semver.MustParse(ps.Workers.To)
						if workers.CompareMinor(next) > 0 {
							t.Errorf("pass %d: workers %s newer than the control plane %s", ps.Index, workers.Short(), next.Short())
						}
					}
					cp = next
					for _, c := range ps.Components {
						if c.Name != "longhorn" {
							continue
						}
						nv := semver.MustParse(c.To)
						if v := skew.MinorStep("longhorn", curLH, nv); v != nil {
							t.Errorf("pass %d: %s", ps.Index, v.Message)
						}
						for _, ver := range []semver.Version{curLH, nv} {
							cv, ok := lh.Version(ver)
							if !ok {
								t.Errorf("pass %d: longhorn %s not in the catalog", ps.Index, ver)
								continue
							}
							for _, k := range []semver.Version{semver.MustParse(ps.ControlPlane.From), next} {
								if !cv.Kubernetes().Contains(k) {
									t.Errorf("pass %d: longhorn %s live on Kubernetes %s outside %s", ps.Index, ver, k.Short(), cv.Kubernetes())
								}
							}
						}
						curLH = nv
						if ps.Values.LonghornVersion != c.To {
							t.Errorf("pass %d: longhorn_version %s, component says %s", ps.Index, ps.Values.LonghornVersion, c.To)
						}
					}
					if ps.Values.K8sVersionShort != ps.ControlPlane.To {
						t.Errorf("pass %d: k8s_version_short %s, control plane goes to %s", ps.Index, ps.Values.K8sVersionShort, ps.ControlPlane.To)
					}
					last := ps.HopPass == ps.HopPasses
					if ps.Values.TransitionFromN2 == last || ps.RequestsAnotherPass == last || ps.ExpectedStatus.AdditionalReconciliationRequired != map[bool]string{true: "false", false: "true"}[last] {
						t.Errorf("pass %d (%d of %d): transition flag, request and expected status disagree with being last", ps.Index, ps.HopPass, ps.HopPasses)
					}
					if ps.Workers.Paused == ps.Workers.Rolls {
						t.Errorf("pass %d: workers paused=%v rolls=%v", ps.Index, ps.Workers.Paused, ps.Workers.Rolls)
					}
				}
				if len(p.Passes) > 0 {
					if cp.CompareMinor(to.Kubernetes.Management) != 0 || workers.CompareMinor(to.Kubernetes.Management) != 0 {
						t.Errorf("the last pass leaves control plane %s and workers %s, target runs %s", cp.Short(), workers.Short(), to.Kubernetes.Management.Short())
					}
					if target, _ := to.Component("longhorn"); !curLH.Equal(target.Version) {
						t.Errorf("the last pass leaves longhorn %s, target ships %s", curLH, target.Version)
					}
				}
				crossed, _ := from.Kubernetes.Management.MinorsTo(to.Kubernetes.Management)
				if len(p.Passes) < crossed {
					t.Errorf("%d passes for %d Kubernetes minors crossed", len(p.Passes), crossed)
				}
				if p.Route[0] != from.Release.String() || p.Route[len(p.Route)-1] != to.Release.String() {
					t.Errorf("route %v does not go from %s to %s", p.Route, from.Release, to.Release)
				}
			})
		}
	}
}

// shippedAddOnJudgement reports a finding about an add-on version a release
// ships: its end of life, or the Kubernetes range of a component that jumps
// (a stepped component's range is the planner's to respect).
func shippedAddOnJudgement(cat *catalog.Catalog, f planner.Finding) bool {
	comp, ok := cat.Component(f.Subject)
	switch {
	case f.Code == planner.CodeEOLComponent:
		return true
	case f.Code == planner.CodeComponentK8sRange && ok:
		return comp.Stepping != catalog.SteppingMinor
	}
	return false
}

func TestScore(t *testing.T) {
	tests := []struct{ blockers, warnings, want int }{
		{0, 0, 100}, {1, 0, 75}, {0, 1, 95}, {3, 4, 5}, {4, 0, 25}, {10, 10, 5},
	}
	for _, tt := range tests {
		if got := planner.Score(tt.blockers, tt.warnings); got != tt.want {
			t.Errorf("Score(%d, %d) = %d, want %d", tt.blockers, tt.warnings, got, tt.want)
		}
	}
}

func BenchmarkComputeAllPairs(b *testing.B) {
	cat := catalogtest.Default(b)
	var pairs [][2]semver.Version
	for i, from := range cat.Releases {
		for _, to := range cat.Releases[i:] {
			pairs = append(pairs, [2]semver.Version{from.Release, to.Release})
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, pr := range pairs {
			if _, err := planner.Compute(planner.Input{Catalog: cat, From: pr[0], To: pr[1], AsOf: asOf}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(pairs)), "pairs/op")
}

func BenchmarkCompute14To16(b *testing.B) {
	cat := catalogtest.Default(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := planner.Compute(planner.Input{Catalog: cat, From: semver.MustParse("1.4"), To: semver.MustParse("1.6"), AsOf: asOf}); err != nil {
			b.Fatal(err)
		}
	}
}
