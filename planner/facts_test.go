package planner_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/skew"
)

// scenarioFacts is the facts.yaml of a folder under testdata/: what the
// scenario decides, written by hand from its input, its name and the
// domain rules (one control-plane minor per pass, Longhorn one minor per
// pass, kubelets at most three minors behind, workers following
// cluster.k8s_version where the chart cannot hold them). The goldens say
// how a plan reads and `make golden` rewrites them; the facts say what the
// plan must decide, and nothing rewrites them.
type scenarioFacts struct {
	// Error holds what the error of a refused input must say (pieces of
	// it); a scenario with an error has no other fact.
	Error []string `json:"error"`
	// Verdict of the plan.
	Verdict planner.Verdict `json:"verdict"`
	// Route is the chain of releases, source first; empty when none is
	// planned.
	Route []string `json:"route"`
	// Start is where the cluster stands before the first pass.
	Start *stateFacts `json:"start"`
	// Passes, in order; the plan has exactly these many.
	Passes []passFacts `json:"passes"`
	// WorkerRollouts is how many passes replace the workers.
	WorkerRollouts int `json:"workerRollouts"`
	// Blockers are the codes of the plan's blocker findings.
	Blockers []string `json:"blockers"`
	// Disputed names the facts (as the test names them: "workerRollouts",
	// "pass 1 workersRoll") that the plan contradicts today, each with why
	// the fact stands. The test logs them instead of failing, and fails
	// once the plan agrees, so that the entry goes.
	Disputed []struct {
		Fact string `json:"fact"`
		Why  string `json:"why"`
	} `json:"disputed"`
}

// stateFacts is where the cluster stands: Kubernetes minors and Longhorn's
// version.
type stateFacts struct {
	ControlPlane string `json:"controlPlane"`
	Workers      string `json:"workers"`
	Longhorn     string `json:"longhorn"`
}

// passFacts is one pass: the chart it applies, what starts it and where it
// leaves the cluster.
type passFacts struct {
	Release string          `json:"release"`
	Trigger planner.Trigger `json:"trigger"`
	// ControlPlane and Workers are the Kubernetes minors once the pass has
	// reconciled; Longhorn its version.
	ControlPlane string `json:"controlPlane"`
	Workers      string `json:"workers"`
	WorkersRoll  bool   `json:"workersRoll"`
	Longhorn     string `json:"longhorn"`
}

func loadFacts(t *testing.T, dir string) scenarioFacts {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "facts.yaml"))
	if err != nil {
		t.Fatalf("every scenario states its facts beside its input: %v", err)
	}
	var f scenarioFacts
	if err := yaml.UnmarshalStrict(data, &f); err != nil {
		t.Fatalf("%s/facts.yaml: %v", dir, err)
	}
	return f
}

// factCheck gathers the facts a plan (or an error) contradicts, by name.
type factCheck struct {
	wrong map[string]string
	order []string
}

func (c *factCheck) expect(fact string, got, want any) {
	if fmt.Sprint(got) == fmt.Sprint(want) {
		return
	}
	if c.wrong == nil {
		c.wrong = map[string]string{}
	}
	c.order = append(c.order, fact)
	c.wrong[fact] = fmt.Sprintf("%s = %v, want %v", fact, got, want)
}

// report fails on every contradicted fact but the disputed ones, and on
// every disputed fact the plan no longer contradicts.
func (c *factCheck) report(t *testing.T, f scenarioFacts) {
	t.Helper()
	disputed := map[string]string{}
	for _, d := range f.Disputed {
		if d.Why == "" {
			t.Errorf("facts.yaml: disputed fact %q says no why", d.Fact)
		}
		disputed[d.Fact] = d.Why
	}
	for _, fact := range c.order {
		if why, ok := disputed[fact]; ok {
			t.Logf("disputed: %s (%s)", c.wrong[fact], why)
			continue
		}
		t.Errorf("%s (facts.yaml)", c.wrong[fact])
	}
	for fact := range disputed {
		if _, ok := c.wrong[fact]; !ok {
			t.Errorf("facts.yaml disputes %q, but the plan now agrees with it: remove it from disputed", fact)
		}
	}
}

