package main

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/go-logr/logr"
	"github.com/urfave/cli/v2"
	"k8s.io/klog/v2"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"gitlab.com/sylva-projects/sylva-planner/action"
	"gitlab.com/sylva-projects/sylva-planner/cliapp"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/reconciler"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

func controllerCommand() *cli.Command {
	return &cli.Command{
		Name:  "controller",
		Usage: "run the controller that requests each sylva-units pass once, driven by watches",
		Description: "Watches the sylva-units-status ConfigMaps and Kustomizations and the sylva-units\n" +
			"HelmReleases of the namespaces given (-n a,b) or of all, and makes the same decision as `reconcile` on every\n" +
			"change: it patches a HelmRelease only when a pass is requested, not yet handled, and can start.\n" +
			"It serves Prometheus metrics and /healthz, /readyz, elects a leader on a Lease with\n" +
			"--leader-elect, logs JSON on stderr and stops gracefully on SIGTERM.\n\n" +
			"In a cluster: kubectl apply -k config/default\n\n" +
			"Example: sylva-planner controller --all-namespaces --leader-elect",
		ArgsUsage: " ",
		Flags: []cli.Flag{
			cliapp.NamespaceFlag("watch only the release `NAMESPACES` (comma-separated; each needs a RoleBinding, see docs/deploy.md)", ""),
			&cli.BoolFlag{Name: "all-namespaces", Aliases: []string{"A"}, Usage: "watch every namespace"},
			&cli.StringFlag{Name: "helmrelease", Usage: "`NAME` of the sylva-units HelmRelease", Value: status.DefaultHelmRelease, EnvVars: []string{"SYLVA_PLANNER_HELMRELEASE"}},
			&cli.BoolFlag{Name: "leader-elect", Usage: "elect one active replica on a Lease", EnvVars: []string{"SYLVA_PLANNER_LEADER_ELECT"}},
			&cli.StringFlag{Name: "leader-election-namespace", Usage: "`NAMESPACE` of the Lease (default: the pod's namespace)"},
			&cli.StringFlag{Name: "leader-election-id", Usage: "`NAME` of the Lease", Value: reconciler.DefaultLeaderElectionID},
			&cli.StringFlag{Name: "metrics-bind-address", Usage: "`ADDRESS` serving /metrics; 0 disables (default: :8443 with --metrics-secure, else 127.0.0.1:8080)", EnvVars: []string{"SYLVA_PLANNER_METRICS_BIND_ADDRESS"}},
			&cli.BoolFlag{Name: "metrics-secure", Usage: "serve /metrics over HTTPS to callers the API server authenticates and authorizes (get on /metrics); false serves plain HTTP", Value: true, EnvVars: []string{"SYLVA_PLANNER_METRICS_SECURE"}},
			&cli.StringFlag{Name: "health-probe-bind-address", Usage: "`ADDRESS` serving /healthz and /readyz; 0 disables (loopback by default: give :8081 in a pod, where the kubelet calls them on the pod IP)", Value: "127.0.0.1:8081", EnvVars: []string{"SYLVA_PLANNER_HEALTH_PROBE_BIND_ADDRESS"}},
			&cli.StringFlag{Name: "log-level", Usage: "`LEVEL` of the JSON logs: debug, info, warn, error", Value: "info", EnvVars: []string{"SYLVA_PLANNER_LOG_LEVEL"}},
			&cli.StringFlag{Name: "to", Usage: "also export the upgrade gate's gauges (sylva_planner_upgrade_blocked, …) per namespace for an upgrade from its installed release to `RELEASE`", EnvVars: []string{"SYLVA_PLANNER_TO"}},
			catalogFlag(),
			cliapp.KubeconfigFlag(),
		},
		Action: controllerAction,
	}
}

func controllerAction(c *cli.Context) error {
	ns, all := c.String("namespace"), c.Bool("all-namespaces")
	switch {
	case ns != "" && all:
		return cliapp.FlagError(c, errors.New("give --namespace or --all-namespaces, not both"))
	case ns == "" && !all:
		return cliapp.FlagError(c, errors.New("give --namespace NAMESPACE or --all-namespaces"))
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.String("log-level"))); err != nil {
		return cliapp.FlagError(c, fmt.Errorf("--log-level %q: want debug, info, warn or error", c.String("log-level")))
	}
	e := cliapp.EnvOf(c)
	log := logr.FromSlogHandler(slog.NewJSONHandler(e.Stderr, &slog.HandlerOptions{Level: level}))
	// controller-runtime's own packages log through its global logger.
	ctrllog.SetLogger(log)
	// Until the manager is built, client-go's own log of a failing API
	// server would come first, as a JSON line, before the one line that
	// says what failed: it logs from then on.
	klog.SetLogger(logr.Discard())

	cfg, contextName, err := restConfig(e, c.String("kubeconfig"), c.String("context"))
	if err != nil {
		return err
	}
	cfg.UserAgent = "sylva-planner-controller/" + version
	gate, err := controllerGate(c)
	if err != nil {
		return err
	}
	err = reconciler.Run(c.Context, cfg, reconciler.ControllerOptions{
		Namespace:               ns,
		HelmRelease:             c.String("helmrelease"),
		LeaderElection:          c.Bool("leader-elect"),
		LeaderElectionID:        c.String("leader-election-id"),
		LeaderElectionNamespace: c.String("leader-election-namespace"),
		MetricsBindAddress:      metricsBindAddress(c.String("metrics-bind-address"), c.Bool("metrics-secure")),
		MetricsSecure:           c.Bool("metrics-secure"),
		HealthProbeBindAddress:  c.String("health-probe-bind-address"),
		Logger:                  log.WithValues("context", contextName),
		Now:                     time.Now,
		Gate:                    gate,
	}, reconcileWhere(contextName), func() { klog.SetLogger(log) })
	return err
}

// controllerGate is the gate of --to (action.ControllerGate); nil
// without it.
func controllerGate(c *cli.Context) (func(planner.Progress) *planner.Plan, error) {
	if c.String("to") == "" {
		return nil, nil
	}
	cat, err := loadCatalog(c)
	if err != nil {
		return nil, err
	}
	return action.ControllerGate{Catalog: cat, To: c.String("to"), ToolVersion: version, Now: time.Now}.Gate(c.Context)
}

// metricsBindAddress is --metrics-bind-address, or its default: every
// interface for HTTPS with authentication, loopback only for plain HTTP.
func metricsBindAddress(flag string, secure bool) string {
	switch {
	case flag != "":
		return flag
	case secure:
		return ":8443"
	default:
		return "127.0.0.1:8080"
	}
}
