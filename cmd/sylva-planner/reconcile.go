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

	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/reconciler"
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
			"--to RELEASE also says which pass of the plan to RELEASE the request is, read from the status\n" +
			"as status --to and plan --status read it.\n\n" +
			"Offline, --file FILE --dry-run decides from `kubectl get cm,kustomizations,helmreleases -o yaml`\n" +
			"of the release namespace instead of a cluster, and changes nothing.\n\n" +
			"Exit codes: 0 triggered or nothing to do; 1 operational error (unreachable cluster, missing or\n" +
			"malformed objects); 2 the wait failed or timed out.\n\n" +
			"Example: sylva-planner reconcile -n sylva-system --wait --timeout 2h",
		ArgsUsage: " ",
		Flags: []cli.Flag{
			namespaceFlag("release `NAMESPACE` of sylva-units", status.DefaultNamespace),
			&cli.StringFlag{Name: "helmrelease", Usage: "`NAME` of the sylva-units HelmRelease", Value: status.DefaultHelmRelease, EnvVars: []string{"SYLVA_PLANNER_HELMRELEASE"}},
			&cli.BoolFlag{Name: "dry-run", Usage: "decide and say what would be done, change nothing"},
			&cli.StringFlag{Name: "file", Aliases: []string{"f"}, Usage: "decide from the ConfigMap, Kustomization and HelmRelease in `FILE` (a List; - for standard input) instead of a cluster; needs --dry-run", TakesFile: true},
			&cli.StringFlag{Name: "to", Usage: "also say which pass of the plan to `RELEASE` is requested (as status --to)", EnvVars: []string{"SYLVA_PLANNER_TO"}},
			asOfFlag(),
			catalogFlag(),
			&cli.BoolFlag{Name: "wait", Usage: "follow each requested pass to its end, and the passes after it"},
			&cli.DurationFlag{Name: "timeout", Usage: "give up waiting after `DURATION` (exit 2)", Value: 2 * time.Hour},
			&cli.DurationFlag{Name: "poll-interval", Usage: "time between two reads while waiting", Value: reconciler.DefaultInterval, Hidden: true},
			kubeconfigFlag(),
			outputFlag(formatTable, formatJSON, formatYAML),
		},
		Action: reconcileAction,
	}
}

type reconcileOptions struct {
	namespace, helmRelease string
	// file is the offline input (--file); empty for a live cluster.
	file string
	// locate places the cluster in the plan to --to from the status it
	// read; nil without --to.
	locate              func(*status.Status) (*status.Transition, error)
	kubeconfig, context string
	dryRun, wait        bool
	timeout, interval   time.Duration
	// output is the format of the decisions: the table prints each as it
	// is made, JSON and YAML one document once the command is done.
	output   format
	metadata envelope.Metadata
}

// reconcileDocument is `reconcile -o json|yaml`: every decision made, in
// order (one without --wait).
type reconcileDocument struct {
	envelope.Header
	Namespace   string                `json:"namespace"`
	HelmRelease string                `json:"helmRelease"`
	DryRun      bool                  `json:"dryRun"`
	Decisions   []reconciler.Decision `json:"decisions"`
	// Transition is where the cluster stands in the plan to --to, from the
	// status read for the first decision; absent without --to.
	Transition *status.Transition `json:"transition,omitempty"`
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
	if o.file = c.String("file"); o.file != "" {
		switch {
		case !o.dryRun:
			return usageError(c, errors.New("--file decides from a file and cannot patch it: add --dry-run"), true)
		case o.wait:
			return usageError(c, errors.New("--wait follows a cluster; it does not go with --file"), true)
		case o.kubeconfig != "" || o.context != "":
			return usageError(c, errors.New("give either --file or --kubeconfig/--context, not both"), true)
		}
	}
	cat, err := loadCatalog(c)
	if err != nil {
		return withCode(exitError, err)
	}
	if o.metadata, err = metadataOf(c, cat); err != nil {
		return withCode(exitError, err)
	}
	if to := c.String("to"); to != "" {
		o.locate = func(cm *status.Status) (*status.Transition, error) { return transition(c, to, cm) }
	}
	o.output = outputOf(c)
	if o.file != "" {
		return reconcileFile(c.Context, envOf(c), o)
	}
	return runReconcile(c.Context, envOf(c), o)
}

// reconcileFile decides, as a dry run, from the objects of a file: the
// decision reconcile would take on a cluster holding them.
func reconcileFile(ctx context.Context, e *env, o reconcileOptions) error {
	obs, err := statusSource(e, statusOptions{file: o.file, helmRelease: o.helmRelease, namespace: o.namespace}).Observation(ctx)
	if err != nil {
		return withCode(exitError, err)
	}
	if obs.Namespace == "" {
		obs.Namespace = o.namespace
	}
	r := reconciler.Result{Decision: reconciler.Decide(reconciler.Input{Observation: obs})}
	doc := reconcileDocument{Header: envelope.NewHeader("Reconciliation", o.metadata), Namespace: o.namespace, HelmRelease: o.helmRelease, DryRun: true, Decisions: []reconciler.Decision{}}
	if o.locate != nil {
		if doc.Transition, err = o.locate(obs.ConfigMap); err != nil {
			return withCode(exitError, err)
		}
	}
	if out := r.Decision.Outcome; out == reconciler.OutcomeMissing || out == reconciler.OutcomeInvalid {
		return withCode(exitError, fmt.Errorf("--file %s: %s", o.file, r.Decision))
	}
	if o.output == formatJSON || o.output == formatYAML {
		doc.Decisions = append(doc.Decisions, r.Decision.DryRun())
		if err := documentWriters(nil, doc)[o.output](e.stdout); err != nil {
			return withCode(exitError, fmt.Errorf("write the result: %w", err))
		}
		return nil
	}
	printDecision(e.stdout, e.stderr, r, true)
	if doc.Transition != nil {
		fmt.Fprintln(e.stdout, doc.Transition.Line())
	}
	return nil
}