// checkFacts compares what Compute returned with the scenario's facts.
func checkFacts(t *testing.T, f scenarioFacts, p *planner.Plan, err error) {
	t.Helper()
	var c factCheck
	if len(f.Error) > 0 && (f.Verdict != "" || f.Route != nil || f.Start != nil || f.Passes != nil || f.WorkerRollouts != 0 || f.Blockers != nil || f.Disputed != nil) {
		t.Errorf("facts.yaml states an error and other facts; a refused input has no plan")
	}
	if len(f.Error) > 0 || err != nil {
		if err == nil {
			t.Fatalf("Compute planned (verdict %s), want an error saying %q", p.Verdict, f.Error)
		}
		if len(f.Error) == 0 {
			t.Fatalf("Compute: %v; facts.yaml expects a plan", err)
		}
		for _, piece := range f.Error {
			if !strings.Contains(err.Error(), piece) {
				t.Errorf("error %q does not say %q (facts.yaml)", err, piece)
			}
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("error %q takes more than one line", err)
		}
		return
	}
	c.expect("verdict", p.Verdict, f.Verdict)
	c.expect("route", p.Route, f.Route)
	var blockers []string
	for _, fd := range p.Findings {
		if fd.Severity == planner.SeverityBlocker && !slices.Contains(blockers, fd.Code) {
			blockers = append(blockers, fd.Code)
		}
	}
	slices.Sort(blockers)
	c.expect("blockers", blockers, slices.Sorted(slices.Values(f.Blockers)))
	c.expect("passes", len(p.Passes), len(f.Passes))
	rollouts := 0
	for _, ps := range p.Passes {
		if ps.Workers.Rolls {
			rollouts++
		}
	}
	c.expect("workerRollouts", rollouts, f.WorkerRollouts)
	if f.Start != nil && len(p.Passes) > 0 {
		first := p.Passes[0]
		c.expect("start controlPlane", first.ControlPlane.From, f.Start.ControlPlane)
		c.expect("start workers", first.Workers.From, f.Start.Workers)
		if f.Start.Longhorn != "" {
			c.expect("start longhorn", longhorn(first).From, f.Start.Longhorn)
		}
	}
	for i, want := range f.Passes {
		if i >= len(p.Passes) {
			break
		}
		ps, n := p.Passes[i], fmt.Sprintf("pass %d ", i+1)
		c.expect(n+"release", ps.Release, want.Release)
		c.expect(n+"trigger", ps.Trigger, want.Trigger)
		c.expect(n+"controlPlane", ps.ControlPlane.To, want.ControlPlane)
		c.expect(n+"workers", ps.Workers.To, want.Workers)
		c.expect(n+"workersRoll", ps.Workers.Rolls, want.WorkersRoll)
		if want.Longhorn != "" {
			c.expect(n+"longhorn", longhorn(ps).To, want.Longhorn)
		}
	}
	c.report(t, f)
}

// longhorn is Longhorn's change in pass ps, zero when the pass names none.
func longhorn(ps planner.Pass) planner.ComponentChange {
	for _, cc := range ps.Components {
		if cc.Name == "longhorn" {
			return cc
		}
	}
	return planner.ComponentChange{}
}

