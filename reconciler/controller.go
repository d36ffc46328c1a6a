package reconciler

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/status"
	"gitlab.com/sylva-projects/sylva-planner/status/statuskube"
)

// DefaultLeaderElectionID is the name of the Lease the controllers elect
// their leader on.
const DefaultLeaderElectionID = "sylva-planner-controller"

// DefaultMetricsCertDir is where the controller looks for the serving
// certificate of its secure metrics: where config/manager mounts the
// Secret that cert-manager issues (config/prometheus).
const DefaultMetricsCertDir = "/tmp/k8s-metrics-server/serving-certs"

// ControllerOptions configure a Controller.
type ControllerOptions struct {
	// Namespace restricts the controller to one release namespace, or to
	// several separated by commas ("sylva-system,wc-1"), which its rights
	// may then be limited to (a RoleBinding in each, config/rbac); empty
	// watches all namespaces, which needs rights in all of them.
	Namespace string
	// HelmRelease is the name of the sylva-units HelmRelease;
	// status.DefaultHelmRelease when empty.
	HelmRelease string
	// LeaderElection elects one active controller on a Lease named
	// LeaderElectionID in LeaderElectionNamespace (the pod's namespace when
	// empty and running in a cluster).
	LeaderElection          bool
	LeaderElectionID        string
	LeaderElectionNamespace string
	// MetricsBindAddress serves /metrics; "0" or empty disables it.
	MetricsBindAddress string
	// MetricsSecure serves /metrics over HTTPS (a self-signed certificate)
	// to clients the API server authenticates (TokenReview) and authorizes
	// (SubjectAccessReview of get on the non-resource URL /metrics); false
	// serves plain HTTP to anyone who reaches the address.
	MetricsSecure bool
	// MetricsCertDir holds the serving certificate of the secure metrics
	// (tls.crt, tls.key; read again when they change);
	// DefaultMetricsCertDir when empty. Without them there, a self-signed
	// certificate is served, which no scraper can verify.
	MetricsCertDir string
	// HealthProbeBindAddress serves /healthz and /readyz; "0" or empty
	// disables it.
	HealthProbeBindAddress string
	// Logger receives structured logs; logr.Discard() when zero.
	Logger logr.Logger
	// Now reads the clock, for Events and metrics; required.
	Now func() time.Time
	// GracefulShutdownTimeout bounds the wait for running reconciles on
	// stop; 30s when zero.
	GracefulShutdownTimeout time.Duration
	// Gate, when set, plans the upgrade from what a namespace's status
	// ConfigMap says (planner.TransitionStateOf: the installed release, or the
	// start of the hop whose further pass is pending, as plan --status
	// reads it); the controller exports the plan's verdict gauges
	// (sylva_planner_upgrade_blocked, …) per namespace. A nil plan (the
	// release cannot be planned) clears them.
	Gate func(planner.TransitionState) *planner.Plan
}

// Controller requests the sylva-units passes of the watched namespaces:
// every change of a status ConfigMap, sylva-units-status Kustomization or
// sylva-units HelmRelease runs fetch → Decide → write for its namespace. It
// writes only when Decide says to trigger, and polls nothing.
type Controller struct {
	mgr     manager.Manager
	applier *Applier
	opts    ControllerOptions
	log     logr.Logger

	mu      sync.Mutex
	last    map[string]Decision // per namespace, to log and count changes only
	pending map[string]bool
	stats   Stats
}

// Stats counts what a Controller did since it started.
type Stats struct {
	Reconciles int
	Triggers   int
	Conflicts  int
	Errors     int
	// Outcomes counts the decisions by outcome.
	Outcomes map[Conclusion]int
}

