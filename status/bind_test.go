package status_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"gitlab.com/sylva-projects/sylva-planner/skew"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

// boundObservation is a status that asks for a pass, written at
// resourceVersion rv of ConfigMap uid, with a Ready Kustomization at its
// targets and a Ready HelmRelease; hr changes the HelmRelease.
func boundObservation(uid, rv string, hr func(*status.FluxObject)) status.Observation {
	yes := true
	ready := func(gen int64) *status.Condition {
		return &status.Condition{Status: "True", ObservedGeneration: gen}
	}
	obs := status.Observation{
		Namespace: "sylva-system", FluxRead: true,
		ConfigMap: &status.Status{
			Name: status.ConfigMapName, Namespace: "sylva-system", UID: uid, ResourceVersion: rv,
			SylvaRelease: skew.MustParse("1.6"), AdditionalReconciliationRequired: &yes,
			ReleaseRevision: "7", ValuesChecksum: "abc123",
		},
		Kustomization: &status.FluxObject{
			Kind: status.KindKustomization, Name: status.KustomizationName, Namespace: "sylva-system",
			Generation: 2, ObservedGeneration: 2, Ready: ready(2),
			Annotations: map[string]string{status.AnnotationTargetReleaseRevision: "7", status.AnnotationTargetValuesChecksum: "abc123"},
		},
		HelmRelease: &status.FluxObject{
			Kind: status.KindHelmRelease, Name: status.DefaultHelmRelease, Namespace: "sylva-system",
			Generation: 3, ObservedGeneration: 3, Ready: ready(3),
			LastHandledReconcileAt: "2026-01-01T00:00:00Z", Annotations: map[string]string{},
		},
	}
	if hr != nil {
		hr(obs.HelmRelease)
	}
	return obs
}

func TestRequestOfBindsADerivedRequestToTheStatusWrite(t *testing.T) {
	unbound, err := status.RequestOf(boundObservation("", "", nil))
	if err != nil {
		t.Fatal(err)
	}
	if unbound.Token != unbound.Value || !strings.HasPrefix(unbound.Value, status.DerivedRequestPrefix) {
		t.Fatalf("RequestOf() of a status whose write is unknown = %+v, want a derived value passed on as it is", unbound)
	}
	bound, err := status.RequestOf(boundObservation("5d1c0b9e-uid", "4711", nil))
	if err != nil {
		t.Fatal(err)
	}
	if bound.Value != unbound.Value {
		t.Errorf("RequestOf().Value = %q once the write is known, want the same value %q", bound.Value, unbound.Value)
	}
	if bound.Token == bound.Value || !strings.HasPrefix(bound.Token, status.DerivedRequestPrefix) || len(bound.Token) != len(bound.Value) {
		t.Fatalf("RequestOf().Token = %q for value %q, want another token of the same form", bound.Token, bound.Value)
	}
	for _, w := range []struct{ name, uid, rv string }{
		{"a new write of the status", "5d1c0b9e-uid", "4712"},
		{"a ConfigMap created anew", "77aa0000-uid", "4711"},
	} {
		if r, _ := status.RequestOf(boundObservation(w.uid, w.rv, nil)); r.Token == bound.Token {
			t.Errorf("%s gives the same token %q", w.name, r.Token)
		}
	}
	if r, _ := status.RequestOf(boundObservation("5d1c0b9e-uid", "", nil)); r.Token != r.Value {
		t.Errorf("RequestOf().Token = %q with an empty resourceVersion, want the value %q (the write is unknown)", r.Token, r.Value)
	}
	annotated := boundObservation("5d1c0b9e-uid", "4711", nil)
	annotated.Kustomization.Annotations[status.AnnotationReconciliationRequested] = "req-2"
	if r, _ := status.RequestOf(annotated); r.Value != "req-2" || r.Token != "req-2" {
		t.Errorf("RequestOf() of the Kustomization's request = value %q, token %q; want req-2 passed on as it is", r.Value, r.Token)
	}
}

