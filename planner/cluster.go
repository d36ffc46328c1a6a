package planner

import (
	"cmp"
	"errors"
	"fmt"
	"strings"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/semver"
)

// ClusterKind says which cluster of a fleet a plan is for.
type ClusterKind string

// Cluster kinds.
const (
	// ClusterManagement is the management cluster (release namespace
	// sylva-system): it runs the management minor of each release.
	ClusterManagement ClusterKind = "management"
	// ClusterWorkload is a workload cluster (its own release namespace):
	// it runs any minor of its release's window (the minors the release's
	// _internal.k8s_version_map maps), chosen by its own values.
	ClusterWorkload ClusterKind = "workload"
)

// ParseClusterKind reads "management" or "workload".
func ParseClusterKind(s string) (ClusterKind, error) {
	switch k := ClusterKind(s); k {
	case ClusterManagement, ClusterWorkload:
		return k, nil
	}
	return "", fmt.Errorf("%q is not a cluster kind; give management or workload", s)
}

// Cluster says which cluster the plan is for, its Kubernetes minor before
// and after, and where each was read or how it was chosen.
type Cluster struct {
	Kind ClusterKind `json:"kind"`
	// Kubernetes is the control plane's minor before the plan;
	// KubernetesSource says where it was read ("--kubernetes", "the
	// management minor of 1.4").
	Kubernetes       string `json:"kubernetes"`
	KubernetesSource string `json:"kubernetesSource"`
	// KubernetesTo is the minor the plan ends on; KubernetesToSource says
	// why ("--kubernetes-to", "kept: inside the window 1.31–1.33 of 1.6").
	KubernetesTo       string `json:"kubernetesTo"`
	KubernetesToSource string `json:"kubernetesToSource"`
}

// Finding codes of workload clusters.
const (
	// CodeOutsideWindow: the cluster's minor, or the minor asked for, is
	// not one its release's chart maps.
	CodeOutsideWindow = "kubernetes-outside-window"
	// CodeWindowStep: the control plane steps on the chart of the release
	// it runs before a newer release's chart can take it.
	CodeWindowStep = "kubernetes-window-step"
	// CodeMinorStep: the cluster changes Kubernetes minor inside the
	// release it runs, one values change per minor.
	CodeMinorStep = "kubernetes-minor-step"
)

// TriggerValues is the trigger of a pass where the operator sets k8s_version_short in the values of the
// release the cluster runs, which upgrades the HelmRelease on the same
// chart (a step into the next release's window).
const TriggerValues Trigger = "values-change"

// window is the minors release r maps for workload clusters, oldest first.
func window(r *catalog.Release) (lo, hi semver.Version, ok bool) {
	vs := r.Kubernetes.Versions
	if len(vs) == 0 {
		return semver.Version{}, semver.Version{}, false
	}
	return vs[0].Minor.MinorOnly(), vs[len(vs)-1].Minor.MinorOnly(), true
}

func windowText(r *catalog.Release) string {
	lo, hi, ok := window(r)
	if !ok {
		return "none"
	}
	return lo.Short() + "–" + hi.Short()
}

func inWindow(r *catalog.Release, m semver.Version) bool {
	_, ok := r.KubeVersion(m)
	return ok
}

// kubePath decides the control plane's minor along a route: the
// management minor of each release for the management cluster; for a
// workload cluster, its own minor, kept while each release's window holds
// it and stepped one minor at a time towards final otherwise.
type kubePath struct {
	workload bool
	// start is the control plane's minor before the route (zero: the
	// management minor of the route's first release); final the minor a
	// workload cluster must end on (zero: decided per target, see
	// finalFor).
	start, final semver.Version
}

// startOf is the control plane's minor before the route from r.
func (k kubePath) startOf(r *catalog.Release) semver.Version {
	if k.start.IsZero() {
		return r.Kubernetes.Management.MinorOnly()
	}
	return k.start.MinorOnly()
}

