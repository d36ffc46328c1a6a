package reconciler

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"gitlab.com/sylva-projects/sylva-planner/status"
	"gitlab.com/sylva-projects/sylva-planner/status/statuskube"
)

// Kinds of the Flux objects read (statuskube.KustomizationKind,
// statuskube.HelmReleaseKind).
var (
	KustomizationKind = statuskube.KustomizationKind
	HelmReleaseKind   = statuskube.HelmReleaseKind
)

// Scheme returns the scheme of the kinds read and written (statuskube.Scheme):
// Kubernetes' own, helm-controller's HelmRelease and kustomize-controller's
// Kustomization. Clients and event recorders given to an Applier use it.
var Scheme = statuskube.Scheme

// EventReason is the reason of the Event recorded on the HelmRelease when a
// pass is requested.
const EventReason = "ReconcileRequested"

// maxAttempts bounds the read–decide–patch rounds of one Apply when the
// patch keeps meeting resourceVersion conflicts.
const maxAttempts = 5

// conflictBackoff spaces those rounds: client-go's retry.DefaultRetry
// (10ms apart, with jitter), maxAttempts of them.
var conflictBackoff = func() wait.Backoff {
	b := retry.DefaultRetry
	b.Steps = maxAttempts
	return b
}()

// Errors of Apply.
var (
	// ErrConflict is returned by Apply when every attempt met a conflict.
	ErrConflict = errors.New("the HelmRelease kept changing while patching it")
	// ErrRequestUnknown is returned by Apply when the API server's reply
	// to the patch was lost and reading the HelmRelease back failed too:
	// whether the request was made is not known.
	ErrRequestUnknown = errors.New("whether the request was made is unknown")
)

// Target names the objects of one release namespace (statuskube.Target).
type Target = statuskube.Target

// Snapshot is what Fetch read: the input of Decide and what a write needs.
type Snapshot struct {
	Input Input
	// HelmRelease is the object as read; nil when absent.
	HelmRelease *helmv2.HelmRelease
	// ConfigMapVersion is the status ConfigMap's resourceVersion; empty
	// when absent.
	ConfigMapVersion string
}

// Fetch reads the objects of t through r with statuskube.Fetch, the one reader
// of a release namespace that the status command uses too, and under its
// rule: absent objects, and kinds not served, are nil in the Observation; a
// malformed status ConfigMap sets Input.Invalid (Decide's ConclusionInvalid);
// errors are those of the API (unreachable, forbidden), with the object
// named.
func Fetch(ctx context.Context, r client.Reader, t Target) (Snapshot, error) {
	s, err := statuskube.Fetch(ctx, r, t)
	if err != nil {
		return Snapshot{}, err
	}
	snap := Snapshot{Input: Input{Observation: s.Observation}, HelmRelease: s.HelmRelease, ConfigMapVersion: s.ConfigMapVersion}
	if s.Invalid != nil {
		snap.Input.Invalid = s.Invalid.Error()
	}
	return snap, nil
}

// Applier reads, decides and, when Decide says so, requests the pass.
type Applier struct {
	// Reader reads the objects: a cache in the controller, the API server
	// in the command.
	Reader client.Reader
	// LiveReader re-reads after a resourceVersion conflict; Reader when nil.
	LiveReader client.Reader
	// ClusterAPI, when set, reads the Cluster API objects of the namespace
	// with each decision (statuskube.Target.ClusterAPI), so that Place and the
	// gate read the cluster's Kubernetes minors, whose pass count depends
	// on them (a workload cluster); nil reads none.
	ClusterAPI *statuskube.ClusterAPI
	// Writer patches the HelmRelease.
	Writer client.Writer
	// Recorder records the Event of each requested pass on the
	// HelmRelease; nil records none. Its scheme must know the HelmRelease
	// (Scheme).
	Recorder record.EventRecorder
	// DryRun decides without writing anything.
	DryRun bool
	// Now reads the clock, for elapsed times; required unless DryRun (the
	// package reads no clock itself).
	Now func() time.Time
	// Place, when set, places the cluster in a transition from the status
	// the pass was decided on; the Event of the request then names the
	// pass it requests (status.Transition.NextPass).
	Place func(status.Observation) *status.Transition
}

