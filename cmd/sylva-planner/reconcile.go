package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"gitlab.com/sylva-projects/sylva-planner/flux"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

func reconcileCommand() *cli.Command {
	return &cli.Command{
		Name:  "reconcile",
		Usage: "request the next reconciliation pass of the sylva-units HelmRelease, once per request",
		Description: "Reads the sylva-units-status ConfigMap, the sylva-units-status Kustomization and the\n" +
			"sylva-units HelmRelease. When a pass is requested (additional_reconciliation_required: \"true\"\n" +
			"or the Kustomization's additional-reconciliation-requested annotation) and not yet handled, and\n" +
			"both Flux objects are Ready, it patches the HelmRelease once (requestedAt and forceAt set to the\n" +
			"request value, guarded by its resourceVersion) and records an Event on it. It prints what it\n" +
			"decided and why: triggered, nothing requested, already handled, waiting, suspended.\n\n" +
			"--wait follows the pass until helm-controller handled it and the status ConfigMap was rewritten,\n" +
			"then goes on with every further pass, showing progress on stderr.\n\n" +
			"Exit codes: 0 triggered or nothing to do; 1 operational error (unreachable cluster, missing or\n" +
			"malformed objects); 2 the wait failed or timed out.\n\n" +
			"Example: sylva-planner reconcile -n sylva-system --wait --timeout 2h",
		ArgsUsage: " ",
		Flags: []cli.Flag{
			namespaceFlag("release `NAMESPACE` of sylva-units", status.DefaultNamespace),
			&cli.StringFlag{Name: "helmrelease", Usage: "`NAME` of the sylva-units HelmRelease", Value: status.DefaultHelmRelease, EnvVars: []string{"SYLVA_PLANNER_HELMRELEASE"}},
			&cli.BoolFlag{Name: "dry-run", Usage: "decide and say what would be done, change nothing"},
			&cli.BoolFlag{Name: "wait", Usage: "follow each requested pass to its end, and the passes after it"},
			&cli.DurationFlag{Name: "timeout", Usage: "give up waiting after `DURATION` (exit 2)", Value: 2 * time.Hour},
			&cli.DurationFlag{Name: "poll-interval", Usage: "time between two reads while waiting", Value: flux.DefaultInterval, Hidden: true},
			kubeconfigFlag(),
		},
		Action: reconcileAction,
	}
}

type reconcileOptions struct {
	namespace, helmRelease string
	kubeconfig, context    string
	dryRun, wait           bool
	timeout, interval      time.Duration
}

func reconcileAction(c *cli.Context) error {
	if c.Args().Len() > 0 {
		return usageError(c, fmt.Errorf("reconcile takes no argument, got %q", c.Args().First()), true)
	}
	o := reconcileOptions{
		namespace: c.String("namespace"), helmRelease: c.String("helmrelease"),
		kubeconfig: c.String("kubeconfig"), context: c.String("context"),
		dryRun: c.Bool("dry-run"), wait: c.Bool("wait"),
		timeout: c.Duration("timeout"), interval: c.Duration("poll-interval"),
	}
	if o.namespace == "" {
		return usageError(c, errors.New("--namespace must not be empty"), true)
	}
	if o.wait && o.timeout <= 0 {
		return usageError(c, fmt.Errorf("--timeout %s: want a positive duration such as 2h", o.timeout), true)
	}
	return runReconcile(c.Context, envOf(c), o)
}

func runReconcile(ctx context.Context, e *env, o reconcileOptions) error {
	cfg, contextName, err := e.restConfig(o.kubeconfig, o.context)
	if err != nil {
		return withCode(exitError, err)
	}
	where := reconcileWhere(contextName)
	cfg.UserAgent = "sylva-planner/" + version
	cl, err := client.New(cfg, client.Options{Scheme: flux.Scheme()})
	if err != nil {
		return withCode(exitError, fmt.Errorf("build a client%s: %w", where, err))
	}
	core, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return withCode(exitError, fmt.Errorf("build a client%s: %w", where, err))
	}
	rec := flux.NewOneShotRecorder(core.CoreV1(), "sylva-planner")
	defer rec.Close()
	a := &flux.Applier{Reader: cl, Writer: cl, Recorder: rec, DryRun: o.dryRun, Now: time.Now}
	target := flux.Target{Namespace: o.namespace, HelmRelease: o.helmRelease}

	start := time.Now()
	parent, waitCtx := ctx, ctx
	if o.wait {
		var cancel context.CancelFunc
		waitCtx, cancel = context.WithTimeout(ctx, o.timeout)
		defer cancel()
	}
	res, err := a.Drive(waitCtx, target, flux.DriveOptions{
		Wait:       o.wait,
		Interval:   o.interval,
		OnDecision: func(r flux.Result) { printDecision(e.stdout, e.stderr, r, o.dryRun) },
		OnProgress: func(p flux.Progress) {
			pass := ""
			if p.Request != "" {
				pass = fmt.Sprintf("pass %q: ", p.Request)
			}
			fmt.Fprintf(e.stderr, "[%s] %s%s\n", p.Elapsed.Round(time.Second), pass, p.State)
		},
	})
	switch {
	case err == nil:
	case parent.Err() != nil:
		// A signal: an operational interruption, not a gate result.
		return withCode(exitError, fmt.Errorf("interrupted%s", where))
	case o.wait && errors.Is(err, context.DeadlineExceeded):
		// Only --wait running out of --timeout is "the pass did not
		// finish"; without --wait, a request timing out is an unreachable
		// cluster.
		return withCode(exitBlocked, fmt.Errorf("timed out after %s (--timeout %s)%s: %w", time.Since(start).Round(time.Second), o.timeout, where, err))
	case errors.Is(err, flux.ErrPassFailed):
		return withCode(exitBlocked, fmt.Errorf("namespace %s%s: %w", o.namespace, where, err))
	default:
		return withCode(exitError, fmt.Errorf("namespace %s%s: %w", o.namespace, where, err))
	}
	if o := res.Decision.Outcome; o == flux.OutcomeMissing || o == flux.OutcomeInvalid {
		return withCode(exitError, fmt.Errorf("%s%s", res.Decision, where))
	}
	return nil
}

// printDecision writes a decision on stdout; missing and invalid objects
// are left to the error on stderr.
func printDecision(stdout, stderr io.Writer, r flux.Result, dryRun bool) {
	d := r.Decision
	switch d.Outcome {
	case flux.OutcomeMissing, flux.OutcomeInvalid:
		return
	case flux.OutcomeTrigger:
		if dryRun {
			fmt.Fprintf(stdout, "would trigger (dry run): %s\n", d.Reason)
			return
		}
	default:
	}
	fmt.Fprintln(stdout, d.String())
	if r.EventErr != nil {
		fmt.Fprintf(stderr, "sylva-planner: warning: %v\n", r.EventErr)
	}
}

func reconcileWhere(contextName string) string {
	if contextName == "" {
		return ""
	}
	return " (context " + strings.TrimSpace(contextName) + ")"
}
