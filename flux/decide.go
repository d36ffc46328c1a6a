package flux

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/fluxcd/pkg/apis/meta"

	"gitlab.com/sylva-projects/sylva-planner/status"
)

// Annotations read and written on the sylva-units HelmRelease.
const (
	// AnnotationRequestedAt asks helm-controller for a reconciliation; it is
	// set to the request value.
	AnnotationRequestedAt = meta.ReconcileRequestAnnotation
	// AnnotationForceAt, set to the same value as AnnotationRequestedAt,
	// forces a Helm upgrade even when nothing changed.
	AnnotationForceAt = meta.ForceRequestAnnotation
	// AnnotationHandledRequest is the planner's tracking annotation: the last
	// request value it passed on to the HelmRelease. It is written in the
	// same patch as AnnotationRequestedAt, so a restart or a second planner
	// never passes the same value on twice.
	AnnotationHandledRequest = "planner.sylva-project.org/handled-request"
	// AnnotationOperatorHandled is the tracking annotation in which
	// sylva-units-operator is assumed to record, on the HelmRelease, the
	// last request value it copied. The name is an assumption, not read from
	// the operator's source: the planner does not depend on it alone, since
	// a value the operator copied also shows as AnnotationRequestedAt and,
	// once helm-controller saw it, as status.lastHandledReconcileAt.
	AnnotationOperatorHandled = "sylva-units.sylva-project.org/handled-reconciliation-request"
)

// DerivedRequestPrefix starts a request value derived from the status
// content, when the status asks for a pass and the Kustomization carries no
// request annotation.
const DerivedRequestPrefix = "sylva-planner-"

// Input is what Decide needs, as plain values.
type Input struct {
	// Observation is what was read in the release namespace; its FluxRead
	// must be true (nil objects are absent).
	Observation status.Observation
	// Invalid says why an object could not be decoded (a malformed value in
	// the status ConfigMap, typically); empty when everything decoded.
	Invalid string
}

// Outcome is what Decide concluded.
type Outcome string

// Outcomes, also the values of the result label of the
// sylva_planner_reconcile_requests_total metric.
const (
	// OutcomeTrigger: a pass is requested and can start now; patch the
	// HelmRelease with Decision.Request.
	OutcomeTrigger Outcome = "triggered"
	// OutcomeNothingRequested: no pass is requested.
	OutcomeNothingRequested Outcome = "nothing-requested"
	// OutcomeAlreadyHandled: the request value was already passed on, by
	// this planner or by sylva-units-operator.
	OutcomeAlreadyHandled Outcome = "already-handled"
	// OutcomeWaiting: a pass is requested but cannot start yet (an object is
	// not Ready, a release is being applied).
	OutcomeWaiting Outcome = "waiting"
	// OutcomeSuspended: a pass is requested but the HelmRelease is
	// suspended.
	OutcomeSuspended Outcome = "suspended"
	// OutcomeMissing: the HelmRelease or the Kustomization does not exist.
	OutcomeMissing Outcome = "missing"
	// OutcomeInvalid: an object could not be decoded, or the status asks for
	// a pass without the values that identify it.
	OutcomeInvalid Outcome = "invalid"
)

// RequestSource says where a request value comes from.
type RequestSource string

const (
	// SourceAnnotation is the Kustomization's
	// additional-reconciliation-requested annotation, as the chart sets it.
	SourceAnnotation RequestSource = "kustomization-annotation"
	// SourceStatus is derived from the status ConfigMap
	// (additional_reconciliation_required is "true").
	SourceStatus RequestSource = "status"
)

// Decision is the result of Decide.
type Decision struct {
	Outcome Outcome `json:"outcome"`
	// Request is the request value; empty when nothing is requested or the
	// objects could not be read.
	Request string        `json:"request,omitempty"`
	Source  RequestSource `json:"source,omitempty"`
	// Reason says why, in one sentence without final period.
	Reason string `json:"reason"`
}

// Trigger reports whether the HelmRelease must be patched.
func (d Decision) Trigger() bool { return d.Outcome == OutcomeTrigger }

