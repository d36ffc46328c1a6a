package status

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
)

// This file is the one readiness rule: whether a release is in progress,
// whether a pass is requested and already passed on, and whether a pass may
// start now. Interpret (the status command) and reconciler.Decide (reconcile and
// the controller) both answer from it, so they cannot disagree on the same
// observation. docs/status.md states the rule.

// Annotations read on the sylva-units-status Kustomization and the
// sylva-units HelmRelease.
const (
	// AnnotationTargetReleaseRevision is the release revision in progress.
	AnnotationTargetReleaseRevision = "target-release-revision"
	// AnnotationTargetChartVersion is the chart version in progress.
	AnnotationTargetChartVersion = "target-sylva-units-chart-version"
	// AnnotationTargetValuesChecksum is the values checksum in progress.
	AnnotationTargetValuesChecksum = "target-values-checksum"
	// AnnotationReconciliationRequested is how the chart asks for one more
	// pass: sylva-units-operator copies its value onto the HelmRelease's
	// reconcile request annotation once the Kustomization is Ready.
	AnnotationReconciliationRequested = "sylva-units.sylva-project.org/additional-reconciliation-requested"
	// AnnotationReconcileRequestedAt is Flux's reconcile request annotation.
	AnnotationReconcileRequestedAt = "reconcile.fluxcd.io/requestedAt"
)

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
	// Failed says why the pass failed, when helm-controller picked it up
	// and ended it failed (PassFailure); empty otherwise.
	Failed string
	// Foreign says which keys of the status data someone other than the
	// chart wrote (Status.ForeignWrite), when the status asks for a pass
	// that is then not requested: Value is empty. Empty otherwise.
	Foreign string
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
		if f := cm.ForeignWrite(); f != "" {
			// Not the chart's write: no pass is requested (bind.go).
			return Request{Source: SourceStatus, Foreign: f}, nil
		}
		sum := sha256.Sum256([]byte(cm.ReleaseRevision + "\n" + cm.ValuesChecksum + "\n" + release))
		r.Value, r.Source = DerivedRequestPrefix+hex.EncodeToString(sum[:])[:16], SourceStatus
		r.Token = r.Value
		if w := cm.write(); w != "" {
			r.Token = boundRequest(r.Value, w)
		}
	}
	r.HandledBy, r.PickedUp = vouched(obs.HelmRelease, r.Value, r.Token)
	if r.Handled() && r.PickedUp {
		r.Failed = PassFailure(obs.HelmRelease)
	}
	return r, nil
}

// failureReasons are the reasons of helm-controller's Ready condition that
// end a release it ran in failure (its install, upgrade, tests or their
// remediation): it does not run that release again until the
// HelmRelease's spec changes or another reconciliation is forced.
var failureReasons = []string{
	"InstallFailed", "UpgradeFailed", "TestFailed", "RollbackSucceeded", "RollbackFailed",
	"UninstallSucceeded", "UninstallFailed", "RetriesExceeded",
}

// FailedPassFix is what to do when the requested pass failed on
// HelmRelease hr of namespace ns: fix its cause, then force the pass
// again with a reset of helm-controller's failure counters.
func FailedPassFix(hr, ns string) string {
	return fmt.Sprintf("fix the cause helm-controller reports, then run it again: flux reconcile helmrelease %s -n %s --force --reset", hr, cmp.Or(ns, DefaultNamespace))
}

// PassFailure says why the last reconciliation helm-controller handled on
// hr failed: "HelmRelease sylva-units is not Ready (UpgradeFailed: …)".
// Empty when it did not fail or is still running. It failed when hr is
// not reconciling and either stalled at its current generation, or not
// Ready at its current generation for one of the reasons that end a Helm
// release in failure (UpgradeFailed, InstallFailed, RollbackSucceeded, …).
// Call it for a request helm-controller picked up
// (status.lastHandledReconcileAt equals it): that field is written at the
// end of every reconcile, failed ones too.
func PassFailure(hr *FluxObject) string {
	if hr == nil || hr.Suspended || hr.Reconciling.IsTrue() {
		return ""
	}
	what := "HelmRelease " + hr.Name
	if c := hr.Stalled; c.IsTrue() && (c.ObservedGeneration == 0 || c.ObservedGeneration == hr.Generation) {
		return what + " is stalled" + c.Text()
	}
	c := hr.Ready
	if c == nil || c.Status != "False" || hr.ObservedGeneration != hr.Generation || (c.ObservedGeneration != 0 && c.ObservedGeneration != hr.Generation) {
		return ""
	}
	if !slices.Contains(failureReasons, c.Reason) {
		return ""
	}
	return what + " is not Ready" + c.Text()
}

// Phase says whether the last release of sylva-units finished.
type Phase string

const (
	// PhaseDone means the Kustomization's target-* annotations match the status.
	PhaseDone Phase = "done"
	// PhaseInProgress means a release or a requested pass is being applied.
	PhaseInProgress Phase = "in-progress"
	// PhaseInstalling means no status yet, but a first release is being applied.
	PhaseInstalling Phase = "installing"
	// PhaseNotInstalled means no status and nothing being applied.
	PhaseNotInstalled Phase = "not-installed"
	// PhaseUnknown means the Kustomization was not read, or carries no target.
	PhaseUnknown Phase = "unknown"
	// PhaseFailed means the requested pass was passed on, picked up by
	// helm-controller and failed (Request.Failed): it does not run again
	// until it is fixed and requested again.
	PhaseFailed Phase = "failed"
)

