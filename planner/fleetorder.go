package planner

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/semver"
)

// This file is the fleet's order: no workload cluster on a newer release
// than its management cluster, which runs its Cluster API objects, and
// every workload release managed by the release the management cluster
// runs (catalog.ManagesWorkload).

// WaveKind says when a wave of the fleet may run.
type WaveKind string

// Wave kinds, in the order an operator follows them.
const (
	// WaveNow: workload clusters that may move now, to a release the
	// management cluster runs or is older than: those the management
	// target would leave unmanaged move first.
	WaveNow WaveKind = "now"
	// WaveManagement: the management cluster's own transition.
	WaveManagement WaveKind = "management"
	// WaveAfterManagement: workload clusters that must wait until the
	// management cluster is on the target (they would be ahead of it).
	WaveAfterManagement WaveKind = "after-management"
)

// Wave is one step of the fleet's order: the releases (namespaces) that
// move in it, and the release they move to.
type Wave struct {
	Index      int      `json:"index"`
	Kind       WaveKind `json:"kind"`
	To         string   `json:"to"`
	Namespaces []string `json:"namespaces"`
	Why        string   `json:"why"`
}

// Finding codes of the fleet's order.
const (
	// CodeWorkloadAhead: a workload cluster is on a newer release than its
	// management cluster.
	CodeWorkloadAhead = "workload-ahead-of-management"
	// CodeFleetOrder: no order of waves can bring a workload cluster to a
	// release the management cluster's target manages before the
	// management cluster leaves its release.
	CodeFleetOrder = "fleet-order-impossible"
)

// Order computes the waves of the fleet and its findings: the management
// cluster's release is the one in namespace mgmt. Releases without a
// readable release, or done, move in no wave. Without a management
// release in the fleet, no order is computed.
func (f *FleetPlan) Order(cat *catalog.Catalog, mgmt string) {
	f.Waves, f.Findings = nil, nil
	target, err := semver.Parse(f.Target)
	if err != nil {
		return
	}
	tRel, ok := cat.Release(target.MinorOnly())
	if !ok {
		return
	}
	var m0 semver.Version
	found := false
	for _, r := range f.Releases {
		if r.Namespace == mgmt {
			if v, err := semver.Parse(r.Release); err == nil {
				m0, found = v.MinorOnly(), true
			}
		}
	}
	if !found {
		return
	}
	type move struct{ ns, to string }
	var now, after []move
	// stranded are the workload namespaces by the release they must reach
	// first, by their release.
	stranded := map[string][]string{}
	for _, r := range f.Releases {
		w, err := semver.Parse(r.Release)
		if r.Namespace == mgmt || err != nil {
			continue
		}
		w = w.MinorOnly()
		switch {
		case w.CompareMinor(m0) > 0:
			f.Findings = append(f.Findings, Finding{
				Code: CodeWorkloadAhead, Severity: SeverityBlocker, Class: ClassActionable, Subject: r.Namespace,
				Message: fmt.Sprintf("workload cluster %s is on Sylva %s, newer than its management cluster (%s, on %s), which runs its Cluster API objects",
					r.Namespace, w.Short(), mgmt, m0.Short()),
				Remediation: fmt.Sprintf("move the management cluster to %s or newer before %s moves again (sylva-planner plan -n %s --live --to %s)", w.Short(), r.Namespace, mgmt, w.Short()),
			})
			continue
		case w.CompareMinor(target) >= 0:
			continue
		}
		managed, _ := cat.ManagesWorkload(tRel, w)
		switch {
		case target.CompareMinor(m0) <= 0:
			now = append(now, move{r.Namespace, target.Short()})
		case managed:
			after = append(after, move{r.Namespace, target.Short()})
		default:
			first := firstManaged(cat, tRel, w, m0)
			if first.IsZero() {
				need := oldestManagedAbove(cat, tRel, w)
				stranded[need] = append(stranded[need], r.Namespace+" (on "+w.Short()+")")
				continue
			}
			now = append(now, move{r.Namespace, first.Short()})
			after = append(after, move{r.Namespace, target.Short()})
		}
	}
	for _, need := range slices.Sorted(func(yield func(string) bool) {
		for k := range stranded {
			if !yield(k) {
				return
			}
		}
	}) {
		names := stranded[need]
		slices.Sort(names)
		_, why := cat.ManagesWorkload(tRel, semver.Version{})
		f.Findings = append(f.Findings, Finding{
			Code: CodeFleetOrder, Severity: SeverityBlocker, Class: ClassActionable, Subject: strings.Join(names, ", "),
			Message: fmt.Sprintf("the management cluster's target %s would leave workload clusters %s unmanaged (%s): they must reach %s first, which they cannot while the management cluster is on %s (no workload cluster may be ahead of it)",
				target.Short(), strings.Join(names, ", "), why, need, m0.Short()),
			Remediation: fmt.Sprintf("take the fleet to %s first (sylva-planner plan -A --to %s: the management cluster, then the workload clusters), then to %s", need, need, target.Short()),
		})
	}
	add := func(kind WaveKind, moves []move, why string) {
		byTo := map[string][]string{}
		for _, mv := range moves {
			byTo[mv.to] = append(byTo[mv.to], mv.ns)
		}
		tos := make([]string, 0, len(byTo))
		for to := range byTo {
			tos = append(tos, to)
		}
		slices.SortFunc(tos, func(a, b string) int { return semver.MustParse(a).CompareMinor(semver.MustParse(b)) })
		for _, to := range tos {
			ns := byTo[to]
			slices.Sort(ns)
			f.Waves = append(f.Waves, Wave{Index: len(f.Waves) + 1, Kind: kind, To: to, Namespaces: ns, Why: why})
		}
	}
	nowWhy := fmt.Sprintf("the management cluster runs %s, and %s does not manage their release: they move now, before it leaves them unmanaged", m0.Short(), target.Short())
	if target.CompareMinor(m0) <= 0 {
		nowWhy = fmt.Sprintf("the management cluster runs %s already: they may move now", m0.Short())
	}
	add(WaveNow, now, nowWhy)
	if target.CompareMinor(m0) > 0 {
		add(WaveManagement, []move{{mgmt, target.Short()}}, "once every workload cluster is on a release "+target.Short()+" manages")
	}
	add(WaveAfterManagement, after, "once the management cluster is on "+target.Short()+": before, they would be ahead of it")
	slices.SortStableFunc(f.Findings, CompareFindings)
}