// checkDomainRules checks, on any plan, the rules every pass must keep
// whatever the scenario: one control-plane minor at a time, Longhorn one
// minor at a time and never down, kubelets never newer than the API server
// nor more than the allowed minors behind it, each pass starting where the
// previous one ended, the last one ending where the plan does, a summary
// that counts the passes and rollouts there are, and a verdict that
// matches the blockers. A plan that breaks a pass rule must say so with
// the blocker that names it.
func checkDomainRules(t *testing.T, p *planner.Plan) {
	t.Helper()
	has := func(code string) bool {
		return slices.ContainsFunc(p.Findings, func(f planner.Finding) bool {
			return f.Code == code && f.Severity == planner.SeverityBlocker
		})
	}
	blocked := slices.ContainsFunc(p.Findings, func(f planner.Finding) bool { return f.Severity == planner.SeverityBlocker })
	if blocked && p.Verdict == planner.VerdictReady {
		t.Errorf("verdict ready with a blocker")
	}
	if !blocked && p.Verdict == planner.VerdictBlocked {
		t.Errorf("verdict blocked without a blocker")
	}
	if p.Summary.Passes != len(p.Passes) {
		t.Errorf("summary counts %d passes, the plan has %d", p.Summary.Passes, len(p.Passes))
	}
	rollouts := 0
	for _, ps := range p.Passes {
		if ps.Workers.Rolls {
			rollouts++
		}
	}
	if p.Summary.WorkerRollouts != rollouts {
		t.Errorf("summary counts %d worker rollouts, the passes roll the workers %d times", p.Summary.WorkerRollouts, rollouts)
	}
	minors := func(pass int, what, from, to string) int {
		a, errA := semver.Parse(from)
		b, errB := semver.Parse(to)
		d, err := a.MinorsTo(b)
		if err = errors.Join(errA, errB, err); err != nil {
			t.Errorf("pass %d %s %s → %s: %v", pass, what, from, to, err)
		}
		return d
	}
	for i, ps := range p.Passes {
		if ps.Index != i+1 {
			t.Errorf("pass %d has index %d", i+1, ps.Index)
		}
		if d := minors(ps.Index, "control plane", ps.ControlPlane.From, ps.ControlPlane.To); (d < 0 || d > 1) && !has(planner.CodeControlPlaneSkip) {
			t.Errorf("pass %d moves the control plane %s → %s; kube-apiserver takes one minor at a time, never back, and no %s blocker says so", ps.Index, ps.ControlPlane.From, ps.ControlPlane.To, planner.CodeControlPlaneSkip)
		}
		if d := minors(ps.Index, "workers", ps.Workers.To, ps.ControlPlane.To); d < 0 {
			t.Errorf("pass %d leaves the workers on %s, newer than the control plane's %s", ps.Index, ps.Workers.To, ps.ControlPlane.To)
		}
		cp, _ := semver.Parse(ps.ControlPlane.To) // an unparsable minor is reported above
		if d := minors(ps.Index, "kubelet lag", ps.Workers.From, ps.ControlPlane.To); d > skew.KubeletMaxLag(cp) && !has(planner.CodeKubeletSkew) {
			t.Errorf("pass %d takes the control plane to %s with workers on %s, %d minors behind, and no %s blocker says so", ps.Index, ps.ControlPlane.To, ps.Workers.From, d, planner.CodeKubeletSkew)
		}
		if lh := longhorn(ps); lh.From != "" && lh.From != "-" {
			// A patch downgrade is a downgrade too: compare whole versions.
			a, _ := semver.Parse(lh.From)
			b, _ := semver.Parse(lh.To)
			if d := minors(ps.Index, "longhorn", lh.From, lh.To); (d > 1 || b.Compare(a) < 0) && !has(planner.CodeStepSkip) {
				t.Errorf("pass %d moves longhorn %s → %s; it takes one minor at a time, never back, and no %s blocker says so", ps.Index, lh.From, lh.To, planner.CodeStepSkip)
			}
		}
		if i == 0 {
			continue
		}
		prev := p.Passes[i-1]
		if ps.ControlPlane.From != prev.ControlPlane.To || ps.Workers.From != prev.Workers.To {
			t.Errorf("pass %d starts on control plane %s, workers %s; pass %d left them on %s, %s", ps.Index, ps.ControlPlane.From, ps.Workers.From, prev.Index, prev.ControlPlane.To, prev.Workers.To)
		}
		// A pass whose release ships no Longhorn names none: nothing to
		// carry over.
		if lh, pl := longhorn(ps), longhorn(prev); lh.From != "" && pl.To != "" && lh.From != pl.To {
			t.Errorf("pass %d starts longhorn on %s; pass %d left it on %s", ps.Index, lh.From, prev.Index, pl.To)
		}
	}
	// The last pass leaves the cluster where the plan says it ends: the
	// control plane on the plan's final minor, the workers with it (no
	// chart leaves them behind at the end of a hop), Longhorn on the
	// target's version.
	if len(p.Passes) > 0 {
		last := p.Passes[len(p.Passes)-1]
		if last.ControlPlane.To != p.To.Kubernetes {
			t.Errorf("the last pass leaves the control plane on %s; the plan ends on %s", last.ControlPlane.To, p.To.Kubernetes)
		}
		if last.Workers.To != last.ControlPlane.To {
			t.Errorf("the last pass leaves the workers on %s, the control plane on %s", last.Workers.To, last.ControlPlane.To)
		}
		if lh := longhorn(last); p.To.Longhorn != "" && lh.To != p.To.Longhorn {
			t.Errorf("the last pass leaves longhorn on %q; the target ships %s", lh.To, p.To.Longhorn)
		}
	}
}