// finalFor is the minor a workload cluster ends on in release to: the one
// asked for, else its own when to's window holds it, else the nearest
// minor of that window.
func (k kubePath) finalFor(to *catalog.Release, start semver.Version) (semver.Version, string) {
	if !k.final.IsZero() {
		return k.final.MinorOnly(), "--kubernetes-to"
	}
	lo, hi, ok := window(to)
	switch {
	case !ok:
		return to.Kubernetes.Management.MinorOnly(), "the management minor of " + to.Release.Short() + " (the catalog gives it no window)"
	case start.CompareMinor(lo) < 0:
		return lo, fmt.Sprintf("the oldest minor of the window %s of %s: the cluster's %s is below it", windowText(to), to.Release.Short(), start.Short())
	case start.CompareMinor(hi) > 0:
		return hi, fmt.Sprintf("the newest minor of the window %s of %s", windowText(to), to.Release.Short())
	}
	return start, fmt.Sprintf("kept: inside the window %s of %s", windowText(to), to.Release.Short())
}

// hopTarget is the minor the control plane ends the hop to r on, from
// cur: the management minor of r for the management cluster. A workload
// cluster keeps its minor when it can; otherwise it moves towards final,
// at least into r's window and to one minor below next's (so that next's
// chart can take it in its first pass), at most to final, using the passes
// the hop takes anyway (free).
func (k kubePath) hopTarget(cur semver.Version, r, next *catalog.Release, final semver.Version, free int) semver.Version {
	if !k.workload {
		return r.Kubernetes.Management
	}
	lo, hi, ok := window(r)
	if !ok {
		return r.Kubernetes.Management
	}
	upper := minMinor(hi, final)
	lower := maxMinor(cur, lo)
	if next == nil {
		lower = maxMinor(lower, final)
	} else if nlo, _, ok := window(next); ok {
		lower = maxMinor(lower, minMinor(nlo.AddMinor(-1), upper))
	}
	t := cur.AddMinor(free)
	t = maxMinor(t, lower)
	t = minMinor(t, upper)
	if t.CompareMinor(cur) < 0 {
		// A window above the target only: nothing moves back.
		return cur
	}
	return t
}

func minMinor(a, b semver.Version) semver.Version {
	if a.CompareMinor(b) <= 0 {
		return a.MinorOnly()
	}
	return b.MinorOnly()
}

func maxMinor(a, b semver.Version) semver.Version {
	if a.CompareMinor(b) >= 0 {
		return a.MinorOnly()
	}
	return b.MinorOnly()
}

// runsOn reports whether every component release r ships supports
// Kubernetes minor m (a version the catalog gives no range counts as
// supporting it): the control plane may start r's chart upgrade from m.
func runsOn(cat *catalog.Catalog, r *catalog.Release, m semver.Version) bool {
	for _, rc := range r.Components {
		if len(rangeFindings(cat, "", rc.Name, rc.Version, rc.Version, m, m)) > 0 {
			return false
		}
	}
	return true
}

// windowSteps appends, before the hop to r, the passes that step a
// workload cluster's control plane on the chart of the release it runs
// (st.release) until r's chart can take it in one minor, and into r's
// window when r's components do not support the minor it runs: each a change of
// k8s_version_short in its values. A minor the current release's chart
// does not map is a blocker.
func windowSteps(cat *catalog.Catalog, c *candidate, st *state, cur *catalog.Release, r *catalog.Release, provider catalog.Provider) {
	lo, _, ok := window(r)
	if !ok {
		return
	}
	for st.cp.AddMinor(1).CompareMinor(lo) < 0 || (st.cp.CompareMinor(lo) < 0 && !runsOn(cat, r, st.cp)) {
		next := st.cp.AddMinor(1)
		subject := fmt.Sprintf("pass %d", len(c.passes)+1)
		if !inWindow(cur, next) {
			c.findings = append(c.findings, Finding{
				Code: CodeOutsideWindow, Severity: SeverityBlocker, Class: ClassActionable, Subject: subject,
				Message: fmt.Sprintf("the control plane on %s must step to %s before the chart of %s can take it (its window is %s), and the chart of %s maps no %s (its window is %s)",
					st.cp.Short(), next.Short(), r.Release.Short(), windowText(r), cur.Release.Short(), next.Short(), windowText(cur)),
				Remediation: fmt.Sprintf("plan the cluster to a release whose window holds %s first", next.Short()),
			})
			return
		}
		prev := st.cp
		valuesStep(cat, c, st, cur, next, provider)
		c.findings = append(c.findings, Finding{
			Code: CodeWindowStep, Severity: SeverityInfo, Subject: subject,
			Message: fmt.Sprintf("the chart of %s maps Kubernetes %s at the oldest (window %s) and takes a control plane one minor at a time, from a minor its components support: on %s, the control plane steps %s → %s first, by setting k8s_version_short: %q in the cluster's values and letting the release settle",
				r.Release.Short(), lo.Short(), windowText(r), cur.Release.Short(), prev.Short(), next.Short(), next.Short()),
			Remediation: fmt.Sprintf("set k8s_version_short: %q in the values of this cluster's sylva-units release (still on %s), wait for sylva-units-status to record it, then go on", next.Short(), cur.Release.Short()),
		})
	}
}

