package reconciler

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"

	"gitlab.com/sylva-projects/sylva-planner/status"
)

// A request derived from the status content (status.RequestOf) is a hash of
// values anyone who may read the status ConfigMap can read, and often guess
// before the chart writes them (the next release revision, unchanged
// values). Passed on as it is, whoever may annotate the HelmRelease could
// write it there in advance: the planner would then find the request
// handled, or helm-controller would have run it before the status asked for
// it, and the pass would be lost.
//
// So the token passed on for such a request (requestedAt and forceAt) is
// bound to the write of the status ConfigMap that asks for it: a hash of the
// request value, the ConfigMap's UID and its resourceVersion, which the API
// server assigns when the ConfigMap is written and nobody knows before.
// Only what the planner can prove it passed on after that write counts as
// handled: the token in requestedAt or in status.lastHandledReconcileAt (the
// latter written by helm-controller only). The tracking annotation keeps the
// request value itself, so that the status command, which reads the same
// annotations, sees the request passed on; the planner believes it only
// beside the token. The one-shot command and the controller read the same
// ConfigMap and bind the same token, so that a request is still passed on
// once.

// statusWrite identifies one write of the status ConfigMap: its UID and
// resourceVersion, as the API server returns them; empty when the
// ConfigMap is absent or was not read from an API server.
func statusWrite(uid, resourceVersion string) string {
	if uid == "" && resourceVersion == "" {
		return ""
	}
	return uid + "/" + resourceVersion
}

// boundRequest is the token passed on for request v derived from the status
// written as write: DerivedRequestPrefix and the first 16 hex digits of the
// SHA-256 of both.
func boundRequest(v, write string) string {
	sum := sha256.Sum256([]byte(v + "\n" + write))
	return DerivedRequestPrefix + hex.EncodeToString(sum[:])[:16]
}

// vouched returns obs as the readiness rule must see it when request v is
// passed on as token: on the HelmRelease, token (in requestedAt, the
// tracking annotation or status.lastHandledReconcileAt) reads as v, and v
// itself counts only where the token proves the planner wrote it after the
// status asked: v in requestedAt or status.lastHandledReconcileAt was
// written before, by someone else, and the tracking annotation holding v
// without the token is not believed. sylva-units-operator's annotation,
// which the controller may not write, is left as it is. obs is not
// changed.
func vouched(obs status.Observation, v, token string) status.Observation {
	if obs.HelmRelease == nil || v == token {
		return obs
	}
	hr := *obs.HelmRelease
	hr.Annotations = maps.Clone(hr.Annotations)
	if hr.Annotations == nil {
		hr.Annotations = map[string]string{}
	}
	proof := hr.Annotations[AnnotationRequestedAt] == token || hr.LastHandledReconcileAt == token
	switch hr.Annotations[AnnotationRequestedAt] {
	case token:
		hr.Annotations[AnnotationRequestedAt] = v
	case v:
		delete(hr.Annotations, AnnotationRequestedAt)
	}
	switch hr.Annotations[AnnotationHandledRequest] {
	case token:
		hr.Annotations[AnnotationHandledRequest] = v
	case v:
		if !proof {
			delete(hr.Annotations, AnnotationHandledRequest)
		}
	}
	switch hr.LastHandledReconcileAt {
	case token:
		hr.LastHandledReconcileAt = v
	case v:
		hr.LastHandledReconcileAt = ""
	}
	obs.HelmRelease = &hr
	return obs
}
