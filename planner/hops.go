package planner

import (
	"fmt"
	"strings"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/semver"
)

// planHop appends the passes of one chart upgrade to release to, in five
// named steps: how many control-plane minors the hop climbs, which
// components step and which jump, how many passes the hop needs and in which
// pass each component step goes, then each pass (control plane, components,
// workers, values and expected status).
//
// The hop ends the control plane on kp.hopTarget: the management minor of
// to for the management cluster; for a workload cluster, its own minor
// while it can keep it, else towards final (next is the release of the
// route's following hop, nil for the last).
func planHop(cat *catalog.Catalog, c *candidate, st *state, to, next *catalog.Release, provider catalog.Provider, kp kubePath, final semver.Version) {
	h := &hop{cat: cat, c: c, to: to, provider: provider, rel: to.Release.String(), from: st.release, cpFrom: st.cp}
	st.release = to.Release
	h.splitComponents(st)
	free := 1
	for _, s := range h.stepped {
		free = max(free, len(s.steps))
	}
	h.cpTo = kp.hopTarget(st.cp, to, next, final, free)
	h.countMinors()
	h.placeSteps(st)
	for i := 1; i <= h.n; i++ {
		h.planPass(st, i)
	}
	h.workerRollouts()
}

// workerRollouts warns when the workers roll more than once in the hop
// because its chart cannot hold them, naming the passes.
func (h *hop) workerRollouts() {
	if h.to.HoldsWorkers() {
		return
	}
	var passes, minors []string
	for _, ps := range h.c.passes[len(h.c.passes)-h.n:] {
		if ps.Workers.Rolls {
			if len(minors) == 0 {
				minors = append(minors, ps.Workers.From)
			}
			passes = append(passes, fmt.Sprint(ps.Index))
			minors = append(minors, ps.Workers.To)
		}
	}
	if len(passes) < 2 {
		return
	}
	why := fmt.Sprintf("the %s chart is not known to hold the MachineDeployments back (catalog capability hold_workers unknown: assumed absent)", h.rel)
	if c := h.to.Capabilities; c != nil && c.HoldWorkers != nil {
		why = fmt.Sprintf("the %s chart cannot hold the MachineDeployments back (catalog capability hold_workers false, from %s)", h.rel, c.HoldWorkers.Source)
	}
	h.add(Finding{
		Code: CodeWorkerExtraRollout, Severity: SeverityWarning, Subject: h.rel,
		Message: fmt.Sprintf("%s: the workers follow cluster.k8s_version and roll in passes %s (%s), %d drains of every node instead of one",
			why, strings.Join(passes, ", "), strings.Join(minors, " → "), len(passes)),
		Remediation: fmt.Sprintf("plan for %d worker rollouts: spare capacity and PodDisruptionBudgets that let every node drain, once per rollout", len(passes)),
	})
}

// hop is the plan of one chart upgrade while it is built.
type hop struct {
	cat      *catalog.Catalog
	c        *candidate
	to       *catalog.Release
	provider catalog.Provider
	rel      string
	// from is the release the hop starts from; cpFrom and cpTo the
	// control-plane minors before and after it.
	from, cpFrom, cpTo semver.Version
	// minors is how many control-plane minors the hop climbs.
	minors int
	// stepped are the components that go minor by minor, with their steps;
	// jumps the others, with the version they jump to in the first pass.
	stepped []steppedComponent
	jumps   map[string]semver.Version
	// n is the number of passes; stepAt the pass of each step of each
	// stepped component.
	n      int
	stepAt map[string][]int
}

type steppedComponent struct {
	name  string
	steps []semver.Version
}

func (h *hop) add(f ...Finding) { h.c.findings = append(h.c.findings, f...) }

// countMinors counts the control-plane minors of the hop; a downgrade or an
// unplannable change is a blocker and counts as none.
func (h *hop) countMinors() {
	minors, err := h.cpFrom.MinorsTo(h.cpTo)
	if err != nil || minors < 0 {
		h.add(Finding{
			Code: CodeControlPlaneSkip, Severity: SeverityBlocker, Class: ClassActionable, Subject: h.rel,
			Message: fmt.Sprintf("control plane %s → %s cannot be planned minor by minor", h.cpFrom.Short(), h.cpTo.Short()),
		})
		minors = 0
	}
	h.minors = minors
}

// splitComponents sorts the target's components into stepped ones (with
// the versions each passes through, one minor per pass) and jumps.
func (h *hop) splitComponents(st *state) {
	h.jumps = map[string]semver.Version{}
	for _, rc := range h.to.Components {
		comp, _ := h.cat.Component(rc.Name)
		cur, had := st.components[rc.Name]
		if comp == nil || comp.Stepping != catalog.SteppingMinor || !had {
			h.jumps[rc.Name] = rc.Version
			continue
		}
		steps, fs := componentSteps(h.cat, h.to, comp, cur, rc.Version)
		h.add(fs...)
		h.stepped = append(h.stepped, steppedComponent{rc.Name, steps})
	}
}

// cpAt is the control plane after pass i of the hop.
func (h *hop) cpAt(i int) semver.Version {
	if h.minors == 0 {
		return h.cpTo.MinorOnly()
	}
	return h.cpFrom.AddMinor(min(i, h.minors))
}

