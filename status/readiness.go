package status

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// This file is the one readiness rule: whether a release is in progress,
// whether a pass is requested and already passed on, and whether a pass may
// start now. Interpret (the status command) and reconciler.Decide (reconcile and
// the controller) both answer from it, so they cannot disagree on the same
// observation. docs/status.md states the rule.

// Tracking annotations on the sylva-units HelmRelease: what shows that a
// request value was already passed on.
const (
	// AnnotationHandledRequest is the planner's tracking annotation: the
	// last request value it passed on to the HelmRelease, written in the
	// same patch as the reconcile request.
	AnnotationHandledRequest = "planner.sylva-project.org/handled-request"
	// AnnotationOperatorHandled is the tracking annotation in which
	// sylva-units-operator is assumed to record the last request value it
	// copied. The name is an assumption: a value the operator copied also
	// shows as AnnotationReconcileRequestedAt and, once helm-controller saw
	// it, as status.lastHandledReconcileAt, which the rule reads too.
	AnnotationOperatorHandled = "sylva-units.sylva-project.org/handled-reconciliation-request"
)

// DerivedRequestPrefix starts a request value derived from the status
// content, when the status asks for a pass and the Kustomization carries no
// request annotation.
const DerivedRequestPrefix = "sylva-planner-"

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

// Request is the pass an Observation asks for.
type Request struct {
	// Value is the request value, what the planner's tracking annotation
	// records; empty when no pass is asked for.
	Value string
	// Token is what is passed on to the HelmRelease for Value (requestedAt,
	// forceAt) and what helm-controller then records in
	// status.lastHandledReconcileAt: for a request derived from a status
	// whose write is known (Status.ResourceVersion), the token bound to
	// that write (bind.go); else Value itself.
	Token  string
	Source RequestSource
	// HandledBy names what shows, on the HelmRelease, that the request was
	// already passed on; empty when nothing does or the HelmRelease is
	// absent.
	HandledBy string
	// PickedUp is true when helm-controller saw Token
	// (status.lastHandledReconcileAt equals it).
	PickedUp bool
}

// Handled reports whether the request was already passed on.
func (r Request) Handled() bool { return r.HandledBy != "" }

// RequestOf returns the pass obs asks for. Its value is the Kustomization's
// additional-reconciliation-requested annotation when set (so that the
// planner and sylva-units-operator use the same value), else, when the
// status ConfigMap says additional_reconciliation_required: "true",
// DerivedRequestPrefix followed by the first 16 hex digits of the SHA-256 of
// release-revision, values-checksum and sylva_release: the same status
// always yields the same value, and the next pass, written by a new Helm
// release revision, a new one. A value from the annotation is passed on as
// it is; a value derived from a status whose write is known is passed on as
// a token bound to that write (bind.go). The request is handled when the
// HelmRelease shows the token passed on: its planner or operator tracking
// annotation, its requestedAt annotation or its
// status.lastHandledReconcileAt, as vouched reads them. The error says the
// status asks for a pass without release-revision or values-checksum to
// tell this request from the previous one.
func RequestOf(obs Observation) (Request, error) {
	var r Request
	if ks := obs.Kustomization; ks != nil {
		if v := strings.TrimSpace(ks.Annotations[AnnotationReconciliationRequested]); v != "" {
			r.Value, r.Token, r.Source = v, v, SourceAnnotation
		}
	}
	if cm := obs.ConfigMap; r.Value == "" && cm != nil && cm.AdditionalReconciliationRequired != nil && *cm.AdditionalReconciliationRequired {
		if cm.ReleaseRevision == "" && cm.ValuesChecksum == "" {
			return Request{Source: SourceStatus}, fmt.Errorf("the status ConfigMap sets %s to \"true\" but has neither %s nor %s to identify the request",
				KeyAdditionalReconciliationRequired, KeyReleaseRevision, KeyValuesChecksum)
		}
		release := ""
		if !cm.SylvaRelease.IsZero() {
			release = cm.SylvaRelease.String()
		}
		sum := sha256.Sum256([]byte(cm.ReleaseRevision + "\n" + cm.ValuesChecksum + "\n" + release))
		r.Value, r.Source = DerivedRequestPrefix+hex.EncodeToString(sum[:])[:16], SourceStatus
		r.Token = r.Value
		if w := cm.write(); w != "" {
			r.Token = boundRequest(r.Value, w)
		}
	}
	r.HandledBy, r.PickedUp = vouched(obs.HelmRelease, r.Value, r.Token)
	return r, nil
}

