package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"
	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/fileio"
	"gitlab.com/sylva-projects/sylva-planner/flux"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/skew"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

const planHelp = "Prints the route, each reconciliation pass of the sylva-units HelmRelease with the helper\n" +
	"values it sets, the control-plane, worker and Longhorn versions per pass, what the\n" +
	"sylva-units-status ConfigMap must say after each pass, the findings and the verdict.\n\n" +
	"Without --from, the installed release is read from the sylva-units-status ConfigMap: from\n" +
	"--status FILE, or live (--kubeconfig, --context, -n). --inventory DIR judges the component\n" +
	"versions that really run (kubectl get -A -o yaml dumps, Helm release Secrets).\n\n" +
	"Exit codes: 0 ready (or nothing at or above --fail-on); 1 bad input; 2 blocked, or unknown\n" +
	"without --allow-incomplete; 3 the gate could not evaluate; 4 held.\n\n" +
	"Example: sylva-planner plan --from 1.4 --to 1.6 -o json"

func planCommand() *cli.Command {
	return &cli.Command{
		Name:        "plan",
		Usage:       "compute the reconciliation passes that take a cluster from one Sylva release to another",
		Description: planHelp,
		ArgsUsage:   " ",
		Flags:       append(gateFlags(), outputFlag(formatTable, formatJSON, formatYAML, formatMarkdown), &cli.StringFlag{Name: "metrics-file", Usage: "also write the verdict gauges to `PATH` (Prometheus text format, written atomically) for node-exporter's textfile collector", EnvVars: []string{"SYLVA_PLANNER_METRICS_FILE"}, TakesFile: true}),
		Action:      func(c *cli.Context) error { return gateAction(c, false) },
	}
}

func reportCommand() *cli.Command {
	return &cli.Command{
		Name:  "report",
		Usage: "write the nightly upgrade report: headline, then reasons grouped by what to do",
		Description: "Computes the same plan and verdict as `plan` and writes a report for people: a headline\n" +
			"(READY, BLOCKED — act, HELD — not yet upgradable, UNKNOWN), then the reasons grouped:\n" +
			"action needed, waiting on upstream, pinned (held by us), everything else. The HTML is one\n" +
			"self-contained page. Exit codes as for plan.\n\n" +
			"Example: sylva-planner report --from 1.4 --to 1.6 -o html > report.html",
		ArgsUsage: " ",
		Flags:     append(gateFlags(), outputFlag(formatMarkdown, formatHTML, formatJSON, formatYAML), &cli.StringFlag{Name: "metrics-file", Usage: "also write the verdict gauges to `PATH`", EnvVars: []string{"SYLVA_PLANNER_METRICS_FILE"}, TakesFile: true}),
		Action:    func(c *cli.Context) error { return gateAction(c, true) },
	}
}

// planFlags define a plan without a cluster: the flags every command that
// computes a plan takes.
func planFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "from", Usage: "Sylva release the cluster runs, for example `1.4`", EnvVars: []string{"SYLVA_PLANNER_FROM"}},
		&cli.StringFlag{Name: "to", Usage: "Sylva release to go to, for example `1.6`", EnvVars: []string{"SYLVA_PLANNER_TO"}},
		&cli.StringFlag{Name: "bootstrap-provider", Usage: "Cluster API bootstrap provider: `kubeadm` or rke2 (default: kubeadm, or rke2 when an inventory's nodes run RKE2)", EnvVars: []string{"SYLVA_PLANNER_BOOTSTRAP_PROVIDER"}},
		&cli.StringFlag{Name: "workers", Usage: "Kubernetes `MINOR` the workers run, when it differs from the management minor of --from"},
		asOfFlag(),
		catalogFlag(),
	}
}

// planOptions are the values of planFlags.
type planOptions struct{ from, to, workers, provider string }