// placeSteps decides the number of passes and the pass of each component
// step. The hop needs a pass per control-plane minor and per component
// step; a step goes in the earliest pass where both its versions support
// both control-plane minors of the pass, adding passes (the control plane
// staying put) when no placement fits.
func (h *hop) placeSteps(st *state) {
	n := max(h.minors, 1)
	for _, s := range h.stepped {
		n = max(n, len(s.steps))
	}
	h.stepAt = map[string][]int{}
	for extra := 0; ; extra++ {
		ok := true
		for _, s := range h.stepped {
			cps := make([]semver.Version, n+extra+1)
			for i := range cps {
				cps[i] = h.cpAt(i)
			}
			at, fits := placeSteps(h.cat, s.name, st.components[s.name], s.steps, cps)
			h.stepAt[s.name] = at
			ok = ok && fits
		}
		if ok || extra == len(h.stepped)+2 {
			if ok {
				n += extra
			} else {
				for _, s := range h.stepped {
					h.stepAt[s.name] = defaultPlacement(len(s.steps))
				}
			}
			break
		}
	}
	h.n = n
	if n > 1 {
		h.add(Finding{
			Code: CodeExtraReconciliations, Severity: SeverityInfo, Subject: h.rel,
			Message:     fmt.Sprintf("the hop to %s reconciles sylva-units %d times; each pass after the first starts when the status ConfigMap says additional_reconciliation_required: \"true\"", h.rel, n),
			Remediation: "make sure something requests the extra reconciliations: sylva-units-operator, or `sylva-planner reconcile`/`controller`",
		})
	}
}

// componentSteps returns the versions a minor-stepped component goes
// through from cur to target, one minor per step, the target last. An
// intermediate minor takes the version the target release passes through,
// else the newest version of that minor a release of the catalog ships,
// else the newest the component catalog knows.
func componentSteps(cat *catalog.Catalog, to *catalog.Release, comp *catalog.Component, cur, target semver.Version) ([]semver.Version, []Finding) {
	if target.Compare(cur) <= 0 {
		return nil, nil
	}
	var steps []semver.Version
	var findings []Finding
	for m := cur.Minor + 1; m < target.Minor && cur.Major == target.Major; m++ {
		minor := semver.Version{Major: cur.Major, Minor: m}
		v, ok := intermediate(cat, to, comp, minor)
		if !ok {
			findings = append(findings, Finding{
				Code: CodeMissingStepVersion, Severity: SeverityBlocker, Class: ClassActionable, Subject: to.Release.String(),
				Message:     fmt.Sprintf("%s must pass through %s on its way from %s to %s, and the catalog knows no %s version", comp.Name, minor.Short(), cur, target, minor.Short()),
				Remediation: fmt.Sprintf("add a pass_through entry for %s %s to release %s in the catalog", comp.Name, minor.Short(), to.Release),
			})
			continue
		}
		steps = append(steps, v)
	}
	return append(steps, target), findings
}

func intermediate(cat *catalog.Catalog, to *catalog.Release, comp *catalog.Component, minor semver.Version) (semver.Version, bool) {
	for _, pt := range to.PassThrough {
		if pt.Name == comp.Name && pt.Version.CompareMinor(minor) == 0 {
			return pt.Version, true
		}
	}
	var best semver.Version
	for _, r := range cat.Releases {
		if rc, ok := r.Component(comp.Name); ok && rc.Version.CompareMinor(minor) == 0 && rc.Version.Compare(best) > 0 {
			best = rc.Version
		}
	}
	if !best.IsZero() {
		return best, true
	}
	for _, cv := range comp.Versions {
		if cv.Version.CompareMinor(minor) == 0 {
			best = cv.Version
		}
	}
	return best, !best.IsZero()
}

// placeSteps places the steps of a minor-stepped component in passes
// 1..len(cps)-1, in order, at most one per pass, so that every version live
// during a pass supports the control-plane minors before and after it
// (cps[i] is the minor after pass i, cps[0] the one before the hop). It
// returns the earliest placement, or false when none fits.
func placeSteps(cat *catalog.Catalog, name string, cur semver.Version, steps []semver.Version, cps []semver.Version) ([]int, bool) {
	comp, _ := cat.Component(name)
	supports := func(v semver.Version, pass int) bool {
		cv, ok := comp.Version(v)
		if !ok {
			return true // unknown versions are reported elsewhere
		}
		r := cv.Kubernetes()
		return r.Contains(cps[pass-1]) && r.Contains(cps[pass])
	}
	passes := len(cps) - 1
	at := make([]int, len(steps))
	var place func(k, from int, live semver.Version) bool
	place = func(k, from int, live semver.Version) bool {
		if k == len(steps) {
			for p := from; p <= passes; p++ {
				if !supports(live, p) {
					return false
				}
			}
			return true
		}
		for p := from; p <= passes-(len(steps)-k-1); p++ {
			if supports(live, p) && supports(steps[k], p) {
				at[k] = p
				if place(k+1, p+1, steps[k]) {
					return true
				}
			}
			if !supports(live, p) {
				return false // the old version cannot stay any longer
			}
		}
		return false
	}
	if len(steps) == 0 {
		return nil, true
	}
	return at, place(0, 1, cur)
}

// defaultPlacement puts step k in pass k+1, used when no placement fits so
// that the range findings show what breaks.
func defaultPlacement(steps int) []int {
	at := make([]int, steps)
	for k := range at {
		at[k] = k + 1
	}
	return at
}