// Readiness is the answer of the readiness rule for one Observation.
type Readiness struct {
	Progress Progress
	// ProgressWhy says why, in words, without final period.
	ProgressWhy string
	// Blockers say, in a fixed order, why a pass may not start now; empty
	// when it may.
	Blockers []string
}

// InProgress reports whether a release is being applied (or installed).
func (r Readiness) InProgress() bool {
	return r.Progress == ProgressInProgress || r.Progress == ProgressInstalling
}

// MayStart reports whether a pass may start now.
func (r Readiness) MayStart() bool { return len(r.Blockers) == 0 }

// BlockerInProgress is the blocker listed while a release is in progress.
const BlockerInProgress = "a release is being applied"

// Assess applies the readiness rule to obs.
//
// A release is in progress when the Kustomization's target-release-revision,
// target-sylva-units-chart-version or target-values-checksum annotation
// differs from the status ConfigMap's release-revision,
// sylva-units-chart-version or values-checksum (a new release is being
// applied; the status still describes the previous one), when there is no
// ConfigMap yet and the Kustomization exists (the first installation), or
// when the requested pass was passed on to the HelmRelease and
// helm-controller has not picked it up yet.
//
// A pass may start now when the Flux objects were read and: the
// Kustomization and the HelmRelease exist; neither is suspended; each is
// Ready=True at its current generation (status.observedGeneration and the
// Ready condition's observedGeneration, when set, equal
// metadata.generation), neither Reconciling nor Stalled; and no release is
// in progress.
func Assess(obs Observation) Readiness {
	req, err := RequestOf(obs)
	return assess(obs, req, err)
}

// assess is Assess given RequestOf(obs), so that Interpret reads the
// request once for both.
func assess(obs Observation, req Request, reqErr error) Readiness {
	cm, ks, hr := obs.ConfigMap, obs.Kustomization, obs.HelmRelease
	var r Readiness
	r.Progress, r.ProgressWhy = progress(cm, ks, obs.FluxRead)
	if reqErr == nil && req.Handled() && !req.PickedUp && r.Progress != ProgressInProgress {
		r.Progress = ProgressInProgress
		as := ""
		if req.Token != req.Value {
			as = fmt.Sprintf(" as %q", req.Token)
		}
		r.ProgressWhy = fmt.Sprintf("the requested pass %q was passed on to HelmRelease %s%s, which has not picked it up yet", req.Value, hr.Name, as)
	}

	if !obs.FluxRead {
		r.Blockers = []string{"the Kustomization and HelmRelease were not read (offline input)"}
		return r
	}
	ns := obs.Namespace
	if ns == "" {
		ns = "the release namespace"
	}
	if ks == nil {
		r.Blockers = append(r.Blockers, fmt.Sprintf("Kustomization %s is absent from %s", KustomizationName, ns))
	} else {
		r.Blockers = append(r.Blockers, NotReady("Kustomization", ks)...)
	}
	if hr == nil {
		r.Blockers = append(r.Blockers, "the sylva-units HelmRelease is absent from "+ns)
	} else {
		r.Blockers = append(r.Blockers, NotReady("HelmRelease", hr)...)
	}
	if r.InProgress() {
		r.Blockers = append(r.Blockers, BlockerInProgress)
	}
	return r
}

// NotReady lists, in a fixed order, why f (of kind, for the messages) is
// not ready for a pass: suspended; not Ready, or Ready only for an older
// generation; reconciling; stalled. Empty when it is ready.
func NotReady(kind string, f *FluxObject) []string {
	var out []string
	what := kind + " " + f.Name
	if f.Suspended {
		out = append(out, what+" is suspended")
	}
	switch {
	case !f.Ready.IsTrue():
		out = append(out, what+" is not Ready"+f.Ready.Text())
	case !f.ReadyAtGeneration():
		out = append(out, fmt.Sprintf("%s is not Ready at its current generation %d (Ready=True is for generation %d)", what, f.Generation, readyGen(f)))
	}
	if f.Reconciling.IsTrue() {
		out = append(out, what+" is reconciling"+f.Reconciling.Text())
	}
	if f.Stalled.IsTrue() {
		out = append(out, what+" is stalled"+f.Stalled.Text())
	}
	return out
}
