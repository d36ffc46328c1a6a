package action

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/go-logr/logr"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/reconciler"
)

// ControllerGate is the upgrade gate the controller exports with --to: for
// each namespace, the plan the plan command makes from the status the
// controller's watch read, to To.
type ControllerGate struct {
	Catalog     *catalog.Catalog
	To          string
	ToolVersion string
	// Now is the clock: each plan is made for the day it is made.
	Now func() time.Time
}

// Gate is the controller's gate (reconciler.ControllerOptions.Gate): nil
// without To; an error naming --to when To is no release. A status the
// gate cannot plan from gives no plan.
func (g ControllerGate) Gate(ctx context.Context) (func(planner.TransitionState) *planner.Plan, error) {
	if g.To == "" {
		return nil, nil
	}
	if _, err := parseTo(g.To); err != nil {
		return nil, err
	}
	return func(pr planner.TransitionState) *planner.Plan {
		p, err := PlanRequest{Releases: Releases{Catalog: g.Catalog, To: g.To, AsOf: g.Now().UTC(), ToolVersion: g.ToolVersion}, Progress: &pr}.Run(ctx)
		if err != nil {
			return nil
		}
		return p
	}, nil
}

// ControllerRequest is the controller command: the controller's options
// as the flags give them (Controller: the namespaces it watches, its
// leader election, where it serves its metrics and probes), its scope, its
// log, and with Gate.To the upgrade gate it exports. The command line runs
// the controller Options describe on the cluster client it builds
// (reconciler.Run).
type ControllerRequest struct {
	// Controller holds the options as given; Options completes them.
	// Controller.Namespace is one release namespace or several separated
	// by commas; AllNamespaces watches every namespace. Exactly one is
	// given. An empty Controller.MetricsBindAddress is the default of
	// MetricsSecure (MetricsAddress).
	Controller    reconciler.ControllerOptions
	AllNamespaces bool
	// LogLevel is that of the JSON log written to Log: debug, info, warn
	// or error.
	LogLevel string
	Log      io.Writer
	// Gate exports the upgrade gate's gauges when its To is set.
	Gate ControllerGate
	// Context names the kubeconfig context of the cluster in the log;
	// empty when none.
	Context string
}

// Validate refuses a request that cannot run (BadRequestError): both or
// neither of the namespaces and all of them, an unknown log level.
func (r ControllerRequest) Validate() error {
	switch ns := r.Controller.Namespace; {
	case ns != "" && r.AllNamespaces:
		return badRequest("give --namespace or --all-namespaces, not both")
	case ns == "" && !r.AllNamespaces:
		return badRequest("give --namespace NAMESPACE or --all-namespaces")
	}
	_, err := r.level()
	return err
}

func (r ControllerRequest) level() (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(r.LogLevel)); err != nil {
		return l, badRequest("--log-level %q: want debug, info, warn or error", r.LogLevel)
	}
	return l, nil
}

// MetricsAddress is where /metrics is served: the address given, or by
// default every interface for HTTPS behind the API server's
// authentication, loopback only for plain HTTP.
func (r ControllerRequest) MetricsAddress() string {
	switch {
	case r.Controller.MetricsBindAddress != "":
		return r.Controller.MetricsBindAddress
	case r.Controller.MetricsSecure:
		return ":8443"
	default:
		return "127.0.0.1:8080"
	}
}

// Options are the options of the controller the request describes: those
// given, with the metrics address, the JSON log on Log (with the context),
// and the gate of Gate.To (none without it; an error names --to when it
// is no release).
func (r ControllerRequest) Options(ctx context.Context) (reconciler.ControllerOptions, error) {
	if err := r.Validate(); err != nil {
		return reconciler.ControllerOptions{}, err
	}
	level, _ := r.level()
	gate, err := r.Gate.Gate(ctx)
	if err != nil {
		return reconciler.ControllerOptions{}, err
	}
	o := r.Controller
	o.MetricsBindAddress = r.MetricsAddress()
	o.Logger = logr.FromSlogHandler(slog.NewJSONHandler(r.Log, &slog.HandlerOptions{Level: level})).WithValues("context", r.Context)
	o.Gate = gate
	return o, nil
}

// Where names the cluster of a kubeconfig context in errors
// (" (context NAME)"); empty without a context.
func Where(contextName string) string {
	if contextName == "" {
		return ""
	}
	return " (context " + strings.TrimSpace(contextName) + ")"
}