// NewController builds a Controller on a controller-runtime manager for the
// cluster cfg points at. It does not contact the cluster; Start does.
func NewController(cfg *rest.Config, o ControllerOptions) (*Controller, error) {
	if o.Now == nil {
		return nil, errors.New("ControllerOptions.Now is required")
	}
	if o.HelmRelease == "" {
		o.HelmRelease = status.DefaultHelmRelease
	}
	if o.LeaderElectionID == "" {
		o.LeaderElectionID = DefaultLeaderElectionID
	}
	if o.MetricsBindAddress == "" {
		o.MetricsBindAddress = "0"
	}
	if o.HealthProbeBindAddress == "" {
		o.HealthProbeBindAddress = "0"
	}
	if o.MetricsCertDir == "" {
		o.MetricsCertDir = DefaultMetricsCertDir
	}
	if o.GracefulShutdownTimeout == 0 {
		o.GracefulShutdownTimeout = 30 * time.Second
	}
	log := o.Logger
	if log.GetSink() == nil {
		log = logr.Discard()
	}
	registerMetrics()

	ks, hr := &kustomizev1.Kustomization{}, &helmv2.HelmRelease{}
	byName := func(name string) cache.ByObject {
		return cache.ByObject{Field: fields.OneTermEqualSelector("metadata.name", name)}
	}
	cacheOpts := cache.Options{
		// The informers list and watch only the status objects, by name: the
		// ClusterRole may then be limited to those names, and the cache
		// holds three objects per release namespace.
		ByObject: map[client.Object]cache.ByObject{
			&corev1.ConfigMap{}: byName(status.ConfigMapName),
			ks:                  byName(status.KustomizationName),
			hr:                  byName(o.HelmRelease),
		},
	}
	if namespaces := watchedNamespaces(o.Namespace); len(namespaces) > 0 {
		cacheOpts.DefaultNamespaces = map[string]cache.Config{}
		for _, ns := range namespaces {
			cacheOpts.DefaultNamespaces[ns] = cache.Config{}
		}
	}
	mgr, err := ctrl.NewManager(cfg, manager.Options{
		Scheme:                        Scheme(),
		Cache:                         cacheOpts,
		Logger:                        log,
		LeaderElection:                o.LeaderElection,
		LeaderElectionID:              o.LeaderElectionID,
		LeaderElectionNamespace:       o.LeaderElectionNamespace,
		LeaderElectionReleaseOnCancel: true,
		Metrics:                       metricsOptions(o),
		HealthProbeBindAddress:        o.HealthProbeBindAddress,
		GracefulShutdownTimeout:       ptr.To(o.GracefulShutdownTimeout),
	})
	if err != nil {
		return nil, fmt.Errorf("create controller manager: %w", err)
	}
	c := &Controller{
		mgr:  mgr,
		opts: o,
		log:  log,
		applier: &Applier{
			Reader:     mgr.GetCache(),
			LiveReader: mgr.GetAPIReader(),
			Writer:     mgr.GetClient(),
			// The Cluster API objects are read from the API server, in the
			// namespace, at each decision: no informer holds them.
			ClusterAPI: statuskube.NewClusterAPI(mgr.GetAPIReader(), mgr.GetRESTMapper()),
			//nolint:staticcheck // core/v1 Events, which the ClusterRole grants and kubectl describe shows.
			Recorder: mgr.GetEventRecorderFor("sylva-planner-controller"),
			Now:      o.Now,
		},
		last:    map[string]Decision{},
		pending: map[string]bool{},
		stats:   Stats{Outcomes: map[Conclusion]int{}},
	}
	if o.Gate != nil {
		// The Event of a requested pass names it, as the gate places it.
		c.applier.Place = func(obs status.Observation) *status.Transition {
			if p := o.Gate(planner.TransitionStateOf(obs)); p != nil {
				return p.Position.Transition()
			}
			return nil
		}
	}

	// Every event of a namespace's status objects maps to the one request
	// of that namespace, keyed by the HelmRelease.
	toRequest := handler.EnqueueRequestsFromMapFunc(func(_ context.Context, obj client.Object) []reconcile.Request {
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: obj.GetNamespace(), Name: o.HelmRelease}}}
	})
	named := func(name string) builder.Predicates {
		return builder.WithPredicates(predicate.NewPredicateFuncs(func(obj client.Object) bool { return obj.GetName() == name }))
	}
	err = builder.ControllerManagedBy(mgr).
		Named("sylva-units-passes").
		WithOptions(controller.Options{SkipNameValidation: ptr.To(true)}).
		Watches(&corev1.ConfigMap{}, toRequest, named(status.ConfigMapName)).
		Watches(ks, toRequest, named(status.KustomizationName)).
		Watches(hr, toRequest, named(o.HelmRelease)).
		Complete(c)
	if err != nil {
		return nil, fmt.Errorf("build controller: %w", err)
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return nil, fmt.Errorf("add health check: %w", err)
	}
	if err := mgr.AddReadyzCheck("readyz", c.readyz); err != nil {
		return nil, fmt.Errorf("add readiness check: %w", err)
	}
	return c, nil
}

// readyz is ready once the informers have synced.
func (c *Controller) readyz(req *http.Request) error {
	ctx, cancel := context.WithTimeout(req.Context(), time.Second)
	defer cancel()
	if !c.mgr.GetCache().WaitForCacheSync(ctx) {
		return errors.New("informers not synced")
	}
	return nil
}

// Start runs the controller until ctx ends, then stops gracefully: running
// reconciles finish and the Lease is released.
func (c *Controller) Start(ctx context.Context) error {
	scope := "all namespaces"
	if namespaces := watchedNamespaces(c.opts.Namespace); len(namespaces) > 0 {
		scope = "namespace " + strings.Join(namespaces, ", ")
	}
	c.log.Info("starting", "scope", scope, "helmRelease", c.opts.HelmRelease, "leaderElection", c.opts.LeaderElection)
	if err := c.mgr.Start(ctx); err != nil {
		return fmt.Errorf("run controller: %w", err)
	}
	c.log.Info("stopped")
	return nil
}

