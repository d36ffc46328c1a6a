package main

import (
	"bytes"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"gitlab.com/sylva-projects/sylva-planner/action"
	"gitlab.com/sylva-projects/sylva-planner/cliapp"
	"gitlab.com/sylva-projects/sylva-planner/fileio"
	"gitlab.com/sylva-projects/sylva-planner/gatemetrics"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

const planHelp = "Prints the route, each reconciliation pass of the sylva-units HelmRelease with the helper\n" +
	"values it sets, the control-plane, worker and Longhorn versions per pass, what the\n" +
	"sylva-units-status ConfigMap must say after each pass, the findings and the verdict.\n\n" +
	"Without --from, the installed release is read from the sylva-units-status ConfigMap: from\n" +
	"--status FILE, or live. --inventory DIR judges the component versions that really run\n" +
	"(kubectl get -A -o yaml dumps, Helm release Secrets) and, as drain-check does, the\n" +
	"PodDisruptionBudgets and workloads they hold.\n\n" +
	"Offline unless asked: --live, --kubeconfig or --context read the cluster kubectl would (the\n" +
	"files in KUBECONFIG, then ~/.kube/config; --context, -n, --as) for the installed release,\n" +
	"the running components and the drain and removed-API checks. KUBECONFIG alone keeps it\n" +
	"offline. The header lists the inputs read.\n\n" +
	"Examples:\n" +
	"  # the passes from 1.4 to 1.6, the findings and the verdict, as JSON\n" +
	"  sylva-planner plan --from 1.4 --to 1.6 -o json\n\n" +
	"  # the installed release, the running components and the drains read from the cluster\n" +
	"  sylva-planner plan --to 1.6 --context kind-mgmt -n sylva-system\n\n" +
	"  # a gate in CI: warnings fail too, but not the findings of last night's report\n" +
	"  sylva-planner plan --from 1.4 --to 1.6 --fail-on warning --baseline last-night.json -o json\n\n" +
	"  # every release of the management cluster, those that can start now first\n" +
	"  sylva-planner plan -A --to 1.6\n\n" +
	"Exit codes:\n" +
	"  0 ready, or nothing at or above --fail-on (--fail-on never: always, once the plan is computed)\n" +
	"  1 bad input: an unreadable file, a release the catalog does not cover, a cluster that cannot\n" +
	"    be read\n" +
	"  2 blocked: an actionable blocker, or a required check not assessed (verdict unknown) without\n" +
	"    --allow-incomplete\n" +
	"  3 the gate could not evaluate (the metrics file could not be written, say): treat it as blocked\n" +
	"  4 held: every blocker waits on upstream or is pinned on purpose\n\n" +
	"-A exits with the worst outcome of the releases and of the fleet's order (2, else 4, else 0),\n" +
	"and 3 when a release that has a status could not be planned."

func planCommand() *cli.Command {
	o := &planOptions{}
	return &cli.Command{
		Name:        "plan",
		Usage:       "compute the reconciliation passes that take a cluster from one Sylva release to another",
		Description: planHelp,
		ArgsUsage:   " ",
		Flags:       append(o.flags(), cliapp.OutputFlag(cliapp.FormatTable, cliapp.FormatJSON, cliapp.FormatYAML, cliapp.FormatMarkdown), planAllNamespacesFlag(&o.allNamespaces)),
		Action: func(c *cli.Context) error {
			if o.allNamespaces {
				return o.runFleet(c)
			}
			return o.run(c, false)
		},
	}
}

func reportCommand() *cli.Command {
	o := &planOptions{}
	return &cli.Command{
		Name:  "report",
		Usage: "write the nightly upgrade report: headline, then reasons grouped by what to do",
		Description: "Computes the same plan and verdict as `plan` and writes a report for people: a headline\n" +
			"(READY, BLOCKED — act, HELD — not yet upgradable, UNKNOWN), then the reasons grouped:\n" +
			"action needed, waiting on upstream, pinned (held by us), everything else. The HTML is one\n" +
			"self-contained page. Offline unless --live, --kubeconfig or --context, as plan; the header\n" +
			"lists the inputs read.\n\n" +
			"Examples:\n" +
			"  # the report of the upgrade from 1.4 to 1.6 as one HTML page\n" +
			"  sylva-planner report --from 1.4 --to 1.6 -o html > report.html\n\n" +
			"  # the nightly report of the cluster of the current context, in Markdown\n" +
			"  sylva-planner report --to 1.6 --live\n\n" +
			"Exit codes:\n" +
			"  0 ready, or nothing at or above --fail-on\n" +
			"  1 bad input: an unreadable file, a release the catalog does not cover, a cluster that cannot\n" +
			"    be read\n" +
			"  2 blocked: an actionable blocker, or a required check not assessed (verdict unknown) without\n" +
			"    --allow-incomplete\n" +
			"  3 the gate could not evaluate: treat it as blocked\n" +
			"  4 held: every blocker waits on upstream or is pinned on purpose",
		ArgsUsage: " ",
		Flags:     append(o.flags(), cliapp.OutputFlag(cliapp.FormatMarkdown, cliapp.FormatHTML, cliapp.FormatJSON, cliapp.FormatYAML)),
		Action:    func(c *cli.Context) error { return o.run(c, true) },
	}
}

// planFlags define a plan without a cluster, bound to r: the flags every
// command that computes a plan takes.
func planFlags(r *action.Releases) []cli.Flag {
	return planFlagsFrom(r, "Sylva release the cluster runs, for example `1.4`", "Kubernetes `MINOR` the workers run, when it differs from the management minor of --from")
}

// planFlagsFrom are planFlags with the help of --from and --workers, which
// say where the transition starts (verify runs once it is done).
func planFlagsFrom(r *action.Releases, from, workers string) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "from", Usage: from, EnvVars: []string{"SYLVA_PLANNER_FROM"}, Destination: &r.From},
		&cli.StringFlag{Name: "to", Usage: "Sylva release to go to, for example `1.6`", EnvVars: []string{"SYLVA_PLANNER_TO"}, Destination: &r.To},
		&cli.StringFlag{Name: "bootstrap-provider", Usage: "Cluster API bootstrap provider: `kubeadm` or rke2 (default: kubeadm, or rke2 when an inventory's nodes run RKE2)", EnvVars: []string{"SYLVA_PLANNER_BOOTSTRAP_PROVIDER"}, Destination: &r.Provider},
		&cli.StringFlag{Name: "workers", Usage: workers, Destination: &r.Workers},
		&cli.StringFlag{Name: "cluster", Usage: "which cluster of the fleet: `management` (the release in sylva-system, on each release's management minor) or workload (its own minor, inside each release's window; implied by --kubernetes)", Destination: &r.Cluster},
		&cli.StringFlag{Name: "kubernetes", Usage: "Kubernetes `MINOR` a workload cluster's control plane runs (its values' k8s_version_short), when it differs from the management minor of --from", Destination: &r.Kubernetes},
		&cli.StringFlag{Name: "kubernetes-to", Usage: "Kubernetes `MINOR` a workload cluster ends on, in --to's window (default: its own minor when the window holds it, else the window's nearest)", Destination: &r.KubernetesTo},
		cliapp.AsOfFlag(),
		catalogFlag(),
	}
}

