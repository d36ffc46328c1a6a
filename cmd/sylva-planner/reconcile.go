package main

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"gitlab.com/sylva-projects/sylva-planner/action"
	"gitlab.com/sylva-projects/sylva-planner/cliapp"
	"gitlab.com/sylva-projects/sylva-planner/reconciler"
)

// reconcileOptions are the flags of reconcile, bound.
type reconcileOptions struct {
	releaseOptions
	req action.ReconcileRequest
}

func reconcileCommand() *cli.Command {
	o := &reconcileOptions{}
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
			"of the release namespace instead of a cluster, and changes nothing. See docs/reconcile.md.\n\n" +
			"Examples:\n" +
			"  # request the pending pass, then follow it and every pass after it\n" +
			"  sylva-planner reconcile -n sylva-system --wait --timeout 2h\n\n" +
			"  # what it would decide, offline, changing nothing\n" +
			"  kubectl get cm,kustomizations,helmreleases -n sylva-system -o yaml > objects.yaml\n" +
			"  sylva-planner reconcile --file objects.yaml --dry-run\n\n" +
			"Exit codes:\n" +
			"  0 triggered, or nothing to do (nothing requested, already handled, waiting, suspended)\n" +
			"  1 operational error: an unreachable cluster, a missing or malformed object, a request not\n" +
			"    answered within --request-timeout, also while waiting\n" +
			"  2 helm-controller ended the pass failed, or --wait ran out of --timeout",
		ArgsUsage: " ",
		Flags: append(o.flags("release `NAMESPACE` of sylva-units"),
			&cli.BoolFlag{Name: "dry-run", Usage: "decide and say what would be done, change nothing", Destination: &o.req.DryRun},
			&cli.StringFlag{Name: "file", Aliases: []string{"f"}, Usage: "decide from the ConfigMap, Kustomization and HelmRelease in `FILE` (a List; - for standard input) instead of a cluster; needs --dry-run", TakesFile: true},
			o.toFlag("also say which pass of the plan to `RELEASE` is requested (as status --to)"),
			cliapp.AsOfFlag(),
			catalogFlag(),
			&cli.BoolFlag{Name: "wait", Usage: "follow each requested pass to its end, and the passes after it", Destination: &o.req.Wait},
			&cli.DurationFlag{Name: "timeout", Usage: "give up waiting after `DURATION` (exit 2)", Value: 2 * time.Hour, Destination: &o.req.Timeout},
			&cli.DurationFlag{Name: "poll-interval", Usage: "time between two reads while waiting", Value: reconciler.DefaultInterval, Hidden: true, Destination: &o.req.Interval},
			cliapp.KubeconfigFlag(),
			cliapp.OutputFlag(cliapp.FormatTable, cliapp.FormatJSON, cliapp.FormatYAML),
		),
		Action: o.run,
	}
}

func (o *reconcileOptions) run(c *cli.Context) error {
	src, err := o.sources(c)
	if err != nil {
		return err
	}
	output := cliapp.OutputOf(c)
	req := o.req
	req.Target = reconciler.Target{Namespace: src.Namespace, HelmRelease: src.HelmRelease}
	req.Document = output == cliapp.FormatJSON || output == cliapp.FormatYAML
	req.File = src.File
	if err := req.Validate(); err != nil {
		return err
	}
	st, err := o.statusRequest(c, nil)
	if err != nil {
		return err
	}
	req.Metadata = st.Metadata
	if st.To != "" {
		req.Locate = st.Locate
	}
	e := cliapp.EnvOf(c)
	req.WriteTo(e.Stdout, e.Stderr)
	if req.File != "" {
		req.Status = src.Status()
	} else {
		rec, err := reconcileClient(e, &req, src.Kubeconfig, src.Context)
		if err != nil {
			return err
		}
		defer rec.Close()
	}
	doc, out, err := req.Run(c.Context)
	if req.Document && len(doc.Decisions) > 0 {
		// What was decided is the result, also when the wait then failed.
		if werr := cliapp.DocumentWriters(nil, doc)[output](e.Stdout); werr != nil {
			return fmt.Errorf("write the result: %w", werr)
		}
	}
	switch {
	case err != nil && out == action.OutcomeFail:
		return cliapp.WithCode(out.ExitCode(), err)
	case err != nil:
		return err
	}
	return outcomeExit(out)
}

// reconcileClient sets the Applier and Where of req: a client of the
// cluster of kubeconfig and kubeContext, and an Event recorder to close
// once done.
func reconcileClient(e *cliapp.Env, req *action.ReconcileRequest, kubeconfig, kubeContext string) (*reconciler.OneShotRecorder, error) {
	cfg, contextName, err := restConfig(e, kubeconfig, kubeContext)
	if err != nil {
		return nil, err
	}
	req.Where = action.Where(contextName)
	req.Server, req.RequestTimeout = cfg.Host, cfg.Timeout
	applier, rec, err := reconciler.NewOneShot(cfg, "sylva-planner/"+version, req.Where, time.Now)
	if err != nil {
		return nil, err
	}
	req.Applier = applier
	return rec, nil
}
