package planner

import (
	"cmp"
	"slices"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/semver"
)

// candidate is one route with its passes, kept while choosing the best.
type candidate struct {
	route          []string
	passes         []Pass
	findings       []Finding
	ranges         rangeIndex
	blockers       int
	workerRollouts int
}

// bestRoute enumerates the chains of supported upgrades from from to to and
// keeps the one with the fewest hops (when via is set, only routes whose
// first hop ends on via), then the fewest blockers, passes and
// worker rollouts, then the smallest longest hop (in passes), then the
// newest intermediate releases (better supported); a total order, so the
// choice is deterministic.
func bestRoute(cat *catalog.Catalog, from, to *catalog.Release, via semver.Version, provider catalog.Provider, workers semver.Version, running map[string]semver.Version, kp kubePath) *candidate {
	var best *candidate
	var walk func(path []*catalog.Release)
	walk = func(path []*catalog.Release) {
		last := path[len(path)-1]
		if best != nil && len(path)-1 > len(best.route)-1 {
			return
		}
		if last == to {
			c := planRoute(cat, path, provider, workers, running, kp)
			if best == nil || better(c, best) {
				best = c
			}
			return
		}
		for i := range cat.Releases {
			next := &cat.Releases[i]
			if len(path) == 1 && !via.IsZero() && next.Release.CompareMinor(via) != 0 {
				continue
			}
			if next.Release.Compare(last.Release) > 0 && next.Release.Compare(to.Release) <= 0 && next.Supports(last.Release) {
				walk(append(slices.Clip(path), next))
			}
		}
	}
	walk([]*catalog.Release{from})
	return best
}

func better(a, b *candidate) bool {
	if c := cmp.Or(
		cmp.Compare(len(a.route), len(b.route)),
		cmp.Compare(a.blockers, b.blockers),
		cmp.Compare(len(a.passes), len(b.passes)),
		cmp.Compare(a.workerRollouts, b.workerRollouts),
		cmp.Compare(a.longestHop(), b.longestHop()),
	); c != 0 {
		return c < 0
	}
	return slices.CompareFunc(a.route, b.route, func(x, y string) int {
		return semver.MustParse(x).Compare(semver.MustParse(y))
	}) > 0
}

func (c *candidate) longestHop() int {
	n := 0
	for _, ps := range c.passes {
		n = max(n, ps.HopPasses)
	}
	return n
}

// state is the cluster as the passes leave it.
type state struct {
	release    semver.Version
	cp         semver.Version
	workers    semver.Version
	components map[string]semver.Version
	// cpVersion and workersVersion are the full Kubernetes versions the
	// control plane and the workers run ("v1.31.8"), as the chart of the
	// release that last set them maps their minor; "" when unknown. A
	// release that maps the same minor to another patch replaces the
	// nodes all the same: Cluster API rolls on any change of the version.
	cpVersion, workersVersion string
}

// newState is where the route starts: release r's chart, its control
// plane on cp and the workers on workers, at the full versions r maps them
// to.
func newState(r *catalog.Release, cp, workers semver.Version, provider catalog.Provider) state {
	st := state{release: r.Release, cp: cp, workers: workers, components: map[string]semver.Version{}}
	if kv, ok := r.KubeVersion(cp); ok {
		st.cpVersion = kv.For(provider).String()
	}
	if kv, ok := r.KubeVersion(workers); ok {
		st.workersVersion = kv.For(provider).String()
	}
	return st
}

// planRoute plans the passes along path. running holds the component
// versions an inventory saw; they replace what the source release ships.
//
// kp decides the control plane's minor along the route: a workload
// cluster steps on the chart of the release it runs (windowSteps) when the
// next release's chart cannot take it in one minor.
func planRoute(cat *catalog.Catalog, path []*catalog.Release, provider catalog.Provider, workers semver.Version, running map[string]semver.Version, kp kubePath) *candidate {
	c := &candidate{}
	st := newState(path[0], kp.startOf(path[0]), workers, provider)
	final, _ := kp.finalFor(path[len(path)-1], st.cp)
	for _, rc := range path[0].Components {
		st.components[rc.Name] = rc.Version
	}
	for name, v := range running {
		st.components[name] = v
	}
	for i, r := range path {
		c.route = append(c.route, r.Release.String())
		if i == 0 {
			continue
		}
		var next *catalog.Release
		if i+1 < len(path) {
			next = path[i+1]
		}
		if kp.workload {
			windowSteps(cat, c, &st, path[i-1], r, provider)
		}
		planHop(cat, c, &st, r, next, provider, kp, final)
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
