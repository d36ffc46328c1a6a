package planner_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/internal/catalogtest"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
)

const gateCatalog = `apiVersion: planner.sylva/v1alpha1
kind: ComponentCatalog
catalogVersion: "gate"
updated: "2026-01-01"
kubernetes:
  - {minor: "1.33", end_of_life: "2027-06-28"}
components:
  - name: gadget
    versions:
      - {version: "1.0", max_k8s: "1.32"}
  - name: kyverno
    versions:
      - {version: "1.13", min_k8s: "1.28", max_k8s: "1.31"}
      - {version: "1.16", min_k8s: "1.31", max_k8s: "1.34", end_of_life: "2026-08-20"}
      - {version: "1.17", min_k8s: "1.32", max_k8s: "1.35"}
  - name: longhorn
    stepping: minor
    versions:
      - {version: "1.8.1", min_k8s: "1.25"}
      - {version: "1.9.2", min_k8s: "1.25"}
  - name: widget
    pinned: true
    pin_reason: "2.0 breaks the telco CNI; see the release notes"
    versions:
      - {version: "1.0", max_k8s: "1.31"}
      - {version: "2.0", max_k8s: "1.34"}
---
apiVersion: planner.sylva/v1alpha1
kind: ReleaseCatalog
catalogVersion: "gate"
updated: "2026-01-01"
releases:
  - release: "1.4"
    kubernetes:
      management: "1.31"
      versions:
        - {minor: "1.31", kubeadm: "v1.31.8", rke2: "v1.31.8+rke2r1"}
    components: [{name: longhorn, version: "1.8.1"}]
  - release: "1.6"
    upgrade_from: ["1.4"]
    kubernetes:
      management: "1.33"
      versions:
        - {minor: "1.32", kubeadm: "v1.32.9", rke2: "v1.32.9+rke2r1"}
        - {minor: "1.33", kubeadm: "v1.33.5", rke2: "v1.33.5+rke2r1"}
    components: [{name: longhorn, version: "1.9.2"}]
`