// Result is what Apply did.
type Result struct {
	Decision Decision
	// Triggered is true when the patch was written.
	Triggered bool
	// Conflicts counts the patches refused for a stale resourceVersion.
	Conflicts int
	// Snapshot is the last read.
	Snapshot Snapshot
	// EventErr says the Event was not confirmed written (a Recorder that
	// can Flush, such as OneShotRecorder); the pass was requested all the
	// same.
	EventErr error
	// LostReply is the error with which the reply to a patch that was
	// made got lost (the connection closed, a timeout after the request
	// was sent): the HelmRelease was read back and carried the request, so
	// Triggered is true.
	LostReply error
}

// Write writes the decision on w, as the command line shows it: "would
// trigger (dry run): ..." for a trigger not made with dryRun; nothing for
// missing or invalid objects, which the error says. A failed Event is a
// warning on warn.
func (r Result) Write(w, warn io.Writer, dryRun bool) {
	d := r.Decision
	switch d.Outcome {
	case ConclusionMissing, ConclusionInvalid:
		return
	case ConclusionTrigger:
		if dryRun {
			fmt.Fprintf(w, "would trigger (dry run): %s\n", d.DryRun().Reason)
			return
		}
	default:
	}
	fmt.Fprintln(w, d.String())
	if r.EventErr != nil {
		fmt.Fprintf(warn, "sylva-planner: warning: %v\n", r.EventErr)
	}
}

// Apply reads the objects of t, decides, and when the decision is to
// trigger, writes one merge patch of the HelmRelease guarded by the
// resourceVersion it decided on (controller-runtime's merge patch with
// optimistic lock), setting AnnotationRequestedAt and AnnotationForceAt to
// Decision.Request and AnnotationHandledRequest to the request value it
// stands for (status.Request.Value), then records an Event on
// it through the Recorder. A conflict (another writer changed the
// HelmRelease in between) re-reads from the live reader and decides again,
// so that of two racing planners only one passes a value on. When the
// patch gets no answer after it was sent (the connection closed, a
// timeout), the API server may have applied it: the HelmRelease is read
// back from the live reader, and if it carries the request the pass was
// requested (Triggered, LostReply set, the reason says so); if it does
// not, the error says the request was not made; if it cannot be read, the
// error wraps ErrRequestUnknown. Errors are operational (unreachable,
// forbidden, conflicts that do not stop); every decision, including
// missing and invalid objects, is a Result.
func (a *Applier) Apply(ctx context.Context, t Target) (Result, error) {
	if a.Now == nil && !a.DryRun {
		return Result{}, errors.New("reconciler.Applier: Now is required to write")
	}
	reader := a.Reader
	if t.ClusterAPI == nil {
		t.ClusterAPI = a.ClusterAPI
	}
	var res Result
	err := retry.OnError(conflictBackoff, isPatchConflict, func() error {
		snap, err := Fetch(ctx, reader, t)
		if err != nil {
			return err
		}
		res.Snapshot = snap
		res.Decision = Decide(snap.Input)
		if !res.Decision.Trigger() || a.DryRun {
			return nil
		}
		token, tracked := res.Decision.Request, res.Decision.Request
		if r, err := status.RequestOf(snap.Input.Observation); err == nil && r.Token == token {
			tracked = r.Value
		}
		err = a.patch(ctx, snap.HelmRelease, token, tracked)
		if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
			res.Conflicts++
			if a.LiveReader != nil {
				reader = a.LiveReader
			}
			return patchConflict{err}
		}
		if err != nil && replyMayBeLost(err) {
			made, rerr := a.readBack(ctx, t, token, tracked)
			switch {
			case rerr != nil:
				return fmt.Errorf("patch HelmRelease %s/%s: %w, and reading it back failed (%w): %w", t.Namespace, t.HelmReleaseName(), err, rerr, ErrRequestUnknown)
			case !made:
				return fmt.Errorf("patch HelmRelease %s/%s: %w (read back: the request was not made)", t.Namespace, t.HelmReleaseName(), err)
			}
			res.LostReply = err
			res.Decision.Reason += fmt.Sprintf(" (the reply to the patch was lost: %v; the HelmRelease was read back and carries the request)", err)
			err = nil
		}
		if err != nil {
			return fmt.Errorf("patch HelmRelease %s/%s: %w", t.Namespace, t.HelmReleaseName(), err)
		}
		res.Triggered = true
		res.EventErr = a.recordEvent(ctx, snap.HelmRelease, res.Decision, a.nextPass(snap))
		return nil
	})
	if isPatchConflict(err) {
		return res, fmt.Errorf("patch HelmRelease %s/%s after %d conflicts: %w", t.Namespace, t.HelmReleaseName(), res.Conflicts, ErrConflict)
	}
	return res, err
}