// planOptions are the flags of plan and report, each bound to the field
// of the request it sets; run completes the request with what is parsed
// from the command line as a whole (catalog, date, selection).
type planOptions struct {
	rel            action.Releases
	req            action.PlanRequest
	conn           cliapp.Connection
	prodNamespaces string
	metricsFile    string
	allNamespaces  bool
}

// flags are the flags plan and report share.
func (o *planOptions) flags() []cli.Flag {
	src := &o.req.Sources
	return append(append(planFlags(&o.rel), prodNamespacesFlag(&o.prodNamespaces),
		&cli.StringFlag{Name: "inventory", Usage: "judge what runs: read manifests from `DIR` (kubectl get -A -o yaml dumps, Helm release Secrets): component versions, and drains as drain-check judges them", EnvVars: []string{"SYLVA_PLANNER_INVENTORY"}, TakesFile: true, Destination: &src.Inventory},
		&cli.StringFlag{Name: "status", Usage: "read the installed release from the sylva-units-status ConfigMap in `FILE` (instead of --from); a further pass it asks for is planned from where its hop started, with the passes done marked", TakesFile: true, Destination: &src.File}),
		append(o.conn.LiveFlags("the installed release (without --from or --status), the running components and the drain and removed-API checks"),
			bound(cliapp.NamespaceFlag("release `NAMESPACE` of sylva-units for the live read", status.DefaultNamespace), &src.Namespace),
			severityFailOnFlag(),
			&cli.BoolFlag{Name: "allow-incomplete", Usage: "do not fail when a required check was not assessed (verdict unknown)", EnvVars: []string{"SYLVA_PLANNER_ALLOW_INCOMPLETE"}, Destination: &o.req.Gate.AllowIncomplete},
			&cli.StringFlag{Name: "baseline", Usage: "a previous JSON report (`FILE`): findings it already had do not fail the gate again", EnvVars: []string{"SYLVA_PLANNER_BASELINE"}, TakesFile: true, Destination: &o.req.BaselineFile},
			&cli.StringFlag{Name: "suppressions", Usage: "a YAML `FILE` of suppression rules (code, subject glob, reason, expires)", EnvVars: []string{"SYLVA_PLANNER_SUPPRESSIONS"}, TakesFile: true, Destination: &o.req.SuppressionsFile},
			&cli.StringFlag{Name: "metrics-file", Usage: "also write the verdict gauges to `PATH` (Prometheus text format, written atomically) for node-exporter's textfile collector", EnvVars: []string{"SYLVA_PLANNER_METRICS_FILE"}, TakesFile: true, Destination: &o.metricsFile},
		)...)
}