func runReconcile(ctx context.Context, e *env, o reconcileOptions) error {
	cfg, contextName, err := e.restConfig(o.kubeconfig, o.context)
	if err != nil {
		return withCode(exitError, err)
	}
	where := reconcileWhere(contextName)
	cfg.UserAgent = "sylva-planner/" + version
	cl, err := client.New(cfg, client.Options{Scheme: reconciler.Scheme()})
	if err != nil {
		return withCode(exitError, fmt.Errorf("build a client%s: %w", where, err))
	}
	core, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return withCode(exitError, fmt.Errorf("build a client%s: %w", where, err))
	}
	rec := reconciler.NewOneShotRecorder(core.CoreV1(), "sylva-planner")
	defer rec.Close()
	a := &reconciler.Applier{Reader: cl, Writer: cl, Recorder: rec, DryRun: o.dryRun, Now: time.Now}
	target := reconciler.Target{Namespace: o.namespace, HelmRelease: o.helmRelease}

	start := time.Now()
	parent, waitCtx := ctx, ctx
	if o.wait {
		var cancel context.CancelFunc
		waitCtx, cancel = context.WithTimeout(ctx, o.timeout)
		defer cancel()
	}
	doc := reconcileDocument{Header: envelope.NewHeader("Reconciliation", o.metadata), Namespace: o.namespace, HelmRelease: o.helmRelease, DryRun: o.dryRun, Decisions: []reconciler.Decision{}}
	var locateErr error
	locate := func(r reconciler.Result) {
		if o.locate == nil || doc.Transition != nil || locateErr != nil {
			return
		}
		doc.Transition, locateErr = o.locate(r.Snapshot.Input.Observation.ConfigMap)
	}
	onDecision := func(r reconciler.Result) {
		printDecision(e.stdout, e.stderr, r, o.dryRun)
		if doc.Transition == nil && locateErr == nil && o.locate != nil {
			if locate(r); doc.Transition != nil {
				fmt.Fprintln(e.stdout, doc.Transition.Line())
			}
		}
	}
	if o.output == formatJSON || o.output == formatYAML {
		onDecision = func(r reconciler.Result) {
			// The decisions the table would print, into the document;
			// warnings still go to stderr.
			if d := r.Decision; d.Outcome != reconciler.OutcomeMissing && d.Outcome != reconciler.OutcomeInvalid {
				if o.dryRun {
					d = d.DryRun()
				}
				doc.Decisions = append(doc.Decisions, d)
				locate(r)
			}
			printDecision(io.Discard, e.stderr, r, o.dryRun)
		}
	}
	res, err := a.Drive(waitCtx, target, reconciler.DriveOptions{
		Wait:       o.wait,
		Interval:   o.interval,
		OnDecision: onDecision,
		OnProgress: func(p reconciler.Progress) {
			pass := ""
			if p.Request != "" {
				pass = fmt.Sprintf("pass %q: ", p.Request)
			}
			fmt.Fprintf(e.stderr, "[%s] %s%s\n", p.Elapsed.Round(time.Second), pass, p.State)
		},
	})
	if len(doc.Decisions) > 0 {
		// What was decided is the result, also when the wait then failed.
		if werr := documentWriters(nil, doc)[o.output](e.stdout); werr != nil {
			return withCode(exitError, fmt.Errorf("write the result: %w", werr))
		}
	}
	if err == nil && locateErr != nil {
		return withCode(exitError, locateErr)
	}
	switch {
	case err == nil:
	case parent.Err() != nil:
		// A signal: an operational interruption, not a gate result.
		return withCode(exitError, fmt.Errorf("interrupted%s", where))
	case o.wait && errors.Is(err, reconciler.ErrWaitTimeout):
		// Only --wait running out of --timeout is "the pass did not
		// finish"; a request timing out (--request-timeout) before it, with
		// or without --wait, is an unreachable cluster: exit 1.
		return withCode(exitBlocked, fmt.Errorf("timed out after %s (--timeout %s)%s: %w", time.Since(start).Round(time.Second), o.timeout, where, err))
	case errors.Is(err, reconciler.ErrPassFailed):
		return withCode(exitBlocked, fmt.Errorf("namespace %s%s: %w", o.namespace, where, err))
	default:
		return withCode(exitError, fmt.Errorf("namespace %s%s: %w", o.namespace, where, err))
	}
	if o := res.Decision.Outcome; o == reconciler.OutcomeMissing || o == reconciler.OutcomeInvalid {
		return withCode(exitError, fmt.Errorf("%s%s", res.Decision, where))
	}
	return nil
}

// printDecision writes a decision on stdout; missing and invalid objects
// are left to the error on stderr.
func printDecision(stdout, stderr io.Writer, r reconciler.Result, dryRun bool) {
	d := r.Decision
	switch d.Outcome {
	case reconciler.OutcomeMissing, reconciler.OutcomeInvalid:
		return
	case reconciler.OutcomeTrigger:
		if dryRun {
			fmt.Fprintf(stdout, "would trigger (dry run): %s\n", d.DryRun().Reason)
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
