package reconciler

import (
	"io"
	"maps"
	"slices"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"gitlab.com/sylva-projects/sylva-planner/planner"
)

// Result label values beyond the decision outcomes.
const (
	// ResultError: the objects could not be read or the patch failed.
	ResultError = "error"
)

var (
	requestsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sylva_planner_reconcile_requests_total",
		Help: "Decisions of the controller, by result: triggered, nothing-requested, already-handled, waiting, suspended, missing, invalid or error.",
	}, []string{"result"})
	pendingPasses = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "sylva_planner_pending_passes",
		Help: "Release namespaces where a pass is requested and not yet passed on to the HelmRelease.",
	})
	lastTrigger = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "sylva_planner_last_trigger_timestamp_seconds",
		Help: "Unix time of the last reconciliation requested on a HelmRelease.",
	})
	// gate holds the gate's gauges of each namespace watched.
	gate         = NewGateGauges("namespace")
	registerOnce sync.Once
)

// GateGauges are the upgrade gate's gauges of docs/gate.md, defined once:
// the controller serves them on /metrics with a namespace label, and plan
// and report write them to --metrics-file without it (WriteGateMetrics).
type GateGauges struct {
	extra                                 []string
	blocked, held, verdict, score, passes *prometheus.GaugeVec
}

// NewGateGauges returns the gauges, labelled by extra (such as
// "namespace"), then from and to.
func NewGateGauges(extra ...string) *GateGauges {
	labels := append(slices.Clone(extra), "from", "to")
	gauge := func(name, help string, labels []string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, labels)
	}
	return &GateGauges{
		extra:   extra,
		blocked: gauge("sylva_planner_upgrade_blocked", "1 when an actionable blocker stops the upgrade (act on it).", labels),
		held:    gauge("sylva_planner_upgrade_held", "1 when every blocker waits on upstream or is pinned (nothing to act on).", labels),
		verdict: gauge("sylva_planner_verdict", "1 for the plan's verdict, 0 for the others.", append(slices.Clone(labels), "verdict")),
		score:   gauge("sylva_planner_score", "Readiness score 0-100 (for trends, not for gating).", labels),
		passes:  gauge("sylva_planner_passes", "Reconciliation passes of the sylva-units HelmRelease the plan needs.", labels),
	}
}

func (g *GateGauges) vecs() []*prometheus.GaugeVec {
	return []*prometheus.GaugeVec{g.blocked, g.held, g.verdict, g.score, g.passes}
}

// Describe implements prometheus.Collector.
func (g *GateGauges) Describe(ch chan<- *prometheus.Desc) {
	for _, v := range g.vecs() {
		v.Describe(ch)
	}
}

// Collect implements prometheus.Collector.
func (g *GateGauges) Collect(ch chan<- prometheus.Metric) {
	for _, v := range g.vecs() {
		v.Collect(ch)
	}
}

// Set exports the verdict of plan p under the extra label values, after
// removing what was exported under them before; a nil plan only removes.
func (g *GateGauges) Set(p *planner.Plan, extra ...string) {
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
	l["from"], l["to"] = p.From.Release, p.To.Release
	g.blocked.With(l).Set(b2f(p.Verdict == planner.VerdictBlocked))
	g.held.With(l).Set(b2f(p.Verdict == planner.VerdictHeld))
	g.score.With(l).Set(float64(p.Score))
	g.passes.With(l).Set(float64(len(p.Passes)))
	for _, v := range []planner.Verdict{planner.VerdictBlocked, planner.VerdictHeld, planner.VerdictReady, planner.VerdictUnknown} {
		vl := maps.Clone(l)
		vl["verdict"] = string(v)
		g.verdict.With(vl).Set(b2f(p.Verdict == v))
	}
}

// WriteGateMetrics writes the gate's gauges of plan p to w in the
// Prometheus text format (families sorted by name), for node-exporter's
// textfile collector; the caller writes the file.
func WriteGateMetrics(w io.Writer, p *planner.Plan) error {
	g := NewGateGauges()
	g.Set(p)
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(g); err != nil {
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

// setGateGauges exports the verdict of plan p for namespace ns, replacing
// what was exported for it before; a nil plan clears them.
func setGateGauges(ns string, p *planner.Plan) { gate.Set(p, ns) }

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// registerMetrics adds the controller's metrics to controller-runtime's
// registry, which its metrics server serves; once per process.
func registerMetrics() {
	registerOnce.Do(func() {
		metrics.Registry.MustRegister(requestsTotal, pendingPasses, lastTrigger, gate)
		for _, r := range []string{
			string(OutcomeTrigger), string(OutcomeNothingRequested), string(OutcomeAlreadyHandled),
			string(OutcomeWaiting), string(OutcomeSuspended), string(OutcomeMissing), string(OutcomeInvalid), ResultError,
		} {
			requestsTotal.WithLabelValues(r)
		}
	})
}