func gateCat(t *testing.T) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.LoadFile(fstest.MapFS{"c.yaml": {Data: []byte(gateCatalog)}}, "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

func running(pairs ...string) *planner.Observed {
	o := &planner.Observed{Source: "test manifests"}
	for i := 0; i < len(pairs); i += 2 {
		v, _ := semver.Parse(pairs[i+1])
		o.Components = append(o.Components, planner.ObservedComponent{Name: pairs[i], Raw: pairs[i+1], Version: v, Where: "image"})
	}
	return o
}

func day(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

func blockerClasses(p *planner.Plan) []string {
	var out []string
	for _, f := range p.Findings {
		if f.Severity == planner.SeverityBlocker {
			out = append(out, f.Code+"/"+string(f.Class))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func TestGateClassifiesBlockers(t *testing.T) {
	tests := []struct {
		name     string
		observed *planner.Observed
		workers  string
		asOf     string
		want     []string
		verdict  planner.Verdict
	}{
		{
			"a component no released version supports waits on upstream, so the upgrade is held",
			running("gadget", "1.0.4"), "", "2026-11-30",
			[]string{"component-k8s-range/waiting"},
			planner.VerdictHeld,
		},
		{
			"a component a newer version fixes is actionable",
			running("kyverno", "1.13.4"), "", "2026-11-30",
			[]string{"component-k8s-range/actionable"},
			planner.VerdictBlocked,
		},
		{
			"a pinned component holds the upgrade",
			running("widget", "1.0.2"), "", "2026-11-30",
			[]string{"component-k8s-range/pinned"},
			planner.VerdictHeld,
		},
		{
			"held wins over actionable",
			running("kyverno", "1.13.4", "gadget", "1.0.0"), "", "2026-11-30",
			[]string{"component-k8s-range/actionable", "component-k8s-range/waiting"},
			planner.VerdictHeld,
		},
		{
			"kubelet skew is actionable",
			nil, "1.27", "2026-11-30",
			[]string{"kubelet-skew/actionable"},
			planner.VerdictBlocked,
		},
		{
			"an unreadable running version is actionable",
			running("kyverno", "latest"), "", "2026-11-30",
			[]string{"component-version-unreadable/actionable"},
			planner.VerdictBlocked,
		},
		{
			"a running version below the catalog is actionable",
			running("kyverno", "1.10.2"), "", "2026-11-30",
			[]string{"component-version-below-catalog/actionable"},
			planner.VerdictBlocked,
		},
		{
			"a component supported everywhere passes",
			running("kyverno", "1.16.0"), "", "2026-01-01", nil, planner.VerdictReady,
		},
		{
			"the day before its end of life a component only warns",
			running("kyverno", "1.16.0"), "", "2026-08-19", nil, planner.VerdictReady,
		},
		{
			"on its end-of-life day a component blocks, and a newer version makes it actionable",
			running("kyverno", "1.16.0"), "", "2026-08-20",
			[]string{"eol-component/actionable"},
			planner.VerdictBlocked,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := planner.Input{Catalog: gateCat(t), From: semver.MustParse("1.4"), To: semver.MustParse("1.6"), AsOf: day(tt.asOf), Observed: tt.observed}
			if tt.workers != "" {
				in.Workers = semver.MustParse(tt.workers)
			}
			p, err := planner.Compute(in)
			if err != nil {
				t.Fatal(err)
			}
			if got := blockerClasses(p); !slices.Equal(got, tt.want) {
				t.Errorf("Compute blockers = %v, want %v", got, tt.want)
			}
			if p.Verdict != tt.verdict {
				t.Errorf("Compute verdict = %s, want %s", p.Verdict, tt.verdict)
			}
		})
	}
}

func TestEndOfLifeWarnsWithinNinetyDays(t *testing.T) {
	p, err := planner.Compute(planner.Input{Catalog: gateCat(t), From: semver.MustParse("1.4"), To: semver.MustParse("1.6"), AsOf: day("2026-06-01"), Observed: running("kyverno", "1.16.0")})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(codes(p), planner.CodeEOLApproaching) {
		t.Errorf("codes = %v, want %s", codes(p), planner.CodeEOLApproaching)
	}
	if p.Score != 90 { // eol-approaching and worker-extra-rollout
		t.Errorf("score = %d, want 90", p.Score)
	}
}

func TestActionableFindingNamesTheVersionToUpgradeTo(t *testing.T) {
	p, err := planner.Compute(planner.Input{Catalog: gateCat(t), From: semver.MustParse("1.4"), To: semver.MustParse("1.6"), AsOf: day("2026-11-30"), Observed: running("kyverno", "1.13.4")})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range p.Findings {
		if f.Code == planner.CodeComponentK8sRange && f.Remediation != "upgrade kyverno to ≥ 1.16" {
			t.Errorf("remediation = %q, want %q", f.Remediation, "upgrade kyverno to ≥ 1.16")
		}
	}
}

func TestUnknownRunningVersionMakesTheCheckPartialAndTheVerdictUnknown(t *testing.T) {
	p, err := planner.Compute(planner.Input{Catalog: gateCat(t), From: semver.MustParse("1.4"), To: semver.MustParse("1.6"), AsOf: day("2026-11-30"), Observed: running("kyverno", "1.14.2")})
	if err != nil {
		t.Fatal(err)
	}
	if p.Verdict != planner.VerdictUnknown {
		t.Errorf("verdict = %s, want unknown", p.Verdict)
	}
	if !slices.Contains(codes(p), planner.CodeVersionUnknown) {
		t.Errorf("codes = %v, want %s", codes(p), planner.CodeVersionUnknown)
	}
}

func TestSuppressionsAndBaseline(t *testing.T) {
	base := planner.Input{Catalog: gateCat(t), From: semver.MustParse("1.4"), To: semver.MustParse("1.6"), AsOf: day("2026-11-30"), Observed: running("kyverno", "1.13.4")}

	t.Run("a live suppression silences the blocker and the score ignores it", func(t *testing.T) {
		in := base
		in.Suppressions = []planner.Suppression{{Code: planner.CodeComponentK8sRange, Subject: "kyverno", Reason: "kyverno upgrade scheduled", Expires: day("2026-12-31")}}
		p, err := planner.Compute(in)
		if err != nil {
			t.Fatal(err)
		}
		if p.Verdict != planner.VerdictReady || len(p.Suppressed) == 0 {
			t.Errorf("verdict = %s, suppressed = %d; want ready and some suppressed", p.Verdict, len(p.Suppressed))
		}
		if p.Score != 95 {
			t.Errorf("score = %d, want 95 (one kubeadm warning)", p.Score)
		}
	})
	t.Run("an expired suppression no longer applies and is reported", func(t *testing.T) {
		in := base
		in.Suppressions = []planner.Suppression{{Code: planner.CodeComponentK8sRange, Subject: "*", Reason: "old", Expires: day("2026-11-30")}}
		p, err := planner.Compute(in)
		if err != nil {
			t.Fatal(err)
		}
		if p.Verdict != planner.VerdictBlocked || !slices.Contains(codes(p), planner.CodeSuppressionExpired) {
			t.Errorf("verdict = %s, codes = %v; want blocked with %s", p.Verdict, codes(p), planner.CodeSuppressionExpired)
		}
	})
	t.Run("a finding the baseline had is marked", func(t *testing.T) {
		first, err := planner.Compute(base)
		if err != nil {
			t.Fatal(err)
		}
		in := base
		in.Baseline = first.Findings
		p, err := planner.Compute(in)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range p.Findings {
			if !f.InBaseline {
				t.Errorf("finding %s (%s) not marked as in the baseline", f.Code, f.Subject)
			}
		}
	})
}

// TestTargetPastTheHorizonIsUnknown: every release after the catalog's
// newest is judged the same way, whatever its digits (1.10 and 1.40, which
// a YAML number would have read as releases the catalog has, are 1.10 and
// 1.40 once typed): verdict unknown, the kb-stale finding in the words
// every command uses.
func TestTargetPastTheHorizonIsUnknown(t *testing.T) {
	cat := catalogtest.Default(t)
	for _, to := range []string{"1.8", "1.9", "1.10", "1.40"} {
		p, err := planner.Compute(planner.Input{Catalog: cat, From: semver.MustParse("1.6"), To: semver.MustParse(to), AsOf: asOf})
		if err != nil {
			t.Fatalf("%s: %v", to, err)
		}
		if p.Verdict != planner.VerdictUnknown || !slices.Contains(codes(p), planner.CodeKBStale) {
			t.Errorf("%s: verdict = %s codes = %v, want unknown with kb-stale", to, p.Verdict, codes(p))
		}
		if want := cat.PastNewest(semver.MustParse(to)); !slices.ContainsFunc(p.Findings, func(f planner.Finding) bool { return f.Message == want }) {
			t.Errorf("%s: findings %+v, want one saying %q", to, p.Findings, want)
		}
	}
}

func TestTargetBelowTheCatalogIsRefused(t *testing.T) {
	_, err := planner.Compute(planner.Input{Catalog: catalogtest.Default(t), From: semver.MustParse("0.4"), To: semver.MustParse("0.9"), AsOf: asOf})
	if !errors.Is(err, planner.ErrUnknownRelease) {
		t.Fatalf("error = %v, want ErrUnknownRelease", err)
	}
}

func TestJudgePassesSeesEveryPassTargetAndJoinsTheVerdict(t *testing.T) {
	var got []planner.PassTarget
	obs := running()
	obs.JudgePasses = func(targets []planner.PassTarget) ([]planner.Finding, []planner.Check) {
		got = targets
		return []planner.Finding{{Code: "judged", Severity: planner.SeverityBlocker, Class: planner.ClassActionable, Subject: "api"}},
			[]planner.Check{{Name: "judge", Required: true, Status: planner.CheckAssessed}}
	}
	p, err := planner.Compute(planner.Input{Catalog: catalogtest.Default(t), From: semver.MustParse("1.4"), To: semver.MustParse("1.6"), AsOf: day("2026-11-30"), Observed: obs})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || len(got) != len(p.Passes) {
		t.Fatalf("judge saw %d targets, plan has %d passes", len(got), len(p.Passes))
	}
	for i, ps := range p.Passes {
		if got[i].Pass != ps.Index || got[i].ControlPlane.Short() != ps.ControlPlane.To {
			t.Errorf("target %d = pass %d %s, want pass %d %s", i, got[i].Pass, got[i].ControlPlane.Short(), ps.Index, ps.ControlPlane.To)
		}
	}
	if !slices.ContainsFunc(p.Findings, func(f planner.Finding) bool { return f.Code == "judged" }) {
		t.Errorf("findings %v lack the judged one", p.Findings)
	}
	if last := p.Checks[len(p.Checks)-1]; last.Name != "judge" {
		t.Errorf("last check = %s, want the judge's check after the observed ones", last.Name)
	}
	if p.Verdict != planner.VerdictBlocked {
		t.Errorf("verdict = %s, want blocked by the judged blocker", p.Verdict)
	}
}

func TestTargetsOfAPlanWithoutPassesAreNone(t *testing.T) {
	p, err := planner.Compute(planner.Input{Catalog: catalogtest.Default(t), From: semver.MustParse("1.6"), To: semver.MustParse("1.6"), AsOf: day("2026-11-30")})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Targets(); len(got) != 0 {
		t.Errorf("Targets() = %v, want none", got)
	}
}

func TestGateOutcomeExitCodes(t *testing.T) {
	tests := []struct {
		name    string
		outcome planner.GateOutcome
		want    int
	}{
		{"a gate that passes exits 0", planner.GatePass, 0},
		{"a gate that fails exits 2", planner.GateFail, 2},
		{"a gate that holds exits 4", planner.GateHeld, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.outcome.ExitCode(); got != tt.want {
				t.Errorf("%s.ExitCode() = %d, want %d", tt.outcome, got, tt.want)
			}
		})
	}
}

// TestOverlayUnavailableBlocksAPlanNotStarted: Input.Overlay's error
// becomes an overlay-unavailable blocker before the transition starts (its
// first step cannot run: blocked, and Next says what to give values
// generate), a warning once a pass is done (the helper values in place
// were written already); it is asked with the plan's own input, without
// status, inventory, suppressions or baseline, and not for a plan with no
// pass.
func TestOverlayUnavailableBlocksAPlanNotStarted(t *testing.T) {
	var asked []planner.Input
	overlay := func(err error) func(planner.Input, *planner.Plan) error {
		return func(in planner.Input, _ *planner.Plan) error { asked = append(asked, in); return err }
	}
	in := planner.Input{Catalog: catalogtest.Default(t), From: semver.MustParse("1.4"), To: semver.MustParse("1.6"), AsOf: day("2026-11-30"), Observed: running()}
	in.Overlay = overlay(errors.New("no chart version for Longhorn 9.9"))
	p, err := planner.Compute(in)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(p.Findings, func(f planner.Finding) bool { return f.Code == planner.CodeOverlayUnavailable })
	if i < 0 || p.Findings[i].Severity != planner.SeverityBlocker || !strings.HasSuffix(p.Findings[i].Message, "no chart version for Longhorn 9.9") {
		t.Fatalf("findings %+v, want an overlay-unavailable blocker with the error", p.Findings)
	}
	if p.Verdict != planner.VerdictBlocked || !strings.HasPrefix(p.Next, "the helper values cannot be written yet: give values generate what the overlay-unavailable finding names") {
		t.Errorf("verdict %s, next %q; want blocked, and the fix", p.Verdict, p.Next)
	}
	mid := in
	mid.Progress = &planner.TransitionState{Found: true, Installed: semver.MustParse("1.6"), Pending: true, TransitionFrom: "1.4", TransitionPass: "1"}
	pm, err := planner.Compute(mid)
	if err != nil {
		t.Fatal(err)
	}
	if i := slices.IndexFunc(pm.Findings, func(f planner.Finding) bool { return f.Code == planner.CodeOverlayUnavailable }); i < 0 || pm.Findings[i].Severity != planner.SeverityWarning {
		t.Errorf("after pass 1: findings %+v, want an overlay-unavailable warning", pm.Findings)
	}
	asked = asked[:1]
	if len(asked) != 1 || asked[0].Observed != nil || asked[0].Overlay != nil || asked[0].From.Short() != "1.4" {
		t.Errorf("asked %d times (%+v), want once with the plan's own input only", len(asked), asked)
	}
	in.Overlay = overlay(nil)
	if p, _ = planner.Compute(in); slices.ContainsFunc(p.Findings, func(f planner.Finding) bool { return f.Code == planner.CodeOverlayUnavailable }) {
		t.Error("overlay-unavailable without an error")
	}
	asked = nil
	in.From, in.Overlay = semver.MustParse("1.6"), overlay(errors.New("x"))
	if _, err := planner.Compute(in); err != nil || len(asked) != 0 {
		t.Errorf("a plan with no pass asked for its overlay %d times (%v)", len(asked), err)
	}
}
