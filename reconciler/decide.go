package reconciler

import (
	"fmt"
	"strings"

	"github.com/fluxcd/pkg/apis/meta"

	"gitlab.com/sylva-projects/sylva-planner/status"
)

// Annotations read and written on the sylva-units HelmRelease.
const (
	// AnnotationRequestedAt asks helm-controller for a reconciliation; it is
	// set to Decision.Request (the request value, or the token bound to the
	// status write).
	AnnotationRequestedAt = meta.ReconcileRequestAnnotation
	// AnnotationForceAt, set to the same value as AnnotationRequestedAt,
	// forces a Helm upgrade even when nothing changed.
	AnnotationForceAt = meta.ForceRequestAnnotation
	// AnnotationHandledRequest is the planner's tracking annotation
	// (status.AnnotationHandledRequest): the last request value it passed
	// on, written in the same patch as AnnotationRequestedAt, so a restart
	// or a second planner never passes the same value on twice.
	AnnotationHandledRequest = status.AnnotationHandledRequest
	// AnnotationOperatorHandled is sylva-units-operator's tracking
	// annotation (status.AnnotationOperatorHandled; an assumed name).
	AnnotationOperatorHandled = status.AnnotationOperatorHandled
)

// DerivedRequestPrefix starts a request value derived from the status
// content (status.DerivedRequestPrefix).
const DerivedRequestPrefix = status.DerivedRequestPrefix

// Input is what Decide needs, as plain values.
type Input struct {
	// Observation is what was read in the release namespace; its FluxRead
	// must be true (nil objects are absent).
	Observation status.Observation
	// Invalid says why an object could not be decoded (a malformed value in
	// the status ConfigMap, typically); empty when everything decoded.
	Invalid string
}

// Conclusion is what Decide concluded.
type Conclusion string

// Outcomes, also the values of the result label of the
// sylva_planner_reconcile_requests_total metric.
const (
	// ConclusionTrigger: a pass is requested and can start now; patch the
	// HelmRelease with Decision.Request.
	ConclusionTrigger Conclusion = "triggered"
	// ConclusionWouldTrigger: what a dry run reports instead of
	// ConclusionTrigger; Decide never returns it (see Decision.DryRun).
	ConclusionWouldTrigger Conclusion = "would-trigger"
	// ConclusionNothingRequested: no pass is requested.
	ConclusionNothingRequested Conclusion = "nothing-requested"
	// ConclusionAlreadyHandled: the request value was already passed on, by
	// this planner or by sylva-units-operator.
	ConclusionAlreadyHandled Conclusion = "already-handled"
	// ConclusionWaiting: a pass is requested but cannot start yet (an object is
	// not Ready, a release is being applied).
	ConclusionWaiting Conclusion = "waiting"
	// ConclusionSuspended: a pass is requested but the HelmRelease is
	// suspended.
	ConclusionSuspended Conclusion = "suspended"
	// ConclusionMissing: the HelmRelease or the Kustomization does not exist.
	ConclusionMissing Conclusion = "missing"
	// ConclusionInvalid: an object could not be decoded, or the status asks for
	// a pass without the values that identify it.
	ConclusionInvalid Conclusion = "invalid"
	// ConclusionFailed: the request was passed on and helm-controller ran the
	// pass and ended it failed (status.PassFailure); it does not run it
	// again until the cause is fixed and the pass is requested again.
	ConclusionFailed Conclusion = "failed"
	// ConclusionNotFromChart: the status asks for a pass, but keys of its
	// data were written by someone other than the chart
	// (status.ChartWriter): no pass is requested.
	ConclusionNotFromChart Conclusion = "not-from-chart"
)

// RequestSource says where a request value comes from.
type RequestSource = status.RequestSource

// Request sources.
const (
	SourceAnnotation = status.SourceAnnotation
	SourceStatus     = status.SourceStatus
)

// Decision is the result of Decide.
type Decision struct {
	Outcome Conclusion `json:"outcome"`
	// Request is the value passed on to the HelmRelease (requestedAt,
	// forceAt), status.Request.Token: the request value, or for a request
	// derived from a status whose write is known (its UID and
	// resourceVersion, as read from an API server), the token bound to that
	// write; empty when nothing is requested or the objects could not be
	// read.
	Request string        `json:"request,omitempty"`
	Source  RequestSource `json:"source,omitempty"`
	// Reason says why, in one sentence without final period.
	Reason string `json:"reason"`
}

// Trigger reports whether the HelmRelease must be patched.
func (d Decision) Trigger() bool { return d.Outcome == ConclusionTrigger }

