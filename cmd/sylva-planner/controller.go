package main

import (
	"time"

	"github.com/urfave/cli/v2"

	"gitlab.com/sylva-projects/sylva-planner/action"
	"gitlab.com/sylva-projects/sylva-planner/cliapp"
	"gitlab.com/sylva-projects/sylva-planner/reconciler"
)

func controllerCommand() *cli.Command {
	o := &controllerOptions{}
	opts, gate := &o.req.Controller, &o.req.Gate
	return &cli.Command{
		Name:  "controller",
		Usage: "run the controller that requests each sylva-units pass once, driven by watches",
		Description: "Watches the sylva-units-status ConfigMaps and Kustomizations and the sylva-units\n" +
			"HelmReleases of the namespaces given (-n a,b) or of all, and makes the same decision as `reconcile` on every\n" +
			"change: it patches a HelmRelease only when a pass is requested, not yet handled, and can start.\n" +
			"It serves Prometheus metrics and /healthz, /readyz, elects a leader on a Lease with\n" +
			"--leader-elect, logs JSON on stderr and stops gracefully on SIGTERM. See docs/reconcile.md and docs/deploy.md.\n\n" +
			"Examples:\n" +
			"  # in a cluster\n" +
			"  kubectl apply -k config/default\n\n" +
			"  # every namespace, one active replica\n" +
			"  sylva-planner controller --all-namespaces --leader-elect\n\n" +
			"Exit codes:\n" +
			"  1 it could not start: a bad flag, a cluster that cannot be read, a signal during start-up\n\n" +
			"Once started it runs until stopped: SIGTERM stops it gracefully (see docs/reconcile.md).",
		ArgsUsage: " ",
		Flags: append([]cli.Flag{
			bound(cliapp.NamespaceFlag("watch only the release `NAMESPACES` (comma-separated; each needs a RoleBinding, see docs/deploy.md)", ""), &opts.Namespace),
			&cli.BoolFlag{Name: "all-namespaces", Aliases: []string{"A"}, Usage: "watch every namespace", Destination: &o.req.AllNamespaces},
			bound(helmReleaseFlag(), &opts.HelmRelease),
			&cli.BoolFlag{Name: "leader-elect", Usage: "elect one active replica on a Lease", EnvVars: []string{"SYLVA_PLANNER_LEADER_ELECT"}, Destination: &opts.LeaderElection},
			&cli.StringFlag{Name: "leader-election-namespace", Usage: "`NAMESPACE` of the Lease (default: the pod's namespace)", Destination: &opts.LeaderElectionNamespace},
			&cli.StringFlag{Name: "leader-election-id", Usage: "`NAME` of the Lease", Value: reconciler.DefaultLeaderElectionID, Destination: &opts.LeaderElectionID},
			&cli.StringFlag{Name: "metrics-bind-address", Usage: "`ADDRESS` serving /metrics; 0 disables (default: :8443 with --metrics-secure, else 127.0.0.1:8080)", EnvVars: []string{"SYLVA_PLANNER_METRICS_BIND_ADDRESS"}, Destination: &opts.MetricsBindAddress},
			&cli.BoolFlag{Name: "metrics-secure", Usage: "serve /metrics over HTTPS to callers the API server authenticates and authorizes (get on /metrics); false serves plain HTTP", Value: true, EnvVars: []string{"SYLVA_PLANNER_METRICS_SECURE"}, Destination: &opts.MetricsSecure},
			&cli.StringFlag{Name: "health-probe-bind-address", Usage: "`ADDRESS` serving /healthz and /readyz; 0 disables (loopback by default: give :8081 in a pod, where the kubelet calls them on the pod IP)", Value: "127.0.0.1:8081", EnvVars: []string{"SYLVA_PLANNER_HEALTH_PROBE_BIND_ADDRESS"}, Destination: &opts.HealthProbeBindAddress},
			&cli.StringFlag{Name: "log-level", Usage: "`LEVEL` of the JSON logs: debug, info, warn, error", Value: "info", EnvVars: []string{"SYLVA_PLANNER_LOG_LEVEL"}, Destination: &o.req.LogLevel},
			&cli.StringFlag{Name: "to", Usage: "also export the upgrade gate's gauges (sylva_planner_upgrade_blocked, …) per namespace for an upgrade from its installed release to `RELEASE`", EnvVars: []string{"SYLVA_PLANNER_TO"}, Destination: &gate.To},
			catalogFlag(),
		}, o.conn.Flags()...),
		Action: o.run,
	}
}

// controllerOptions are the flags of controller, bound.
type controllerOptions struct {
	req  action.ControllerRequest
	conn cliapp.Connection
}

func (o *controllerOptions) run(c *cli.Context) error {
	e := cliapp.EnvOf(c)
	req := o.req
	req.Controller.Now, req.Log = time.Now, e.Stderr
	req.Gate.ToolVersion, req.Gate.Now = version, time.Now
	if err := req.Validate(); err != nil {
		return err
	}
	cfg, contextName, err := restConfig(e, o.conn.Kubeconfig, o.conn.Context)
	if err != nil {
		return err
	}
	cfg.UserAgent = "sylva-planner-controller/" + version
	if req.Gate.To != "" {
		if req.Gate.Catalog, err = loadCatalog(c); err != nil {
			return err
		}
	}
	req.Context = contextName
	opts, err := req.Options(c.Context)
	if err != nil {
		return err
	}
	return reconciler.Run(c.Context, cfg, opts, action.Where(contextName))
}
