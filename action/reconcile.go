package action

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/reconciler"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

// ReconcileRequest is what reconcile is asked: the release namespace, and
// either a cluster to drive or, as a dry run, the objects of a file.
type ReconcileRequest struct {
	Target reconciler.Target
	// Applier reads and patches the cluster, over the client the command
	// line built; its DryRun is set from DryRun. Nil decides from Status.
	Applier *reconciler.Applier
	// Status is the offline input (--file File), decided as a dry run
	// when Applier is nil.
	Status StatusSource
	File   string
	// DryRun decides and changes nothing.
	DryRun bool
	// Wait follows each requested pass to its end and the passes after
	// it, for at most Timeout, reading every Interval.
	Wait              bool
	Timeout, Interval time.Duration
	// Locate places the cluster in the plan to --to from the status it
	// read; nil without --to.
	Locate func(status.Observation) (*status.Transition, error)
	// Document collects the decisions into the document (-o json|yaml),
	// and the transition is then located from the first of them; without
	// it, from the first decision made, and the document holds none.
	Document bool
	// Where names the cluster in errors (" (context NAME)"), or is empty.
	Where string
	// Server and RequestTimeout are the API server's address and the
	// timeout of each request (--request-timeout), named when a request
	// gets no answer in time.
	Server         string
	RequestTimeout time.Duration
	Metadata       envelope.Metadata
	// OnDecision, when set, is called with each decision as it is made;
	// t is the transition located, on the call that located it only.
	OnDecision func(r reconciler.Result, t *status.Transition)
	// OnProgress, when set, is called while waiting.
	OnProgress func(reconciler.WaitProgress)
}

// Validate refuses a request that cannot run (BadRequestError): no
// namespace, a wait without a positive timeout, a file to patch, a file to
// wait on.
func (r ReconcileRequest) Validate() error {
	switch {
	case r.Target.Namespace == "":
		return badRequest("--namespace must not be empty")
	case r.Wait && r.Timeout <= 0:
		return badRequest("--timeout %s: want a positive duration such as 2h", r.Timeout)
	case r.File != "" && !r.DryRun:
		return badRequest("--file decides from a file and cannot patch it: add --dry-run")
	case r.File != "" && r.Wait:
		return badRequest("--wait follows a cluster; it does not go with --file")
	}
	return nil
}

// WriteTo sets OnDecision and OnProgress to write, as they come, each
// decision and where the cluster stands in the plan to stdout (with
// Document, the decisions go into the document and only their warnings
// are written, to stderr), and the progress of a wait to stderr.
func (r *ReconcileRequest) WriteTo(stdout, stderr io.Writer) {
	dryRun := r.DryRun
	if r.Document {
		r.OnDecision = func(res reconciler.Result, _ *status.Transition) { res.Write(io.Discard, stderr, dryRun) }
	} else {
		r.OnDecision = func(res reconciler.Result, t *status.Transition) {
			res.Write(stdout, stderr, dryRun)
			if t != nil {
				fmt.Fprintln(stdout, t.Line())
			}
		}
	}
	r.OnProgress = func(p reconciler.WaitProgress) { fmt.Fprintln(stderr, p) }
}

// ReconcileDocument is `reconcile -o json|yaml`: every decision made, in
// order (one without --wait).
type ReconcileDocument struct {
	envelope.Header
	Namespace   string                `json:"namespace"`
	HelmRelease string                `json:"helmRelease"`
	DryRun      bool                  `json:"dryRun"`
	Decisions   []reconciler.Decision `json:"decisions"`
	// Transition is where the cluster stands in the plan to --to, from the
	// status read for the first decision; absent without --to.
	Transition *status.Transition `json:"transition,omitempty"`
}

// Run decides, and on a cluster requests each pass the decision says to.
// The document holds what was decided, also when an error follows. A wait
// that failed or ran out of Timeout is OutcomeFail with the error saying
// why; any other error is operational (the outcome is then empty).
func (r ReconcileRequest) Run(ctx context.Context) (*ReconcileDocument, Outcome, error) {
	if err := r.Validate(); err != nil {
		return nil, "", err
	}
	doc := &ReconcileDocument{
		Header:    envelope.NewHeader("Reconciliation", r.Metadata),
		Namespace: r.Target.Namespace, HelmRelease: r.Target.HelmRelease,
		DryRun: r.DryRun || r.Applier == nil, Decisions: []reconciler.Decision{},
	}
	if r.Applier == nil {
		d, err := r.decideFile(ctx, doc)
		if err != nil {
			return doc, "", err
		}
		if d.Outcome == reconciler.ConclusionFailed {
			// The decision, printed, says which pass failed and the fix.
			return doc, OutcomeFail, fmt.Errorf("namespace %s%s: %w", r.Target.Namespace, r.Where, reconciler.ErrPassFailed)
		}
		return doc, OutcomePass, nil
	}
	return r.drive(ctx, doc)
}