// Stats returns a copy of the counters.
func (c *Controller) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Outcomes = make(map[Conclusion]int, len(c.stats.Outcomes))
	for k, v := range c.stats.Outcomes {
		s.Outcomes[k] = v
	}
	return s
}

// Reconcile runs fetch → Decide → write for the namespace of req.
func (c *Controller) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	t := Target{Namespace: req.Namespace, HelmRelease: c.opts.HelmRelease}
	log := c.log.WithValues("namespace", req.Namespace, "helmRelease", req.Name)
	res, err := c.applier.Apply(ctx, t)

	c.mu.Lock()
	defer c.mu.Unlock()
	c.stats.Reconciles++
	c.stats.Conflicts += res.Conflicts
	if err != nil {
		c.stats.Errors++
		requestsTotal.WithLabelValues(ResultError).Inc()
		// Returned, not logged: controller-runtime logs it and retries with
		// backoff.
		return reconcile.Result{}, err
	}
	d := res.Decision
	c.stats.Outcomes[d.Outcome]++
	prev, seen := c.last[req.Namespace]
	c.last[req.Namespace] = d
	if res.Triggered {
		c.stats.Triggers++
		lastTrigger.Set(float64(c.opts.Now().UnixNano()) / 1e9)
		log.Info("pass requested", "request", d.Request, "source", d.Source, "conflicts", res.Conflicts)
		if res.EventErr != nil {
			log.Error(res.EventErr, "pass requested but its Event was not recorded", "request", d.Request)
		}
	} else if !seen || prev != d {
		log.Info("decision", "outcome", d.Outcome, "request", d.Request, "reason", d.Reason)
	}
	// Count a decision once per change, so that the counter says how often
	// each outcome was reached rather than how many events arrived.
	if res.Triggered || !seen || prev != d {
		requestsTotal.WithLabelValues(string(d.Outcome)).Inc()
	}
	if d.Pending() && !res.Triggered {
		c.pending[req.Namespace] = true
	} else {
		delete(c.pending, req.Namespace)
	}
	pendingPasses.Set(float64(len(c.pending)))
	if c.opts.Gate != nil {
		var p *planner.Plan
		if obs := res.Snapshot.Input.Observation; obs.ConfigMap != nil {
			if _, _, ok := obs.ConfigMap.Release(); ok {
				p = c.opts.Gate(planner.TransitionStateOf(obs))
			}
		}
		setGateGauges(req.Namespace, p)
	}
	return reconcile.Result{}, nil
}

// watchedNamespaces splits ControllerOptions.Namespace at its commas,
// without blanks and duplicates, in the order given; nil for all
// namespaces.
func watchedNamespaces(s string) []string {
	var out []string
	for _, ns := range strings.Split(s, ",") {
		if ns = strings.TrimSpace(ns); ns != "" && !slices.Contains(out, ns) {
			out = append(out, ns)
		}
	}
	return out
}

// metricsOptions serves /metrics at o.MetricsBindAddress, behind the API
// server's authentication and authorization when o.MetricsSecure.
func metricsOptions(o ControllerOptions) metricsserver.Options {
	m := metricsserver.Options{BindAddress: o.MetricsBindAddress}
	if o.MetricsSecure {
		m.SecureServing = true
		m.CertDir = o.MetricsCertDir
		m.FilterProvider = func(cfg *rest.Config, hc *http.Client) (metricsserver.Filter, error) {
			return apiServerAuth(cfg, hc, o.Now)
		}
	}
	return m
}

// Run builds the controller (NewController) and starts it until ctx ends.
// Building reads the API server (discovery) without a context: each
// request is bounded by cfg's timeout, and ctx ending during start-up
// returns at once. where names the cluster in errors (" (context NAME)").
//
// Run routes the process's loggers to o.Logger: controller-runtime's at
// once, client-go's (klog) once the controller is built. Until then klog
// is silent, so that an API server that cannot be reached is said in the
// one error Run returns, not first logged line by line.
func Run(ctx context.Context, cfg *rest.Config, o ControllerOptions, where string) error {
	if o.Logger.GetSink() == nil {
		o.Logger = logr.Discard()
	}
	RouteControllerRuntimeLogs(o.Logger)
	klog.SetLogger(logr.Discard())
	type built struct {
		ctl *Controller
		err error
	}
	ch := make(chan built, 1)
	go func() {
		ctl, err := NewController(cfg, o)
		ch <- built{ctl, err}
	}()
	var b built
	select {
	case b = <-ch:
	case <-ctx.Done():
		return fmt.Errorf("interrupted during start-up%s", where)
	}
	if b.err != nil {
		return fmt.Errorf("%w%s", b.err, where)
	}
	klog.SetLogger(o.Logger)
	if err := b.ctl.Start(ctx); err != nil {
		return fmt.Errorf("%w%s", err, where)
	}
	return nil
}