// planInput turns planFlags into a planner.Input, refusing what does not
// parse with the flag's name and the fix.
func planInput(cat *catalog.Catalog, opts planOptions) (planner.Input, error) {
	in := planner.Input{Catalog: cat, ToolVersion: version, FromSource: "flag"}
	var err error
	if opts.from == "" {
		return in, errors.New("--from is required, for example: sylva-planner plan --from 1.4 --to 1.6")
	}
	if opts.to == "" {
		return in, fmt.Errorf("--to is required, for example: sylva-planner plan --from %s --to %s", opts.from, cat.Newest())
	}
	if in.From, err = skew.Parse(opts.from); err != nil {
		return in, fmt.Errorf("--from: %w; give a Sylva release such as 1.4", err)
	}
	if in.To, err = skew.Parse(opts.to); err != nil {
		return in, fmt.Errorf("--to: %w; give a Sylva release such as 1.6", err)
	}
	if opts.workers != "" {
		if in.Workers, err = skew.Parse(opts.workers); err != nil {
			return in, fmt.Errorf("--workers: %w; give a Kubernetes minor such as 1.30", err)
		}
	}
	if opts.provider == "" {
		opts.provider = string(catalog.ProviderKubeadm)
	}
	if in.Provider, err = catalog.ParseProvider(opts.provider); err != nil {
		return in, fmt.Errorf("--bootstrap-provider: %w", err)
	}
	return in, nil
}

// gateFlags are the flags plan and report share.
func gateFlags() []cli.Flag {
	return append(append(planFlags(), liveFlags()...),
		&cli.StringFlag{Name: "inventory", Usage: "judge what runs: read manifests from `DIR` (kubectl get -A -o yaml dumps, Helm release Secrets)", EnvVars: []string{"SYLVA_PLANNER_INVENTORY"}, TakesFile: true},
		&cli.StringFlag{Name: "status", Usage: "read the installed release from the sylva-units-status ConfigMap in `FILE` (when --from is not given)", TakesFile: true},
		kubeconfigFlag("read the installed release live with kubeconfig `FILE` (when --from is not given)"),
		contextFlag("kubeconfig `CONTEXT` for the live read"),
		namespaceFlag("release `NAMESPACE` of sylva-units for the live read", status.DefaultNamespace),
		failOnFlag(),
		&cli.BoolFlag{Name: "allow-incomplete", Usage: "do not fail when a required check was not assessed (verdict unknown)", EnvVars: []string{"SYLVA_PLANNER_ALLOW_INCOMPLETE"}},
		&cli.StringFlag{Name: "baseline", Usage: "a previous JSON report (`FILE`): findings it already had do not fail the gate again", EnvVars: []string{"SYLVA_PLANNER_BASELINE"}, TakesFile: true},
		&cli.StringFlag{Name: "suppressions", Usage: "a YAML `FILE` of suppression rules (code, subject glob, reason, expires)", EnvVars: []string{"SYLVA_PLANNER_SUPPRESSIONS"}, TakesFile: true},
	)
}

// gateOptions are the flags of plan and report, read once.
type gateOptions struct {
	from, to, workers, provider string
	inventory, statusFile       string
	live                        statusOptions
	baseline, suppressions      string
	metricsFile                 string
	output                      format
	failOn                      failOn
	allowIncomplete             bool
}

func gateOptionsOf(c *cli.Context) gateOptions {
	return gateOptions{
		from: c.String("from"), to: c.String("to"), workers: c.String("workers"), provider: c.String("bootstrap-provider"),
		inventory: c.String("inventory"), statusFile: c.String("status"),
		live:     statusOptions{kubeconfig: c.String("kubeconfig"), context: c.String("context"), namespace: c.String("namespace"), helmRelease: status.DefaultHelmRelease},
		baseline: c.String("baseline"), suppressions: c.String("suppressions"), metricsFile: c.String("metrics-file"),
		output: outputOf(c), failOn: failOnOf(c), allowIncomplete: c.Bool("allow-incomplete"),
	}
}