// firstManaged is the newest release, above w and at most m0 (the
// management cluster's release), that t manages: where a workload cluster
// on w moves before the management cluster goes to t. Zero when none.
func firstManaged(cat *catalog.Catalog, t *catalog.Release, w, m0 semver.Version) semver.Version {
	var best semver.Version
	for i := range cat.Releases {
		r := cat.Releases[i].Release
		if r.CompareMinor(w) <= 0 || r.CompareMinor(m0) > 0 {
			continue
		}
		if ok, _ := cat.ManagesWorkload(t, r); ok && (best.IsZero() || r.CompareMinor(best) > 0) {
			best = r.MinorOnly()
		}
	}
	return best
}

// oldestManagedAbove is the oldest release above w that t manages (t
// itself at worst): the release a workload cluster on w must reach before
// the management cluster goes to t.
func oldestManagedAbove(cat *catalog.Catalog, t *catalog.Release, w semver.Version) string {
	for i := range cat.Releases {
		r := cat.Releases[i].Release
		if r.CompareMinor(w) <= 0 {
			continue
		}
		if ok, _ := cat.ManagesWorkload(t, r); ok {
			return r.Short()
		}
	}
	return t.Release.Short()
}

// waveLine is a wave in the table: "1. now → 1.4: wl-a, wl-b (why)".
func (w Wave) line() string {
	return fmt.Sprintf("%d. %s → %s: %s (%s)", w.Index, w.Kind, w.To, strings.Join(w.Namespaces, ", "), w.Why)
}

// fleetBlocked reports whether the fleet's order has an actionable blocker.
func (f FleetPlan) fleetBlocked() bool {
	return slices.ContainsFunc(f.Findings, func(x Finding) bool {
		return x.Severity == SeverityBlocker && cmp.Or(x.Class, ClassActionable) == ClassActionable
	})
}