// run is plan, or report: the plan computed once, written, its gauges
// to --metrics-file, and the gate's exit code.
func (o *planOptions) run(c *cli.Context, report bool) error {
	req, err := o.request(c)
	if err != nil {
		return err
	}
	p, err := req.Run(c.Context)
	if err != nil {
		return err
	}
	if err := cliapp.WriteOutput(c, planWriters(p, report)); err != nil {
		return err
	}
	if err := writeMetrics(c, o.metricsFile, func(w io.Writer) error { return gatemetrics.Write(w, p) }); err != nil {
		return err
	}
	return outcomeExit(action.Outcome(p.Gate.Outcome))
}

// writeMetrics writes the gauges write gives to the --metrics-file name
// (none without it), atomically, once the result is on stdout: a failed
// write leaves the previous metrics in place.
func writeMetrics(c *cli.Context, name string, write func(io.Writer) error) error {
	if name == "" {
		return nil
	}
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return fmt.Errorf("--metrics-file: %w", err)
	}
	if err := fileio.WriteFile(cliapp.EnvOf(c).Path(name), buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("--metrics-file: %w", err)
	}
	return nil
}

// request completes the request the flags of plan and report bound: the
// catalog, the date, the command line and the inputs it names, after
// refusing a --metrics-file that cannot be written (before any work; the
// file is written after stdout). Errors name the flag.
func (o *planOptions) request(c *cli.Context) (action.PlanRequest, error) {
	req := o.req
	e := cliapp.EnvOf(c)
	req.CatalogInput, req.Rerun, req.Selection = catalogFile(c).Input(), rerunCommand(c), selectionOf(c)
	req.Gate.FailOn = failOnOf(c)
	// Offline unless asked: KUBECONFIG alone does not make plan live.
	req.Sources.Readers, req.Sources.HelmRelease = readersOf(e), status.DefaultHelmRelease
	req.Sources.Live, req.Sources.Kubeconfig, req.Sources.Context = o.conn.Asked(), o.conn.Kubeconfig, o.conn.Context
	if o.metricsFile != "" {
		if err := fileio.CheckOutput(e.Path(o.metricsFile)); err != nil {
			return req, fmt.Errorf("--metrics-file: %w", err)
		}
	}
	cin, err := commandInputsOf(c)
	if err != nil {
		return req, err
	}
	req.Releases = o.rel
	req.Catalog, req.AsOf, req.ToolVersion = cin.cat, cin.asOf, version
	req.ProdNamespaces, err = parseProdNamespaces(c, o.prodNamespaces)
	return req, err
}

// planWriters write a plan in each format of plan, or of report: the same
// document in JSON and YAML, the report for people in Markdown and HTML.
func planWriters(p *planner.Plan, report bool) cliapp.Writers {
	if report {
		return cliapp.DocumentWriters(nil, p.Document()).With(cliapp.FormatMarkdown, p.WriteReportMarkdown).With(cliapp.FormatHTML, p.WriteReportHTML)
	}
	return cliapp.DocumentWriters(p.WriteTable, p.Document()).With(cliapp.FormatMarkdown, p.WriteMarkdown)
}
