package flux

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
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
	gateLabels  = []string{"namespace", "from", "to"}
	gateBlocked = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "sylva_planner_upgrade_blocked",
		Help: "1 when an actionable blocker stops the upgrade of the namespace's release (act on it).",
	}, gateLabels)
	gateHeld = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "sylva_planner_upgrade_held",
		Help: "1 when every blocker waits on upstream or is pinned (nothing to act on).",
	}, gateLabels)
	gateVerdict = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "sylva_planner_verdict",
		Help: "1 for the plan's verdict, 0 for the others.",
	}, append(gateLabels, "verdict"))
	gateScore = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "sylva_planner_score",
		Help: "Readiness score 0-100 (for trends, not for gating).",
	}, gateLabels)
	registerOnce sync.Once
)

// setGateGauges exports the verdict of plan p for namespace ns, replacing
// what was exported for it before; a nil plan clears them.
func setGateGauges(ns string, p *planner.Plan) {
	for _, g := range []*prometheus.GaugeVec{gateBlocked, gateHeld, gateVerdict, gateScore} {
		g.DeletePartialMatch(prometheus.Labels{"namespace": ns})
	}
	if p == nil {
		return
	}
	l := prometheus.Labels{"namespace": ns, "from": p.From.Release, "to": p.To.Release}
	gateBlocked.With(l).Set(b2f(p.Verdict == planner.VerdictBlocked))
	gateHeld.With(l).Set(b2f(p.Verdict == planner.VerdictHeld))
	gateScore.With(l).Set(float64(p.Score))
	for _, v := range []planner.Verdict{planner.VerdictBlocked, planner.VerdictHeld, planner.VerdictReady, planner.VerdictUnknown} {
		vl := prometheus.Labels{"verdict": string(v)}
		for k, x := range l {
			vl[k] = x
		}
		gateVerdict.With(vl).Set(b2f(p.Verdict == v))
	}
}

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
		metrics.Registry.MustRegister(requestsTotal, pendingPasses, lastTrigger, gateBlocked, gateHeld, gateVerdict, gateScore)
		for _, r := range []string{
			string(OutcomeTrigger), string(OutcomeNothingRequested), string(OutcomeAlreadyHandled),
			string(OutcomeWaiting), string(OutcomeSuspended), string(OutcomeMissing), string(OutcomeInvalid), ResultError,
		} {
			requestsTotal.WithLabelValues(r)
		}
	})
}
