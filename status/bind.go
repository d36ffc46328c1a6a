package status

import (
	"crypto/sha256"
	"encoding/hex"
)

// A request derived from the status content (RequestOf) is a hash of
// values anyone who may read the status ConfigMap can read, and often guess
// before the chart writes them (the next release revision, unchanged
// values). Passed on as it is, whoever may annotate the HelmRelease could
// write it there in advance: the request would then be found handled, or
// helm-controller would have run it before the status asked for it, and the
// pass would be lost.
//
// So the token passed on for such a request (requestedAt and forceAt) is
// bound to the write of the status ConfigMap that asks for it: a hash of the
// request value, the ConfigMap's UID and its resourceVersion, which the API
// server assigns when the ConfigMap is written and nobody knows before.
// Only what proves the token was passed on after that write counts as
// handled: the token in requestedAt or in status.lastHandledReconcileAt (the
// latter written by helm-controller only). The planner's tracking
// annotation keeps the request value itself and is believed only beside
// that proof. status, reconcile and the controller read the same ConfigMap
// and bind the same token, so that they read a pass alike and a request is
// passed on once.

// write identifies the write of the status ConfigMap s: its UID and
// resourceVersion; empty when s is nil or its resourceVersion is unknown
// (a file that does not carry it).
func (s *Status) write() string {
	if s == nil || s.ResourceVersion == "" {
		return ""
	}
	return s.UID + "/" + s.ResourceVersion
}

// boundRequest is the token passed on for request value v derived from the
// status written as write: DerivedRequestPrefix and the first 16 hex digits
// of the SHA-256 of both.
func boundRequest(v, write string) string {
	sum := sha256.Sum256([]byte(v + "\n" + write))
	return DerivedRequestPrefix + hex.EncodeToString(sum[:])[:16]
}

// vouched says what, on hr, shows that request value was passed on as
// token (handledBy, empty when nothing does), and whether helm-controller
// picked the token up (status.lastHandledReconcileAt equals it). When token
// is value itself, any of the tracking annotations, requestedAt or
// status.lastHandledReconcileAt equal to it shows it. When token is bound
// to the status write, value counts only where the token proves it was
// passed on after the status asked: value in requestedAt or
// status.lastHandledReconcileAt was written before, by someone else, and
// the planner's tracking annotation holding value is believed only beside
// the token in requestedAt or status.lastHandledReconcileAt.
// sylva-units-operator's annotation, which the controller may not write,
// counts as it is. vouched only reads hr, so the rule sees each
// observation once and the same way.
func vouched(hr *FluxObject, value, token string) (handledBy string, pickedUp bool) {
	if hr == nil || value == "" {
		return "", false
	}
	requestedAt := hr.Annotations[AnnotationReconcileRequestedAt]
	tracked := hr.Annotations[AnnotationHandledRequest]
	pickedUp = hr.LastHandledReconcileAt == token
	proof := token == value || requestedAt == token || pickedUp
	switch {
	case tracked == token, tracked == value && proof:
		handledBy = "planner annotation " + AnnotationHandledRequest
	case hr.Annotations[AnnotationOperatorHandled] == value:
		handledBy = "sylva-units-operator annotation " + AnnotationOperatorHandled
	case requestedAt == token:
		handledBy = "annotation " + AnnotationReconcileRequestedAt
	case pickedUp:
		handledBy = "status.lastHandledReconcileAt"
	}
	return handledBy, pickedUp
}