// Pending reports whether a pass is requested and not yet passed on.
func (d Decision) Pending() bool {
	switch d.Outcome {
	case OutcomeTrigger, OutcomeWaiting, OutcomeSuspended:
		return d.Request != ""
	default:
		return false
	}
}

// String is the outcome and the reason, as the reconcile command prints
// them: "waiting: HelmRelease sylva-units is not Ready (InstallFailed)".
func (d Decision) String() string {
	return strings.ReplaceAll(string(d.Outcome), "-", " ") + ": " + d.Reason
}

// Decide tells whether the sylva-units HelmRelease must be asked for a
// reconciliation now. A pass is requested when the sylva-units-status
// Kustomization carries the additional-reconciliation-requested annotation
// (its value is the request value) or the status ConfigMap says
// additional_reconciliation_required: "true" (the value is then derived
// from the status content by RequestValue). The request is already handled
// when the HelmRelease's planner or operator tracking annotation, its
// requestedAt annotation or its status.lastHandledReconcileAt equals the
// value. Otherwise it triggers only when the HelmRelease is not suspended,
// the Kustomization is Ready at its generation, no release is being applied
// and the HelmRelease is Ready at its generation, neither reconciling nor
// stalled. Decide is pure: same input, same decision.
func Decide(in Input) Decision {
	obs := in.Observation
	ks, hr := obs.Kustomization, obs.HelmRelease
	ns := obs.Namespace
	switch {
	case hr == nil:
		return Decision{Outcome: OutcomeMissing, Reason: fmt.Sprintf("the sylva-units HelmRelease was not found in namespace %s", ns)}
	case ks == nil:
		return Decision{Outcome: OutcomeMissing, Reason: fmt.Sprintf("Kustomization %s was not found in namespace %s", status.KustomizationName, ns)}
	case in.Invalid != "":
		return Decision{Outcome: OutcomeInvalid, Reason: in.Invalid}
	}

	v, src, err := RequestValue(obs)
	if err != nil {
		return Decision{Outcome: OutcomeInvalid, Reason: err.Error()}
	}
	if v == "" {
		why := "the Kustomization carries no request annotation and the status ConfigMap does not set " + status.KeyAdditionalReconciliationRequired + ` to "true"`
		if obs.ConfigMap == nil {
			why = "the Kustomization carries no request annotation and there is no status ConfigMap yet"
		}
		return Decision{Outcome: OutcomeNothingRequested, Reason: why}
	}
	d := Decision{Request: v, Source: src}

	if by := handledBy(hr, v); by != "" {
		d.Outcome, d.Reason = OutcomeAlreadyHandled, fmt.Sprintf("request %q was already passed on to HelmRelease %s (%s)", v, hr.Name, by)
		return d
	}
	if hr.Suspended {
		d.Outcome, d.Reason = OutcomeSuspended, fmt.Sprintf("HelmRelease %s is suspended; request %q waits until it is resumed (flux resume hr %s -n %s)", hr.Name, v, hr.Name, ns)
		return d
	}
	if why := notReady(ks); why != "" {
		d.Outcome, d.Reason = OutcomeWaiting, fmt.Sprintf("Kustomization %s %s", ks.Name, why)
		return d
	}
	if why := releaseInProgress(obs.ConfigMap, ks); why != "" {
		d.Outcome, d.Reason = OutcomeWaiting, "a release is being applied: "+why
		return d
	}
	if why := notReady(hr); why != "" {
		d.Outcome, d.Reason = OutcomeWaiting, fmt.Sprintf("HelmRelease %s %s", hr.Name, why)
		return d
	}
	d.Outcome, d.Reason = OutcomeTrigger, fmt.Sprintf("request %q (from the %s) passed on to HelmRelease %s", v, src, hr.Name)
	return d
}

