package action

import (
	"sync"
	"time"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/values/overlay"
)

// overlayMemo answers planner.Input.Overlay once per distinct input of a
// run that plans many releases (plan -A): a fleet of two thousand
// workload clusters holds a handful of distinct (release, minors) pairs,
// and whether values generate can write a plan's helper values depends on
// those alone. Safe for concurrent use; a key being answered is answered
// once, its other callers wait.
type overlayMemo struct {
	mu      sync.Mutex
	answers map[overlayKey]*overlayAnswer
}

// overlayKey is what GenerateFromPlan's answer depends on: the planner
// input without what only names or echoes it (the sources of From and the
// minors, Inputs, Rerun, Selection), which differ from release to release
// and which the helper values do not hold. Overlay, Progress, Observed,
// Suppressions and Baseline are nil in the input the planner hands the
// callback.
type overlayKey struct {
	cat                                   *catalog.Catalog
	from, to, workers, kubernetes, kubeTo semver.Version
	provider                              catalog.Provider
	cluster                               planner.ClusterKind
	asOf                                  time.Time
	toolVersion                           string
	gate                                  planner.GateOptions
}

type overlayAnswer struct {
	once sync.Once
	err  error
}

// keyOf is in's overlayKey.
func keyOf(in planner.Input) overlayKey {
	return overlayKey{
		cat: in.Catalog, from: in.From, to: in.To, workers: in.Workers, kubernetes: in.Kubernetes, kubeTo: in.KubernetesTo,
		provider: in.Provider, cluster: in.Cluster, asOf: in.AsOf, toolVersion: in.ToolVersion, gate: in.Gate,
	}
}

// overlayError is the planner.Input.Overlay of a plan: values generate's
// error for the plan's own input, through m when m is not nil.
func (m *overlayMemo) overlayError(in planner.Input, p *planner.Plan) error {
	if m == nil {
		_, err := overlay.GenerateFromPlan(in, p, nil)
		return err
	}
	k := keyOf(in)
	m.mu.Lock()
	if m.answers == nil {
		m.answers = map[overlayKey]*overlayAnswer{}
	}
	a := m.answers[k]
	if a == nil {
		a = &overlayAnswer{}
		m.answers[k] = a
	}
	m.mu.Unlock()
	a.once.Do(func() { _, a.err = overlay.GenerateFromPlan(in, p, nil) })
	return a.err
}