// valuesStep appends one pass that moves a workload cluster's control
// plane to minor next on the chart of the release it runs (cur), by a
// change of k8s_version_short in its values: no chart upgrade, no
// transition.
func valuesStep(cat *catalog.Catalog, c *candidate, st *state, cur *catalog.Release, next semver.Version, provider catalog.Provider) {
	h := &hop{cat: cat, c: c, to: cur, provider: provider, rel: cur.Release.String(), from: st.release, cpFrom: st.cp, cpTo: next}
	h.countMinors()
	h.splitComponents(st)
	h.n = 1
	h.planPass(st, 1)
	ps := &c.passes[len(c.passes)-1]
	ps.Trigger = TriggerValues
	ps.Values.TransitionFromN2 = false
	ps.ExpectedStatus.TransitionFrom, ps.ExpectedStatus.TransitionPass = "", ""
}

// minorSteps plans a workload cluster's change of Kubernetes minor inside
// the release it runs (--from equal to --to, --kubernetes-to above
// --kubernetes): one values change per minor, each one pass that rolls
// the control plane (and the workers, which follow cluster.k8s_version),
// as the skew policy allows no more.
func minorSteps(cat *catalog.Catalog, r *catalog.Release, provider catalog.Provider, workers semver.Version, running map[string]semver.Version, kp kubePath) *candidate {
	c := &candidate{route: []string{r.Release.String()}}
	st := newState(r, kp.startOf(r), workers, provider)
	for _, rc := range r.Components {
		st.components[rc.Name] = rc.Version
	}
	for name, v := range running {
		st.components[name] = v
	}
	final, _ := kp.finalFor(r, st.cp)
	steps := []string{st.cp.Short()}
	for st.cp.CompareMinor(final) < 0 {
		valuesStep(cat, c, &st, r, st.cp.AddMinor(1), provider)
		steps = append(steps, st.cp.Short())
	}
	if len(c.passes) > 0 {
		c.findings = append(c.findings, Finding{
			Code: CodeMinorStep, Severity: SeverityInfo, Subject: r.Release.Short(),
			Message: fmt.Sprintf("the cluster stays on Sylva %s and its control plane changes minor %s, one minor per pass (the Kubernetes skew policy): each pass is a change of k8s_version_short in the cluster's values, no chart upgrade",
				r.Release.Short(), strings.Join(steps, " → ")),
			Remediation: "set each pass's k8s_version_short in the values of this cluster's sylva-units release in turn, and let sylva-units-status record it before the next",
		})
	}
	for _, f := range c.findings {
		if f.Severity == SeverityBlocker {
			c.blockers++
		}
	}
	for _, ps := range c.passes {
		if ps.Workers.Rolls {
			c.workerRollouts++
		}
	}
	return c
}