// Pending reports whether a pass is requested and not yet passed on.
func (d Decision) Pending() bool {
	switch d.Outcome {
	case ConclusionTrigger, ConclusionWaiting, ConclusionSuspended:
		return d.Request != ""
	default:
		return false
	}
}

// DryRun is the decision as a dry run reports it: a trigger becomes
// ConclusionWouldTrigger, its reason saying the request would be passed on;
// any other decision is unchanged.
func (d Decision) DryRun() Decision {
	if d.Outcome == ConclusionTrigger {
		d.Outcome = ConclusionWouldTrigger
		d.Reason = strings.Replace(d.Reason, ") passed on to ", ") would be passed on to ", 1)
	}
	return d
}

// String is the outcome and the reason, as the reconcile command prints
// them: "waiting: HelmRelease sylva-units is not Ready (InstallFailed)".
func (d Decision) String() string {
	return strings.ReplaceAll(string(d.Outcome), "-", " ") + ": " + d.Reason
}

// Decide tells whether the sylva-units HelmRelease must be asked for a
// reconciliation now. The pass asked for, and whether it was already passed
// on, are status.RequestOf; whether it may start is status.Assess, the
// readiness rule the status command applies too (docs/status.md), which
// also binds a request derived from the status to the write of the status
// ConfigMap. A suspended HelmRelease is its own outcome. Decide is pure:
// same input, same decision.
func Decide(in Input) Decision {
	obs := in.Observation
	ks, hr := obs.Kustomization, obs.HelmRelease
	ns := obs.Namespace
	switch {
	case hr == nil:
		return Decision{Outcome: ConclusionMissing, Reason: fmt.Sprintf("HelmRelease %s was not found in namespace %s", obs.HelmReleaseOf(), ns)}
	case ks == nil:
		return Decision{Outcome: ConclusionMissing, Reason: fmt.Sprintf("Kustomization %s was not found in namespace %s", status.KustomizationName, ns)}
	case in.Invalid != "":
		return Decision{Outcome: ConclusionInvalid, Reason: in.Invalid}
	}

	req, err := status.RequestOf(obs)
	if err != nil {
		return Decision{Outcome: ConclusionInvalid, Reason: err.Error()}
	}
	if req.Foreign != "" {
		return Decision{Outcome: ConclusionNotFromChart, Source: req.Source, Reason: NotFromChartReason(req.Foreign)}
	}
	if req.Value == "" {
		why := "the Kustomization carries no request annotation and the status ConfigMap does not set " + status.KeyAdditionalReconciliationRequired + ` to "true"`
		if obs.ConfigMap == nil {
			why = "the Kustomization carries no request annotation and there is no status ConfigMap yet"
		}
		return Decision{Outcome: ConclusionNothingRequested, Reason: why}
	}
	v := req.Token
	d := Decision{Request: v, Source: req.Source}

	if req.Failed != "" {
		d.Outcome, d.Reason = ConclusionFailed, FailedReason(req, hr.Name, ns)
		return d
	}
	if req.Handled() {
		d.Outcome, d.Reason = ConclusionAlreadyHandled, fmt.Sprintf("request %q was already passed on to HelmRelease %s (%s)", v, hr.Name, req.HandledBy)
		return d
	}
	if hr.Suspended {
		d.Outcome, d.Reason = ConclusionSuspended, fmt.Sprintf("HelmRelease %s is suspended; request %q waits until it is resumed (flux resume hr %s -n %s)", hr.Name, v, hr.Name, ns)
		return d
	}
	if rd := status.Assess(obs); !rd.MayStart() {
		why := strings.Join(rd.Blockers, "; ")
		if rd.InProgress() {
			why += ": " + rd.ProgressWhy
		}
		d.Outcome, d.Reason = ConclusionWaiting, why
		return d
	}
	d.Outcome, d.Reason = ConclusionTrigger, fmt.Sprintf("request %q (from the %s) passed on to HelmRelease %s", v, req.Source, hr.Name)
	return d
}

// NotFromChartReason is the reason of ConclusionNotFromChart: which keys of
// the status data someone other than the chart wrote, and who.
func NotFromChartReason(foreign string) string {
	return fmt.Sprintf("the status ConfigMap asks for a pass, but not as the chart wrote it: %s written by another field manager than %s (which applies the chart's sylva-units-status unit); only the chart's own write of the status data requests a pass",
		foreign, status.ChartWriter)
}

// FailedReason is the reason of ConclusionFailed: which request failed, why,
// and the fix.
func FailedReason(req status.Request, hr, ns string) string {
	return fmt.Sprintf("request %q was passed on to HelmRelease %s and the pass failed: %s; helm-controller does not run it again until the HelmRelease changes: %s",
		req.Token, hr, req.Failed, status.FailedPassFix(hr, ns))
}