// decideFile decides, as a dry run, from the objects of a file: the
// decision reconcile would take on a cluster holding them.
func (r ReconcileRequest) decideFile(ctx context.Context, doc *ReconcileDocument) (reconciler.Decision, error) {
	obs, err := r.Status.Observation(ctx)
	if err != nil {
		return reconciler.Decision{}, err
	}
	if obs.Namespace == "" {
		obs.Namespace = r.Target.Namespace
	}
	res := reconciler.Result{Decision: reconciler.Decide(reconciler.Input{Observation: obs})}
	if r.Locate != nil {
		if doc.Transition, err = r.Locate(obs); err != nil {
			return res.Decision, err
		}
	}
	if missingOrInvalid(res.Decision) {
		return res.Decision, fmt.Errorf("--file %s: %s", r.File, res.Decision)
	}
	if r.Document {
		doc.Decisions = append(doc.Decisions, res.Decision.DryRun())
	}
	if r.OnDecision != nil {
		r.OnDecision(res, doc.Transition)
	}
	return res.Decision, nil
}

// drive requests the passes on the cluster, following them with Wait.
func (r ReconcileRequest) drive(ctx context.Context, doc *ReconcileDocument) (*ReconcileDocument, Outcome, error) {
	a := *r.Applier
	a.DryRun = r.DryRun
	if r.Locate != nil {
		// The Event of a requested pass names it, as --to places it.
		a.Place = func(obs status.Observation) *status.Transition {
			t, _ := r.Locate(obs)
			return t
		}
	}
	start := a.Now()
	parent, waitCtx := ctx, ctx
	if r.Wait {
		var cancel context.CancelFunc
		waitCtx, cancel = context.WithTimeout(ctx, r.Timeout)
		defer cancel()
	}
	var locateErr error
	locate := func(res reconciler.Result) *status.Transition {
		if r.Locate == nil || doc.Transition != nil || locateErr != nil {
			return nil
		}
		doc.Transition, locateErr = r.Locate(res.Snapshot.Input.Observation)
		return doc.Transition
	}
	res, err := a.Drive(waitCtx, r.Target, reconciler.DriveOptions{
		Wait:     r.Wait,
		Interval: r.Interval,
		OnDecision: func(res reconciler.Result) {
			var located *status.Transition
			switch d := res.Decision; {
			case !r.Document:
				located = locate(res)
			case !missingOrInvalid(d):
				// The decisions the table would print, into the document.
				if r.DryRun {
					d = d.DryRun()
				}
				doc.Decisions = append(doc.Decisions, d)
				located = locate(res)
			}
			if r.OnDecision != nil {
				r.OnDecision(res, located)
			}
		},
		OnProgress: r.OnProgress,
	})
	if err == nil && locateErr != nil {
		return doc, "", locateErr
	}
	switch {
	case err == nil:
	case parent.Err() != nil:
		// A signal: an operational interruption, not a gate result.
		return doc, "", fmt.Errorf("interrupted%s", r.Where)
	case r.Wait && errors.Is(err, reconciler.ErrWaitTimeout):
		// Only --wait running out of --timeout is "the pass did not
		// finish"; a request timing out (--request-timeout) before it, with
		// or without --wait, is an unreachable cluster: exit 1.
		return doc, OutcomeFail, fmt.Errorf("timed out after %s (--timeout %s)%s: %w", a.Now().Sub(start).Round(time.Second), r.Timeout, r.Where, err)
	case errors.Is(err, reconciler.ErrRequestTimeout):
		// A silent server is an unreachable cluster (exit 1), also in the
		// middle of a wait: --timeout is for a pass that does not finish.
		return doc, "", fmt.Errorf("the API server %s%s did not answer within --request-timeout %s (namespace %s): %w; check that it is up and reachable, or raise --request-timeout",
			cmp.Or(r.Server, "(unknown address)"), r.Where, r.RequestTimeout, r.Target.Namespace, err)
	case errors.Is(err, reconciler.ErrPassFailed):
		return doc, OutcomeFail, fmt.Errorf("namespace %s%s: %w", r.Target.Namespace, r.Where, err)
	default:
		return doc, "", fmt.Errorf("namespace %s%s: %w", r.Target.Namespace, r.Where, err)
	}
	if missingOrInvalid(res.Decision) {
		return doc, "", fmt.Errorf("%s%s", res.Decision, r.Where)
	}
	if res.Decision.Outcome == reconciler.ConclusionFailed {
		// The decision, printed, says which pass failed and the fix.
		return doc, OutcomeFail, fmt.Errorf("namespace %s%s: %w", r.Target.Namespace, r.Where, reconciler.ErrPassFailed)
	}
	return doc, OutcomePass, nil
}

// missingOrInvalid reports whether d is about objects that are absent or
// malformed: no decision to report, an error to return.
func missingOrInvalid(d reconciler.Decision) bool {
	return d.Outcome == reconciler.ConclusionMissing || d.Outcome == reconciler.ConclusionInvalid
}
