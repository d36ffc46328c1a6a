// Package gatemetrics holds the upgrade gate's Prometheus gauges
// (docs/gate.md), defined once for the controller's /metrics and for the
// textfile that plan and report write with --metrics-file. It computes
// nothing: the verdicts come from planner.Plan. It reads no clock and
// writes only to the io.Writer it is given.
package gatemetrics

import (
	"cmp"
	"io"
	"maps"
	"slices"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"

	"gitlab.com/sylva-projects/sylva-planner/planner"
)

// Gauges are the upgrade gate's gauges of docs/gate.md, defined once: the
// controller serves them on /metrics with a namespace label, and plan and
// report write them to --metrics-file without it (Write).
type Gauges struct {
	extra                                             []string
	blocked, held, verdict, score, passes, passesDone *prometheus.GaugeVec
}

// New returns the gauges, labelled by extra (such as "namespace"), then
// from, to and cluster (the kind of cluster planned: management or
// workload).
func New(extra ...string) *Gauges {
	labels := append(slices.Clone(extra), "from", "to", "cluster")
	gauge := func(name, help string, labels []string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, labels)
	}
	return &Gauges{
		extra:      extra,
		blocked:    gauge("sylva_planner_upgrade_blocked", "1 when an actionable blocker stops the upgrade (act on it).", labels),
		held:       gauge("sylva_planner_upgrade_held", "1 when every blocker waits on upstream or is pinned (nothing to act on).", labels),
		verdict:    gauge("sylva_planner_verdict", "1 for the plan's verdict, 0 for the others.", append(slices.Clone(labels), "verdict")),
		score:      gauge("sylva_planner_score", "Readiness score 0-100 (for trends, not for gating).", labels),
		passes:     gauge("sylva_planner_passes", "Reconciliation passes of the sylva-units HelmRelease the plan needs.", labels),
		passesDone: gauge("sylva_planner_passes_done", "Passes of the plan the sylva-units-status ConfigMap says are done; only for a plan placed from the status that tells which pass completed.", labels),
	}
}

func (g *Gauges) vecs() []*prometheus.GaugeVec {
	return []*prometheus.GaugeVec{g.blocked, g.held, g.verdict, g.score, g.passes, g.passesDone}
}

// Describe implements prometheus.Collector.
func (g *Gauges) Describe(ch chan<- *prometheus.Desc) {
	for _, v := range g.vecs() {
		v.Describe(ch)
	}
}

// Collect implements prometheus.Collector.
func (g *Gauges) Collect(ch chan<- prometheus.Metric) {
	for _, v := range g.vecs() {
		v.Collect(ch)
	}
}

// Set exports the verdict of plan p under the extra label values, after
// removing what was exported under them before; a nil plan only removes.
func (g *Gauges) Set(p *planner.Plan, extra ...string) {
	l := prometheus.Labels{}
	for i, name := range g.extra {
		l[name] = extra[i]
	}
	if len(l) > 0 {
		for _, v := range g.vecs() {
			v.DeletePartialMatch(l)
		}
	}
	if p == nil {
		return
	}
	l["from"], l["to"], l["cluster"] = p.From.Release, p.To.Release, string(cmp.Or(p.Cluster.Kind, planner.ClusterManagement))
	g.blocked.With(l).Set(b2f(p.Verdict == planner.VerdictBlocked))
	g.held.With(l).Set(b2f(p.Verdict == planner.VerdictHeld))
	g.score.With(l).Set(float64(p.Score))
	g.passes.With(l).Set(float64(len(p.Passes)))
	if pos := p.Position; pos != nil && pos.PassKnown {
		// Where the cluster is, as plan, status --to, reconcile and the
		// controller read it (planner.Locate).
		g.passesDone.With(l).Set(float64(pos.PassesDone))
	}
	g.setVerdict(l, p.Verdict)
}

// setVerdict sets the verdict gauge of labels l: 1 for verdict v, 0 for
// the others.
func (g *Gauges) setVerdict(l prometheus.Labels, v planner.Verdict) {
	for _, each := range []planner.Verdict{planner.VerdictBlocked, planner.VerdictHeld, planner.VerdictReady, planner.VerdictUnknown} {
		vl := maps.Clone(l)
		vl["verdict"] = string(each)
		g.verdict.With(vl).Set(b2f(v == each))
	}
}

// SetUnplanned exports, under the extra label values, a release that could
// not be planned (its status names no release the catalog covers, or it
// cannot reach the target): verdict unknown, neither blocked nor held, no
// score and no passes, after removing what was exported under them
// before. from is the installed release as read ("" when unknown).
func (g *Gauges) SetUnplanned(from, to string, kind planner.ClusterKind, extra ...string) {
	g.Set(nil, extra...)
	l := prometheus.Labels{"from": from, "to": to, "cluster": string(cmp.Or(kind, planner.ClusterManagement))}
	for i, name := range g.extra {
		l[name] = extra[i]
	}
	g.blocked.With(l).Set(0)
	g.held.With(l).Set(0)
	g.setVerdict(l, planner.VerdictUnknown)
}

// Write writes the gate's gauges of plan p to w in the Prometheus text
// format (families sorted by name), for node-exporter's textfile
// collector; the caller writes the file.
func Write(w io.Writer, p *planner.Plan) error {
	g := New()
	g.Set(p)
	return write(w, g)
}

// NamespacedPlan is the plan of the release of one namespace; without a
// plan, the release that could not be planned, from From (the installed
// release, "" when unknown) to To.
type NamespacedPlan struct {
	Namespace string
	Plan      *planner.Plan
	From, To  string
	Cluster   planner.ClusterKind
}

// WriteFleet writes the gate's gauges of each plan to w in the
// Prometheus text format, labelled by its namespace as the controller
// serves them (families sorted by name, series by label values); a
// release without a plan has its verdict unknown (SetUnplanned), so that
// the release that makes plan -A exit 3 has a series. The caller writes
// the file.
func WriteFleet(w io.Writer, plans []NamespacedPlan) error {
	g := New("namespace")
	for _, np := range plans {
		if np.Plan != nil {
			g.Set(np.Plan, np.Namespace)
		} else {
			g.SetUnplanned(np.From, np.To, np.Cluster, np.Namespace)
		}
	}
	return write(w, g)
}

// write gathers c in a registry of its own and writes it in the
// text format.
func write(w io.Writer, c prometheus.Collector) error {
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(c); err != nil {
		return err
	}
	mfs, err := reg.Gather()
	if err != nil {
		return err
	}
	for _, mf := range mfs {
		if _, err := expfmt.MetricFamilyToText(w, mf); err != nil {
			return err
		}
	}
	return nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
