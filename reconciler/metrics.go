package reconciler

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"gitlab.com/sylva-projects/sylva-planner/gatemetrics"
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
	gate         = gatemetrics.New("namespace")
	registerOnce sync.Once
)

// setGateGauges exports the verdict of plan p for namespace ns, replacing
// what was exported for it before; a nil plan clears them.
func setGateGauges(ns string, p *planner.Plan) { gate.Set(p, ns) }

// registerMetrics adds the controller's metrics to controller-runtime's
// registry, which its metrics server serves; once per process.
func registerMetrics() {
	registerOnce.Do(func() {
		metrics.Registry.MustRegister(requestsTotal, pendingPasses, lastTrigger, gate)
		for _, r := range []string{
			string(ConclusionTrigger), string(ConclusionNothingRequested), string(ConclusionAlreadyHandled),
			string(ConclusionWaiting), string(ConclusionSuspended), string(ConclusionMissing), string(ConclusionInvalid),
			string(ConclusionFailed), string(ConclusionNotFromChart), ResultError,
		} {
			requestsTotal.WithLabelValues(r)
		}
	})
}