// patchConflict is a patch refused for a stale resourceVersion (or a
// HelmRelease gone in between): Apply reads and decides again.
type patchConflict struct{ err error }

func (c patchConflict) Error() string { return c.err.Error() }
func (c patchConflict) Unwrap() error { return c.err }

func isPatchConflict(err error) bool {
	var c patchConflict
	return errors.As(err, &c)
}

// eventFlushTimeout bounds the wait for a one-shot Event to be written.
const eventFlushTimeout = 10 * time.Second

// nextPass names the pass a request made on snap stands for ("pass 2 of 3
// of the transition to 1.7"), "" when Place is unset or cannot tell.
func (a *Applier) nextPass(snap Snapshot) string {
	if a.Place == nil {
		return ""
	}
	return a.Place(snap.Input.Observation).NextPass()
}

// recordEvent records the Event of a requested pass on hr, naming the pass
// when next does, and, when the Recorder can Flush, waits until it is
// written.
func (a *Applier) recordEvent(ctx context.Context, hr *helmv2.HelmRelease, d Decision, next string) error {
	if a.Recorder == nil {
		return nil
	}
	msg := fmt.Sprintf("requested reconciliation %q (from the %s)", d.Request, d.Source)
	if next != "" {
		msg += ": " + next
	}
	a.Recorder.Event(hr, corev1.EventTypeNormal, EventReason, msg)
	f, ok := a.Recorder.(interface{ Flush(context.Context) error })
	if !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, eventFlushTimeout)
	defer cancel()
	if err := f.Flush(ctx); err != nil {
		return fmt.Errorf("record Event on HelmRelease %s/%s: %w", hr.Namespace, hr.Name, err)
	}
	return nil
}

// patch writes the request annotations, guarded by the resourceVersion hr
// was read at: a merge patch that carries metadata.resourceVersion fails
// with 409 Conflict when the object changed since. requestedAt and forceAt
// get token, the tracking annotation the request value it stands for.
func (a *Applier) patch(ctx context.Context, hr *helmv2.HelmRelease, token, tracked string) error {
	base := hr.DeepCopy()
	if hr.Annotations == nil {
		hr.Annotations = map[string]string{}
	}
	hr.Annotations[AnnotationRequestedAt] = token
	hr.Annotations[AnnotationForceAt] = token
	hr.Annotations[AnnotationHandledRequest] = tracked
	return a.Writer.Patch(ctx, hr, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{}))
}

// readBackTimeout bounds the read that tells whether a patch whose reply
// was lost was made; it runs even when the caller's context just ended
// (the lost reply may be its deadline).
const readBackTimeout = 10 * time.Second

// replyMayBeLost reports whether the patch may have been applied although
// err came back: no answer from the API server (the connection closed or
// reset, a client-side timeout), or its own timeout answer, which says the
// request may still complete. Any other answer is final.
func replyMayBeLost(err error) bool {
	var st apierrors.APIStatus
	if !errors.As(err, &st) {
		return true
	}
	return apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err)
}

// readBack reads the HelmRelease of t from the live reader and reports
// whether it carries the request patch writes (token in requestedAt and
// forceAt, tracked in the tracking annotation).
func (a *Applier) readBack(ctx context.Context, t Target, token, tracked string) (bool, error) {
	reader := a.LiveReader
	if reader == nil {
		reader = a.Reader
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), readBackTimeout)
	defer cancel()
	hr := &helmv2.HelmRelease{}
	if err := reader.Get(ctx, client.ObjectKey{Namespace: t.Namespace, Name: t.HelmReleaseName()}, hr); err != nil {
		return false, fmt.Errorf("read HelmRelease %s/%s: %w", t.Namespace, t.HelmReleaseName(), err)
	}
	ann := hr.Annotations
	return ann[AnnotationRequestedAt] == token && ann[AnnotationForceAt] == token && ann[AnnotationHandledRequest] == tracked, nil
}