// TestBoundRequestIsHandledOnlyWhereTheTokenProvesIt: the readiness rule
// reads a request passed on as a token the same way for status,
// reconcile and the controller.
func TestBoundRequestIsHandledOnlyWhereTheTokenProvesIt(t *testing.T) {
	const uid, rv = "5d1c0b9e-uid", "4711"
	req, err := status.RequestOf(boundObservation(uid, rv, nil))
	if err != nil {
		t.Fatal(err)
	}
	v, token := req.Value, req.Token
	set := func(requestedAt, tracked, operator, lastHandled string) func(*status.FluxObject) {
		return func(hr *status.FluxObject) {
			for k, val := range map[string]string{
				status.AnnotationReconcileRequestedAt: requestedAt,
				status.AnnotationHandledRequest:       tracked,
				status.AnnotationOperatorHandled:      operator,
			} {
				if val != "" {
					hr.Annotations[k] = val
				}
			}
			if lastHandled != "" {
				hr.LastHandledReconcileAt = lastHandled
			}
		}
	}
	tests := []struct {
		name        string
		hr          func(*status.FluxObject)
		handledBy   string // a part of HandledBy; empty: not handled
		pickedUp    bool
		pending     bool
		progress    status.Progress
		notInReport string
	}{
		{
			name: "nothing on the HelmRelease: the pass is pending",
			hr:   nil, pending: true, progress: status.ProgressDone,
		},
		{
			name: "the value written in advance everywhere is not handled",
			hr:   set(v, v, "", v), pending: true, progress: status.ProgressDone,
		},
		{
			name: "the tracking annotation alone written in advance is not handled",
			hr:   set("", v, "", ""), pending: true, progress: status.ProgressDone,
		},
		{
			name: "the token just passed on is handled and in progress",
			hr:   set(token, v, "", ""), handledBy: status.AnnotationHandledRequest, progress: status.ProgressInProgress,
		},
		{
			name: "the token helm-controller picked up is handled and done",
			hr:   set(token, v, "", token), handledBy: status.AnnotationHandledRequest, pickedUp: true, progress: status.ProgressDone,
			notInReport: "has not",
		},
		{
			name: "the token helm-controller saw counts after requestedAt changed",
			hr:   set("later", "", "", token), handledBy: "lastHandledReconcileAt", pickedUp: true, progress: status.ProgressDone,
		},
		{
			name: "the token in requestedAt alone is handled",
			hr:   set(token, "", "", ""), handledBy: status.AnnotationReconcileRequestedAt, progress: status.ProgressInProgress,
		},
		{
			name: "sylva-units-operator's annotation, which the controller may not write, still counts",
			hr:   set("", "", v, ""), handledBy: "sylva-units-operator", progress: status.ProgressInProgress,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obs := boundObservation(uid, rv, tt.hr)
			r, err := status.RequestOf(obs)
			if err != nil {
				t.Fatal(err)
			}
			if (tt.handledBy == "") != (r.HandledBy == "") || !strings.Contains(r.HandledBy, tt.handledBy) || r.PickedUp != tt.pickedUp {
				t.Errorf("RequestOf() handled by %q, picked up %v; want %q, %v", r.HandledBy, r.PickedUp, tt.handledBy, tt.pickedUp)
			}
			rep := status.Interpret(obs)
			if rep.PassPending != tt.pending || rep.Progress != tt.progress {
				t.Errorf("Interpret: pass pending %v, progress %s; want %v, %s (%q)", rep.PassPending, rep.Progress, tt.pending, tt.progress, rep.Summary)
			}
			if rd := status.Assess(obs); rd.Progress != rep.Progress || rd.MayStart() != rep.CanStartNow {
				t.Errorf("Assess = %s, may start %v; Interpret = %s, can start %v", rd.Progress, rd.MayStart(), rep.Progress, rep.CanStartNow)
			}
			if rep.InProgress && !strings.Contains(strings.Join(rep.Summary, " "), "as \""+token+"\", which has not picked it up yet") {
				t.Errorf("Interpret summary %q, want the in-progress reason to name the token passed on", rep.Summary)
			}
			if s := strings.Join(rep.Summary, " "); tt.notInReport != "" && strings.Contains(s, tt.notInReport) {
				t.Errorf("Interpret summary %q says %q", s, tt.notInReport)
			}
		})
	}
}

func TestDecodeReadsTheStatusWrite(t *testing.T) {
	tests := []struct {
		name, metadata string
		uid, rv        string
	}{
		{"kubectl prints the uid and resourceVersion", "  uid: 5d1c0b9e-uid\n  resourceVersion: \"4711\"\n", "5d1c0b9e-uid", "4711"},
		{"a file without them has an unknown write", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := status.Decode([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sylva-units-status\n" + tt.metadata + "data:\n  sylva_release: \"1.6\"\n"))
			if err != nil {
				t.Fatal(err)
			}
			if s.UID != tt.uid || s.ResourceVersion != tt.rv {
				t.Errorf("Decode: uid %q, resourceVersion %q; want %q, %q", s.UID, s.ResourceVersion, tt.uid, tt.rv)
			}
		})
	}
	live, err := status.FromConfigMap(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Name: status.ConfigMapName, Namespace: "sylva-system", UID: "5d1c0b9e-uid", ResourceVersion: "4711",
	}})
	if err != nil || live.UID != "5d1c0b9e-uid" || live.ResourceVersion != "4711" {
		t.Errorf("FromConfigMap: %+v, %v; want uid 5d1c0b9e-uid, resourceVersion 4711", live, err)
	}
	if _, err := status.Decode([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sylva-units-status\n  resourceVersion: 4711\n")); err == nil || !strings.Contains(err.Error(), "metadata.resourceVersion") {
		t.Errorf("Decode of a numeric resourceVersion: %v, want an error naming metadata.resourceVersion", err)
	}
}