// RequestValue returns the pending request value of obs and where it comes
// from: the Kustomization's additional-reconciliation-requested annotation
// when set (so that the planner and sylva-units-operator use the same
// value), else, when the status ConfigMap says
// additional_reconciliation_required: "true", DerivedRequestPrefix followed
// by the first 16 hex digits of the SHA-256 of release-revision,
// values-checksum and sylva_release, so that the same status always yields
// the same value and the next pass, written by a new Helm release revision,
// a new one. It returns "" when nothing is requested, and an error when the
// status asks for a pass but has neither release-revision nor
// values-checksum to tell this request from the previous one.
func RequestValue(obs status.Observation) (string, RequestSource, error) {
	if ks := obs.Kustomization; ks != nil {
		if v := strings.TrimSpace(ks.Annotations[status.AnnotationReconciliationRequested]); v != "" {
			return v, SourceAnnotation, nil
		}
	}
	cm := obs.ConfigMap
	if cm == nil || cm.AdditionalReconciliationRequired == nil || !*cm.AdditionalReconciliationRequired {
		return "", "", nil
	}
	if cm.ReleaseRevision == "" && cm.ValuesChecksum == "" {
		return "", "", fmt.Errorf("the status ConfigMap sets %s to \"true\" but has neither %s nor %s to identify the request",
			status.KeyAdditionalReconciliationRequired, status.KeyReleaseRevision, status.KeyValuesChecksum)
	}
	release := ""
	if !cm.SylvaRelease.IsZero() {
		release = cm.SylvaRelease.String()
	}
	sum := sha256.Sum256([]byte(cm.ReleaseRevision + "\n" + cm.ValuesChecksum + "\n" + release))
	return DerivedRequestPrefix + hex.EncodeToString(sum[:])[:16], SourceStatus, nil
}

// handledBy names what shows that v was already passed on to hr; empty
// when nothing does.
func handledBy(hr *status.FluxObject, v string) string {
	switch {
	case hr.Annotations[AnnotationHandledRequest] == v:
		return "planner annotation " + AnnotationHandledRequest
	case hr.Annotations[AnnotationOperatorHandled] == v:
		return "sylva-units-operator annotation " + AnnotationOperatorHandled
	case hr.Annotations[AnnotationRequestedAt] == v:
		return "annotation " + AnnotationRequestedAt
	case hr.LastHandledReconcileAt == v:
		return "status.lastHandledReconcileAt"
	}
	return ""
}

// notReady says why f is not Ready at its current generation, or is
// reconciling or stalled; empty when it is ready for a pass.
func notReady(f *status.FluxObject) string {
	switch {
	case f.Suspended:
		return "is suspended"
	case !f.Ready.IsTrue():
		return "is not Ready" + f.Ready.Text()
	case !f.ReadyAtGeneration():
		gen := f.ObservedGeneration
		if f.Ready.ObservedGeneration != 0 && f.Ready.ObservedGeneration != f.Generation {
			gen = f.Ready.ObservedGeneration
		}
		return fmt.Sprintf("is not Ready at its current generation %d (Ready=True is for generation %d)", f.Generation, gen)
	case f.Stalled.IsTrue():
		return "is stalled" + f.Stalled.Text()
	case f.Reconciling.IsTrue():
		return "is reconciling" + f.Reconciling.Text()
	}
	return ""
}

// releaseInProgress compares the Kustomization's target-* annotations with
// the status ConfigMap: while they differ, the status describes the
// previous release and a pass must not start. Empty when they agree or
// cannot be compared.
func releaseInProgress(cm *status.Status, ks *status.FluxObject) string {
	if cm == nil {
		return ""
	}
	var differ []string
	for _, t := range []struct{ annotation, key, have string }{
		{status.AnnotationTargetReleaseRevision, status.KeyReleaseRevision, cm.ReleaseRevision},
		{status.AnnotationTargetValuesChecksum, status.KeyValuesChecksum, cm.ValuesChecksum},
	} {
		if want, ok := ks.Annotations[t.annotation]; ok && want != t.have {
			differ = append(differ, fmt.Sprintf("%s %q, status %s %q", t.annotation, want, t.key, t.have))
		}
	}
	return strings.Join(differ, "; ")
}