// Readiness is the answer of the readiness rule for one Observation.
type Readiness struct {
	Progress Phase
	// ProgressWhy says why, in words, without final period.
	ProgressWhy string
	// Blockers say, in a fixed order, why a pass may not start now; empty
	// when it may.
	Blockers []string
	// Failed says why the last release helm-controller ran failed (the
	// requested pass, or a release of the chart itself, such as the
	// upgrade that starts a transition), when Progress is PhaseFailed
	// (PassFailure); empty otherwise.
	Failed string
}

// InProgress reports whether a release is being applied (or installed).
func (r Readiness) InProgress() bool {
	return r.Progress == PhaseInProgress || r.Progress == PhaseInstalling
}

// MayStart reports whether a pass may start now.
func (r Readiness) MayStart() bool { return len(r.Blockers) == 0 }

// BlockerInProgress is the blocker listed while a release is in progress.
const BlockerInProgress = "a release is being applied"

// BlockerPassFailed is the blocker listed when the last release failed.
const BlockerPassFailed = "the last release failed and helm-controller does not run it again until the HelmRelease changes"

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
	if reqErr == nil && req.Handled() && !req.PickedUp && r.Progress != PhaseInProgress {
		r.Progress = PhaseInProgress
		as := ""
		if req.Token != req.Value {
			as = fmt.Sprintf(" as %q", req.Token)
		}
		r.ProgressWhy = fmt.Sprintf("the requested pass %q was passed on to HelmRelease %s%s, which has not picked it up yet", req.Value, hr.Name, as)
	}
	// Nothing runs any more once a release failed: the Kustomization's
	// targets may name the failed release, but it will not be applied. A
	// request passed on and not yet picked up runs it again.
	switch {
	case reqErr == nil && req.Failed != "":
		r.Failed = req.Failed
		r.Progress, r.ProgressWhy = PhaseFailed, fmt.Sprintf("the requested pass %q failed: %s", req.Token, req.Failed)
	case hr != nil && (reqErr != nil || !req.Handled() || req.PickedUp):
		if f := PassFailure(hr); f != "" {
			r.Failed = f
			r.Progress, r.ProgressWhy = PhaseFailed, f
		}
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
		r.Blockers = append(r.Blockers, "HelmRelease "+obs.HelmReleaseOf()+" is absent from "+ns)
	} else {
		r.Blockers = append(r.Blockers, NotReady("HelmRelease", hr)...)
	}
	if r.InProgress() {
		r.Blockers = append(r.Blockers, BlockerInProgress)
	}
	if r.Progress == PhaseFailed {
		r.Blockers = append(r.Blockers, BlockerPassFailed)
	}
	return r
}

// progress compares the Kustomization's target-* annotations with the status.
func progress(cm *Status, ks *FluxObject, fluxRead bool) (Phase, string) {
	if ks == nil {
		if cm == nil && fluxRead {
			return PhaseNotInstalled, "no status ConfigMap and no sylva-units-status Kustomization"
		}
		if fluxRead {
			return PhaseUnknown, "the sylva-units-status Kustomization is absent"
		}
		return PhaseUnknown, "the sylva-units-status Kustomization was not read"
	}
	targets := []struct{ annotation, key, have string }{
		{AnnotationTargetReleaseRevision, KeyReleaseRevision, ""},
		{AnnotationTargetChartVersion, KeyChartVersion, ""},
		{AnnotationTargetValuesChecksum, KeyValuesChecksum, ""},
	}
	if cm != nil {
		targets[0].have, targets[1].have, targets[2].have = cm.ReleaseRevision, cm.ChartVersion, cm.ValuesChecksum
	}
	var differ []string
	seen := 0
	for _, t := range targets {
		want, ok := ks.Annotations[t.annotation]
		if !ok {
			continue
		}
		seen++
		if want != t.have {
			have := t.have
			if have == "" {
				have = "absent"
			}
			differ = append(differ, fmt.Sprintf("%s %s, status %s %s", t.annotation, short(want), t.key, short(have)))
		}
	}
	switch {
	case seen == 0 && cm == nil:
		return PhaseInstalling, "no status yet; the sylva-units-status Kustomization exists"
	case seen == 0:
		return PhaseUnknown, "the Kustomization carries no target-* annotation"
	case cm == nil:
		return PhaseInstalling, "the first release is being applied (" + strings.Join(differ, "; ") + ")"
	case len(differ) > 0:
		return PhaseInProgress, strings.Join(differ, "; ")
	}
	return PhaseDone, "the Kustomization's targets match the status"
}

func short(s string) string {
	return truncate(s, 16)
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

func readyGen(f *FluxObject) int64 {
	if f.Ready != nil && f.Ready.ObservedGeneration != 0 && f.Ready.ObservedGeneration != f.Generation {
		return f.Ready.ObservedGeneration
	}
	return f.ObservedGeneration
}

// Text describes c for a message: " (Reason: Message)", " (no Ready
// condition)" when c is nil, or "" when it carries neither.
func (c *Condition) Text() string {
	if c == nil {
		return " (no Ready condition)"
	}
	var parts []string
	if c.Reason != "" {
		parts = append(parts, c.Reason)
	}
	if c.Message != "" {
		parts = append(parts, c.Message)
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ": ") + ")"
}
