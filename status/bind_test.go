package status_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"gitlab.com/sylva-projects/sylva-planner/semver"
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
			SylvaRelease: semver.MustParse("1.6"), AdditionalReconciliationRequired: &yes,
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
	for _, w := range []struct {
		name   string
		obs    status.Observation
		change bool
	}{
		{"a write of the metadata alone (label, annotation: a new resourceVersion)", boundObservation("5d1c0b9e-uid", "4712", nil), false},
		{"a new write of the status data", func() status.Observation {
			o := boundObservation("5d1c0b9e-uid", "4712", nil)
			o.ConfigMap.ReleaseTime = "2026-01-01 10:00:00.1 +0000 UTC"
			return o
		}(), true},
		{"a ConfigMap created anew", boundObservation("77aa0000-uid", "4711", nil), true},
	} {
		r, _ := status.RequestOf(w.obs)
		if got := r.Token != bound.Token; got != w.change {
			t.Errorf("%s: token changed = %v, want %v", w.name, got, w.change)
		}
	}
	if r, _ := status.RequestOf(boundObservation("", "4711", nil)); r.Token != r.Value {
		t.Errorf("RequestOf().Token = %q without the ConfigMap's UID, want the value %q (the write is unknown)", r.Token, r.Value)
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
		progress    status.Phase
		notInReport string
	}{
		{
			name: "nothing on the HelmRelease: the pass is pending",
			hr:   nil, pending: true, progress: status.PhaseDone,
		},
		{
			name: "the value written in advance everywhere is not handled",
			hr:   set(v, v, "", v), pending: true, progress: status.PhaseDone,
		},
		{
			name: "the tracking annotation alone written in advance is not handled",
			hr:   set("", v, "", ""), pending: true, progress: status.PhaseDone,
		},
		{
			name: "the token just passed on is handled and in progress",
			hr:   set(token, v, "", ""), handledBy: status.AnnotationHandledRequest, progress: status.PhaseInProgress,
		},
		{
			name: "the token helm-controller picked up is handled and done",
			hr:   set(token, v, "", token), handledBy: status.AnnotationHandledRequest, pickedUp: true, progress: status.PhaseDone,
			notInReport: "has not",
		},
		{
			name: "the token helm-controller saw counts after requestedAt changed",
			hr:   set("later", "", "", token), handledBy: "lastHandledReconcileAt", pickedUp: true, progress: status.PhaseDone,
		},
		{
			name: "the token in requestedAt alone is handled",
			hr:   set(token, "", "", ""), handledBy: status.AnnotationReconcileRequestedAt, progress: status.PhaseInProgress,
		},
		{
			name: "sylva-units-operator's annotation, which the controller may not write, still counts",
			hr:   set("", "", v, ""), handledBy: "sylva-units-operator", progress: status.PhaseInProgress,
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

func TestAStatusNotWrittenByTheChartRequestsNoPass(t *testing.T) {
	for _, c := range []struct {
		name    string
		writers map[string][]string
		foreign string
	}{
		{"managedFields unknown (a file printed without them)", nil, ""},
		{"every key written by the chart", map[string][]string{
			"sylva_release": {status.ChartWriter}, "additional_reconciliation_required": {status.ChartWriter},
			"release-revision": {status.ChartWriter}, "values-checksum": {status.ChartWriter},
		}, ""},
		{"the request written by kubectl", map[string][]string{
			"sylva_release": {status.ChartWriter}, "additional_reconciliation_required": {"kubectl-patch"},
			"release-revision": {status.ChartWriter}, "values-checksum": {status.ChartWriter},
		}, "additional_reconciliation_required (kubectl-patch)"},
		{"a key no field manager owns", map[string][]string{
			"sylva_release": {status.ChartWriter}, "additional_reconciliation_required": {status.ChartWriter},
			"values-checksum": {status.ChartWriter},
		}, "release-revision (no field manager)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			obs := boundObservation("5d1c0b9e-uid", "4711", nil)
			obs.ConfigMap.DataWriters = c.writers
			r, err := status.RequestOf(obs)
			if err != nil {
				t.Fatal(err)
			}
			if r.Foreign != c.foreign {
				t.Errorf("RequestOf().Foreign = %q, want %q", r.Foreign, c.foreign)
			}
			if (r.Value == "") != (c.foreign != "") {
				t.Errorf("RequestOf().Value = %q; want a request only from the chart's write", r.Value)
			}
			rep := status.Interpret(obs)
			hasFinding := slices.ContainsFunc(rep.Findings, func(f status.Finding) bool { return f.Code == status.CodeRequestNotFromChart })
			if hasFinding != (c.foreign != "") || (rep.PassPending && c.foreign != "") {
				t.Errorf("Interpret(): finding %s = %v, passPending %v; want the finding and no pass pending only for a foreign write", status.CodeRequestNotFromChart, hasFinding, rep.PassPending)
			}
		})
	}
}

func TestDecodeReadsTheWritersOfTheDataFromManagedFields(t *testing.T) {
	doc := `apiVersion: v1
kind: ConfigMap
metadata:
  name: sylva-units-status
  uid: u-1
  managedFields:
  - manager: kustomize-controller
    operation: Apply
    fieldsType: FieldsV1
    fieldsV1: {"f:data": {"f:release-revision": {}, "f:additional_reconciliation_required": {}}}
  - manager: kubectl-label
    operation: Update
    fieldsType: FieldsV1
    fieldsV1: {"f:metadata": {"f:labels": {"f:touched": {}}}}
  - manager: kubectl-edit
    operation: Update
    fieldsType: FieldsV1
    fieldsV1: {"f:data": {"f:additional_reconciliation_required": {}}}
data:
  release-revision: "4"
  additional_reconciliation_required: "true"
`
	s, err := status.Decode([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"release-revision": {"kustomize-controller"}, "additional_reconciliation_required": {"kubectl-edit", "kustomize-controller"}}
	if diff := cmp.Diff(want, s.DataWriters); diff != "" {
		t.Errorf("Decode().DataWriters (-want +got):\n%s", diff)
	}
	if f := s.ForeignWrite(); f != "" {
		t.Errorf("ForeignWrite() = %q for keys the chart co-owns, want none", f)
	}
}

func TestAFailedPassIsSaidToHaveFailed(t *testing.T) {
	token := func() string {
		r, _ := status.RequestOf(boundObservation("5d1c0b9e-uid", "4711", nil))
		return r.Token
	}()
	failed := func(hr *status.FluxObject) {
		hr.Annotations[status.AnnotationReconcileRequestedAt] = token
		hr.LastHandledReconcileAt = token
		hr.Ready = &status.Condition{Status: "False", Reason: "UpgradeFailed", Message: "Helm upgrade failed: boom", ObservedGeneration: hr.Generation}
	}
	obs := boundObservation("5d1c0b9e-uid", "4711", failed)
	r, err := status.RequestOf(obs)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Handled() || !strings.Contains(r.Failed, "UpgradeFailed: Helm upgrade failed: boom") {
		t.Fatalf("RequestOf() = %+v, want the request handled and failed with helm-controller's reason", r)
	}
	rd := status.Assess(obs)
	if rd.Progress != status.PhaseFailed || rd.MayStart() {
		t.Errorf("Assess() = %+v, want progress failed and no pass may start", rd)
	}
	rep := status.Interpret(obs)
	if rep.PassFailed == "" || rep.PassPending || rep.Progress != status.PhaseFailed {
		t.Errorf("Interpret(): passFailed %q, passPending %v, progress %s; want the failure said and nothing pending", rep.PassFailed, rep.PassPending, rep.Progress)
	}
	if got := strings.Join(rep.Summary, " "); strings.Contains(got, "No further pass is pending") {
		t.Errorf("Interpret().Summary = %q, want no claim that nothing is pending", got)
	}
	var b strings.Builder
	if err := rep.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "Next: the last release failed (") || !strings.Contains(b.String(), "flux reconcile helmrelease sylva-units -n sylva-system --force --reset") {
		t.Errorf("WriteTable() Next does not give the fix:\n%s", b.String())
	}
	tr := &status.Transition{Target: "1.6", Route: []string{"1.4", "1.6"}, PassesDone: 1, Passes: 2, PassKnown: true, Summary: "pass 1 of 2 done; next: pass 2"}
	rep.Place(tr)
	if !strings.HasPrefix(tr.Failed, "pass 2 of 2 failed: ") || !strings.Contains(tr.Line(), "pass 2 of 2 failed") {
		t.Errorf("Place(): transition %q, line %q; want pass 2 of 2 failed", tr.Failed, tr.Line())
	}

	// Still running, or retried by a new request: not failed.
	for name, change := range map[string]func(*status.FluxObject){
		"reconciling": func(hr *status.FluxObject) {
			failed(hr)
			hr.Reconciling = &status.Condition{Status: "True", Reason: "Progressing"}
		},
		"a dependency not ready yet": func(hr *status.FluxObject) {
			failed(hr)
			hr.Ready.Reason = "DependencyNotReady"
		},
		"ready": nil,
	} {
		if r, _ := status.RequestOf(boundObservation("5d1c0b9e-uid", "4711", change)); r.Failed != "" {
			t.Errorf("%s: RequestOf().Failed = %q, want none", name, r.Failed)
		}
	}
}

func TestASuspendedTransitionSaysToResume(t *testing.T) {
	token := func() string {
		r, _ := status.RequestOf(boundObservation("5d1c0b9e-uid", "4711", nil))
		return r.Token
	}()
	// helm-controller records a request it sees while suspended.
	obs := boundObservation("5d1c0b9e-uid", "4711", func(hr *status.FluxObject) {
		hr.Suspended = true
		hr.Annotations[status.AnnotationReconcileRequestedAt] = token
		hr.LastHandledReconcileAt = token
	})
	rep := status.Interpret(obs)
	var b strings.Builder
	if err := rep.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\nNext: resume HelmRelease sylva-units (flux resume hr sylva-units -n sylva-system), then: sylva-planner status\n") {
		t.Errorf("WriteTable() of a transition suspended after its pass was passed on, Next is not to resume:\n%s", b.String())
	}
	if !strings.Contains(strings.Join(rep.Summary, " "), "which is suspended: it runs once the HelmRelease is resumed") {
		t.Errorf("Interpret().Summary = %q, want the pass passed on said to wait for the resume", rep.Summary)
	}
	// Placed at the end of the plan, a suspended release is still not "none".
	rep.Place(&status.Transition{Target: "1.6", PassesDone: 1, Passes: 2, PassKnown: true, Summary: "pass 1 of 2 done"})
	b.Reset()
	_ = rep.WriteTable(&b)
	if strings.Contains(b.String(), "Next: none") || strings.Contains(b.String(), "Next: sylva-planner plan") {
		t.Errorf("WriteTable() --to of a suspended transition:\n%s", b.String())
	}
}