func gateAction(c *cli.Context, report bool) error {
	if c.Args().Len() > 0 {
		return usageError(c, fmt.Errorf("%s takes no argument, got %q (use --from and --to)", c.Command.Name, c.Args().First()), true)
	}
	e := envOf(c)
	opts := gateOptionsOf(c)
	if opts.metricsFile != "" {
		// Refused before any work, written after stdout.
		if err := fileio.CheckOutput(e.path(opts.metricsFile)); err != nil {
			return withCode(exitError, fmt.Errorf("--metrics-file: %w", err))
		}
	}
	asOf, err := asOfOf(c)
	if err != nil {
		return withCode(exitError, err)
	}
	cat, err := loadCatalog(c)
	if err != nil {
		return withCode(exitError, err)
	}
	in, err := gateInput(c, e, cat, opts)
	if err != nil {
		return withCode(exitError, err)
	}
	in.AsOf = asOf
	in.Gate = planner.GateOptions{FailOn: planner.FailOn(opts.failOn), AllowIncomplete: opts.allowIncomplete}
	in.Rerun, in.Follow = rerunCommand(c), followCommand(c)
	if err := addLiveChecks(c, e, cat, &in, opts); err != nil {
		return withCode(exitError, err)
	}
	p, err := planner.Compute(in)
	if err != nil {
		return withCode(exitError, err)
	}
	if err := writeAs(c, opts.output, planWriters(p, report)); err != nil {
		return err
	}
	if opts.metricsFile != "" {
		// Only once the result is on stdout: a failed write leaves the
		// previous metrics in place.
		var buf bytes.Buffer
		if err := flux.WriteGateMetrics(&buf, p); err != nil {
			return withCode(exitError, fmt.Errorf("--metrics-file: %w", err))
		}
		if err := fileio.WriteFile(e.path(opts.metricsFile), buf.Bytes(), 0o644); err != nil {
			return withCode(exitError, fmt.Errorf("--metrics-file: %w", err))
		}
	}
	return withCode(gateExitCode(p.Gate), nil)
}

// gateInput turns the flags into a planner.Input, reading the status,
// inventory, baseline and suppressions they name. Errors name the flag.
func gateInput(c *cli.Context, e *env, cat *catalog.Catalog, opts gateOptions) (planner.Input, error) {
	if opts.to == "" {
		return planner.Input{}, fmt.Errorf("--to is required, for example: sylva-planner plan --from 1.4 --to %s", cat.Newest())
	}
	po := planOptions{from: opts.from, to: opts.to, workers: opts.workers, provider: opts.provider}
	fromSource := "flag"
	if po.from == "" {
		v, src, err := installedRelease(c, e, opts)
		if err != nil {
			return planner.Input{}, err
		}
		po.from, fromSource = v.String(), src
	}
	var observed *planner.Observed
	if opts.inventory != "" {
		obs, oldest, rke2, err := readInventory(e, cat, opts.inventory)
		if err != nil {
			return planner.Input{}, err
		}
		observed = obs
		if po.workers == "" && !oldest.IsZero() {
			po.workers = oldest.Short()
		}
		if po.provider == "" && rke2 {
			po.provider = string(catalog.ProviderRKE2)
		}
	}
	in, err := planInput(cat, po)
	if err != nil {
		return in, err
	}
	in.FromSource, in.Observed = fromSource, observed
	if opts.suppressions != "" {
		if in.Suppressions, err = readSuppressions(e, opts.suppressions); err != nil {
			return in, fmt.Errorf("--suppressions %s: %w", opts.suppressions, err)
		}
	}
	if opts.baseline != "" {
		if in.Baseline, err = readBaseline(e, opts.baseline); err != nil {
			return in, fmt.Errorf("--baseline %s: %w", opts.baseline, err)
		}
	}
	return in, nil
}