// kubePathOf reads the cluster's kind and minors from in: a minor the
// source release's window does not hold, or a --kubernetes-to outside the
// target's, is an InputError naming the flag and the window.
func kubePathOf(in Input, from, to *catalog.Release) (kubePath, error) {
	kp := kubePath{workload: in.Cluster == ClusterWorkload, start: in.Kubernetes, final: in.KubernetesTo}
	field := func(src, flag string) string {
		if src == "" {
			return flag
		}
		return src
	}
	if !kp.workload {
		if !in.KubernetesTo.IsZero() {
			return kp, &InputError{Field: "--kubernetes-to", Err: ErrOutsideWindow, msg: "only a workload cluster chooses its minor; the management cluster runs the management minor of each release (add --cluster workload)"}
		}
		return kp, nil
	}
	if !kp.start.IsZero() && !inWindow(from, kp.start) {
		return kp, &InputError{
			Field: field(in.KubernetesSource, "--kubernetes"), Err: ErrOutsideWindow,
			msg: fmt.Sprintf("Kubernetes %s is not in the window of %s (%s): its chart cannot render it; give the minor the cluster runs", kp.start.Short(), from.Release.Short(), windowText(from)),
		}
	}
	if !kp.final.IsZero() && !inWindow(to, kp.final) {
		return kp, &InputError{
			Field: field(in.KubernetesToSource, "--kubernetes-to"), Err: ErrOutsideWindow,
			msg: fmt.Sprintf("Kubernetes %s is not in the window of %s (%s); give one of those minors", kp.final.Short(), to.Release.Short(), windowText(to)),
		}
	}
	if !kp.final.IsZero() && kp.final.CompareMinor(kp.startOf(from)) < 0 {
		return kp, &InputError{
			Field: field(in.KubernetesToSource, "--kubernetes-to"), Err: ErrDowngrade,
			msg: fmt.Sprintf("Kubernetes %s is older than the %s the cluster runs; Kubernetes does not support downgrades", kp.final.Short(), kp.startOf(from).Short()),
		}
	}
	return kp, nil
}

// ErrOutsideWindow is the error of a Kubernetes minor the release does
// not map.
var ErrOutsideWindow = errors.New("kubernetes minor outside the release's window")

// clusterOf is the plan's Cluster: the kind, and where each minor came
// from.
func clusterOf(in Input, kp kubePath, from, to *catalog.Release) Cluster {
	c := Cluster{Kind: ClusterManagement}
	if kp.workload {
		c.Kind = ClusterWorkload
	}
	start := kp.startOf(from)
	c.Kubernetes = start.Short()
	c.KubernetesSource = "the management minor of " + from.Release.Short()
	if !in.Kubernetes.IsZero() {
		c.KubernetesSource = cmp.Or(in.KubernetesSource, "--kubernetes")
	}
	if !kp.workload {
		c.KubernetesTo = to.Kubernetes.Management.Short()
		c.KubernetesToSource = "the management minor of " + to.Release.Short()
		return c
	}
	final, why := kp.finalFor(to, start)
	if !in.KubernetesTo.IsZero() {
		why = cmp.Or(in.KubernetesToSource, "--kubernetes-to")
	}
	c.KubernetesTo, c.KubernetesToSource = final.Short(), why
	return c
}

// line is the cluster in the plan's header: "management cluster", or
// "workload cluster, Kubernetes 1.29 (--kubernetes) → 1.31 (kept: …)".
func (c Cluster) line() string {
	if c.Kind != ClusterWorkload {
		return "management cluster"
	}
	return fmt.Sprintf("workload cluster, Kubernetes %s (%s) → %s (%s)", c.Kubernetes, c.KubernetesSource, c.KubernetesTo, c.KubernetesToSource)
}

// NearestInWindow is m when release r maps it, else the minor of r's
// window nearest to it; r's management minor when m is zero or r gives no
// window.
func NearestInWindow(r *catalog.Release, m semver.Version) semver.Version {
	lo, hi, ok := window(r)
	switch {
	case m.IsZero() || !ok:
		return r.Kubernetes.Management.MinorOnly()
	case m.CompareMinor(lo) < 0:
		return lo
	case m.CompareMinor(hi) > 0:
		return hi
	}
	return m.MinorOnly()
}
