package reconciler

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"

	"gitlab.com/sylva-projects/sylva-planner/status"
)

// ErrPassFailed is returned by Drive when helm-controller handled a request
// and ended it failed (status.PassFailure: stalled, or not Ready for a
// failed install, upgrade, test or remediation).
var ErrPassFailed = errors.New("the pass failed")

// ErrWaitTimeout ends a Drive with Wait whose context reached its deadline
// (the --timeout of reconcile --wait), as opposed to one request timing out
// on its own with time left. It is context.DeadlineExceeded as far as
// errors.Is and its message go.
var ErrWaitTimeout error = waitTimeout{}

type waitTimeout struct{}

func (waitTimeout) Error() string        { return context.DeadlineExceeded.Error() }
func (waitTimeout) Is(target error) bool { return target == context.DeadlineExceeded }

// ErrRequestTimeout is wrapped, beside the request's own error, by the
// error of Drive when one request got no answer within the client's own
// timeout (--request-timeout) while the wait still had time: a silent API
// server ends the wait instead of being polled until --timeout. An error
// the API server answers (a conflict, a 500, its own timeout answer) is
// still retried while waiting.
var ErrRequestTimeout = errors.New("no answer in time")

// DefaultInterval is how often Drive polls while it waits.
const DefaultInterval = 5 * time.Second

// heartbeat is how often an unchanged progress line is repeated.
const heartbeat = time.Minute

// WaitProgress is one look at a pass being waited for.
type WaitProgress struct {
	// Elapsed is the time since Drive started.
	Elapsed time.Duration
	// Request is the request value waited for; empty while waiting for a
	// pass to become possible.
	Request string
	// State says what is being waited for, in one line.
	State string
}

// String is the progress as the command line shows it on stderr:
// "[1m30s] pass "2": STATE".
func (p WaitProgress) String() string {
	pass := ""
	if p.Request != "" {
		pass = fmt.Sprintf("pass %q: ", p.Request)
	}
	return fmt.Sprintf("[%s] %s%s", p.Elapsed.Round(time.Second), pass, p.State)
}

// DriveOptions tune Drive.
type DriveOptions struct {
	// Wait follows each requested pass to its end and goes on with the
	// next one; without it Drive is one Apply.
	Wait bool
	// Interval between two reads while waiting; DefaultInterval when zero.
	Interval time.Duration
	// OnDecision is called with each decision, once per request value and
	// outcome.
	OnDecision func(Result)
	// OnProgress is called while waiting, when the state changes and at
	// least every minute.
	OnProgress func(WaitProgress)
	// Now reads the clock for elapsed times; the Applier's Now when nil.
	Now func() time.Time
}

// Drive applies once and, with Wait, follows the requested pass until
// helm-controller handled it (status.lastHandledReconcileAt equals the
// request value and the HelmRelease is Ready at its generation, neither
// reconciling nor stalled) and the status ConfigMap was rewritten, then
// applies again, until nothing more is requested. It returns the last
// Result. It fails with ErrPassFailed when the HelmRelease stalls on the
// request, and with the context's error when ctx ends (a --timeout).
// Missing and invalid objects end it with their Result and no error.
func (a *Applier) Drive(ctx context.Context, t Target, o DriveOptions) (Result, error) {
	now := o.Now
	if now == nil {
		now = a.Now
	}
	if now == nil {
		return Result{}, errors.New("reconciler.Applier.Drive: a clock (DriveOptions.Now or Applier.Now) is required")
	}
	interval := o.Interval
	if interval <= 0 {
		interval = DefaultInterval
	}
	start := now()
	p := &progressPrinter{on: o.OnProgress, now: now, start: start}
	var last Decision
	report := func(r Result) {
		if o.OnDecision != nil && (r.Decision.Outcome != last.Outcome || r.Decision.Request != last.Request) {
			o.OnDecision(r)
		}
		last = r.Decision
	}
	waited := ""
	for {
		res, err := a.Apply(ctx, t)
		switch {
		case err != nil && o.Wait && deadlineHit(ctx, err):
			return res, fmt.Errorf("%s (last decision): %w", last, ErrWaitTimeout)
		case err != nil && requestTimedOut(ctx, err):
			return res, fmt.Errorf("%w: %w", ErrRequestTimeout, err)
		case err != nil:
			return res, err
		}
		if !o.Wait || a.DryRun {
			report(res)
			return res, nil
		}
		d := res.Decision
		switch d.Outcome {
		case ConclusionNothingRequested, ConclusionMissing, ConclusionInvalid, ConclusionNotFromChart:
			report(res)
			return res, nil
		case ConclusionFailed:
			// helm-controller will not run it again: waiting cannot help.
			report(res)
			return res, fmt.Errorf("%s: %w", d.Reason, ErrPassFailed)
		case ConclusionAlreadyHandled:
			if d.Request == waited {
				// The pass just followed is done and nothing new is asked.
				return res, nil
			}
			report(res)
			if _, done, _ := passState(res.Snapshot.Input.Observation.HelmRelease, d.Request); done {
				return res, nil
			}
			fallthrough
		case ConclusionTrigger:
			if d.Outcome == ConclusionTrigger {
				report(res)
			}
			if err := a.waitPass(ctx, t, d.Request, chartWrite(res.Snapshot), interval, p); err != nil {
				return res, err
			}
			waited = d.Request
		default: // waiting, suspended: poll until the pass can start
			report(res)
			p.show(WaitProgress{Request: d.Request, State: d.String()})
			if err := sleep(ctx, interval); err != nil {
				return res, fmt.Errorf("%s: %w", d, waitErr(err))
			}
		}
	}
}