// installedRelease reads the installed release from the status ConfigMap,
// offline (--status) or live.
func installedRelease(c *cli.Context, e *env, opts gateOptions) (skew.Version, string, error) {
	if opts.statusFile == "" && opts.live.kubeconfig == "" && opts.live.context == "" && e.getenv("KUBECONFIG") == "" {
		return skew.Version{}, "", errors.New("--from is required (or --status FILE / --kubeconfig to read the installed release), for example: sylva-planner plan --from 1.4 --to 1.6")
	}
	o := opts.live
	o.file, o.fileFlag = opts.statusFile, "--status"
	obs, err := statusObservation(c.Context, e, o)
	if err != nil {
		return skew.Version{}, "", err
	}
	if obs.ConfigMap == nil {
		return skew.Version{}, "", errors.New("no sylva-units-status ConfigMap: this is a fresh install, there is nothing to upgrade from; give --from to plan anyway")
	}
	v, src, ok := obs.ConfigMap.Release()
	if !ok {
		return skew.Version{}, "", fmt.Errorf("the sylva-units-status ConfigMap does not say which release is installed (%s); give --from", src)
	}
	return v, string(src), nil
}

type suppressionsFile struct {
	Suppressions []struct {
		Code    string `json:"code"`
		Subject string `json:"subject"`
		Reason  string `json:"reason"`
		Expires string `json:"expires"`
	} `json:"suppressions"`
}

func readSuppressions(e *env, name string) ([]planner.Suppression, error) {
	data, err := e.readFile("--suppressions", name)
	if err != nil {
		return nil, err
	}
	var f suppressionsFile
	if err := yaml.UnmarshalStrict(data, &f); err != nil {
		return nil, err
	}
	out := make([]planner.Suppression, 0, len(f.Suppressions))
	for i, s := range f.Suppressions {
		if s.Code == "" || s.Reason == "" {
			return nil, fmt.Errorf("suppression #%d: code and reason are required", i+1)
		}
		r := planner.Suppression{Code: s.Code, Subject: s.Subject, Reason: s.Reason}
		if s.Expires != "" {
			if r.Expires, err = time.Parse(time.DateOnly, s.Expires); err != nil {
				return nil, fmt.Errorf("suppression #%d: expires %q is not YYYY-MM-DD", i+1, s.Expires)
			}
		}
		out = append(out, r)
	}
	return out, nil
}

func readBaseline(e *env, name string) ([]planner.Finding, error) {
	data, err := e.readFile("--baseline", name)
	if err != nil {
		return nil, err
	}
	var prev struct {
		Kind     string            `json:"kind"`
		Findings []planner.Finding `json:"findings"`
	}
	if err := json.Unmarshal(data, &prev); err != nil {
		return nil, fmt.Errorf("not a JSON plan (sylva-planner plan -o json): %w", err)
	}
	if prev.Kind != planner.Kind {
		return nil, fmt.Errorf("kind %q, want %s (a report of sylva-planner plan -o json)", prev.Kind, planner.Kind)
	}
	return append([]planner.Finding{}, prev.Findings...), nil
}

// planWriters write a plan in each format of plan, or of report: the same
// document in JSON and YAML, the report for people in Markdown and HTML.
func planWriters(p *planner.Plan, report bool) writers {
	if report {
		return writers{formatMarkdown: p.WriteReportMarkdown, formatHTML: p.WriteReportHTML, formatJSON: p.WriteJSON, formatYAML: p.WriteYAML}
	}
	return writers{formatTable: p.WriteTable, formatJSON: p.WriteJSON, formatYAML: p.WriteYAML, formatMarkdown: p.WriteMarkdown}
}

// gateExitCode is the exit code of docs/cli.md for the gate's decision,
// which every output shows: pass → 0, fail → 2, held → 4.
func gateExitCode(g planner.Gate) int {
	switch g.Outcome {
	case planner.GateFail:
		return exitBlocked
	case planner.GateHeld:
		return exitHeld
	case planner.GatePass:
	}
	return exitOK
}