// chartWrite identifies the chart's write of the status data of snap
// (status.Status.Write): a write of the ConfigMap's metadata alone does
// not change it. The resourceVersion when the write is unknown; empty
// when there is no status ConfigMap.
func chartWrite(snap Snapshot) string {
	if w := snap.Input.Observation.ConfigMap.Write(); w != "" {
		return w
	}
	return snap.ConfigMapVersion
}

// waitPass polls until request v finished well and the chart wrote the
// status data anew (its write differs from cmBefore, chartWrite).
func (a *Applier) waitPass(ctx context.Context, t Target, v, cmBefore string, interval time.Duration, p *progressPrinter) error {
	reader := a.LiveReader
	if reader == nil {
		reader = a.Reader
	}
	state := "the request was not read back yet"
	// look reads once: done, or the error that ends the wait at once.
	look := func(ctx context.Context) (bool, error) {
		snap, err := Fetch(ctx, reader, t)
		switch {
		case err != nil && deadlineHit(ctx, err):
			// The deadline hit during the read: say what was last seen.
			return false, fmt.Errorf("request %q: %s: %w", v, state, ErrWaitTimeout)
		case err != nil && requestTimedOut(ctx, err):
			// Nothing answered: polling a silent server until --timeout
			// would only hide it (docs/reconcile.md promises exit 1).
			return false, fmt.Errorf("request %q: %w: %w", v, ErrRequestTimeout, err)
		case err != nil:
			state = "cannot read: " + err.Error()
		default:
			var done, failed bool
			state, done, failed = passState(snap.Input.Observation.HelmRelease, v)
			if failed {
				return false, fmt.Errorf("request %q: %s: %w", v, state, ErrPassFailed)
			}
			if done {
				ks := snap.Input.Observation.Kustomization
				switch chartWrite(snap) {
				case "", cmBefore:
					state += "; waiting for the status ConfigMap to be rewritten" + kustomizationState(ks)
				default:
					p.show(WaitProgress{Request: v, State: state + "; status ConfigMap rewritten"})
					return true, nil
				}
			}
		}
		p.show(WaitProgress{Request: v, State: state})
		return false, nil
	}
	var stop error
	err := wait.PollUntilContextCancel(ctx, interval, true, func(ctx context.Context) (done bool, err error) {
		done, stop = look(ctx)
		return done, stop
	})
	if err != nil && stop == nil {
		// The wait ended between two reads: PollUntilContextCancel returns
		// the context's own error, which says nothing of the pass.
		return fmt.Errorf("request %q: %s: %w", v, state, waitErr(err))
	}
	return err
}

// passState says where request v stands on hr: done when helm-controller
// handled it and the HelmRelease is Ready at its generation, neither
// reconciling nor stalled; failed when it handled it and ended it failed
// (status.PassFailure).
func passState(hr *status.FluxObject, v string) (state string, done, failed bool) {
	if hr == nil {
		return "the HelmRelease is absent", false, false
	}
	name := "HelmRelease " + hr.Name
	if hr.LastHandledReconcileAt != v {
		return fmt.Sprintf("%s has not picked up the request yet%s", name, hr.Ready.Text()), false, false
	}
	if hr.Suspended {
		return name + " is suspended", false, false
	}
	if f := status.PassFailure(hr); f != "" {
		return "the pass failed: " + f + "; " + status.FailedPassFix(hr.Name, hr.Namespace), false, true
	}
	if why := status.NotReady("HelmRelease", hr); len(why) > 0 {
		return strings.Join(why, "; "), false, false
	}
	return fmt.Sprintf("%s is Ready at generation %d%s", name, hr.Generation, hr.Ready.Text()), true, false
}

func kustomizationState(ks *status.FluxObject) string {
	if ks == nil {
		return " (Kustomization absent)"
	}
	if ks.Ready.IsTrue() {
		return " (Kustomization Ready)"
	}
	return " (Kustomization not Ready" + ks.Ready.Text() + ")"
}

// deadlineHit reports whether err ends the wait at ctx's deadline: the
// context is done, or client-go's rate limiter refused to wait past the
// deadline (its error does not wrap context.DeadlineExceeded). A request
// that timed out on its own (--request-timeout) while ctx has time left
// does not.
func deadlineHit(ctx context.Context, err error) bool {
	return ctx.Err() != nil || strings.Contains(err.Error(), "would exceed context deadline")
}

// requestTimedOut reports whether err is a request that got no answer in
// its own time (the HTTP client's timeout, or the request context's
// deadline that client-go sets from it) while ctx, the wait, has time
// left. A timeout the API server answers (504, "the server was unable to
// return a response in the time allotted") is an answer: it is not one.
func requestTimedOut(ctx context.Context, err error) bool {
	if ctx.Err() != nil || apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err) {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var te interface{ Timeout() bool }
	return errors.As(err, &te) && te.Timeout()
}

// waitErr is the error of a sleep of the wait: ErrWaitTimeout when the
// wait's context reached its deadline, else the context's error (a signal's
// cancellation).
func waitErr(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return ErrWaitTimeout
	}
	return err
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// progressPrinter passes progress on when it changes, and at least every
// heartbeat.
type progressPrinter struct {
	on        func(WaitProgress)
	now       func() time.Time
	start     time.Time
	last      string
	lastShown time.Time
}

func (p *progressPrinter) show(pr WaitProgress) {
	if p.on == nil {
		return
	}
	t := p.now()
	key := pr.Request + "\x00" + pr.State
	if key == p.last && t.Sub(p.lastShown) < heartbeat {
		return
	}
	p.last, p.lastShown = key, t
	pr.Elapsed = t.Sub(p.start)
	p.on(pr)
}
