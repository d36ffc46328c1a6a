package reconciler

import (
	"strings"
	"testing"

	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

// obsOption changes a ready, idle observation: a status ConfigMap that asks
// for a pass, a Ready Kustomization and a Ready HelmRelease.
type obsOption func(*Input)

func observation(opts ...obsOption) Input {
	yes := true
	in := Input{Observation: status.Observation{
		Namespace: "sylva-system",
		FluxRead:  true,
		ConfigMap: &status.Status{
			Name: status.ConfigMapName, Namespace: "sylva-system",
			SylvaRelease:                     semver.MustParse("1.5"),
			AdditionalReconciliationRequired: &yes,
			ReleaseRevision:                  "7",
			ValuesChecksum:                   "abc123",
		},
		Kustomization: &status.FluxObject{
			Kind: "Kustomization", Name: status.KustomizationName, Namespace: "sylva-system",
			Generation: 3, ObservedGeneration: 3,
			Ready: &status.Condition{Status: "True", Reason: "ReconciliationSucceeded", ObservedGeneration: 3},
			Annotations: map[string]string{
				status.AnnotationTargetReleaseRevision: "7",
				status.AnnotationTargetValuesChecksum:  "abc123",
			},
		},
		HelmRelease: &status.FluxObject{
			Kind: "HelmRelease", Name: status.DefaultHelmRelease, Namespace: "sylva-system",
			Generation: 5, ObservedGeneration: 5,
			Ready:                  &status.Condition{Status: "True", Reason: "UpgradeSucceeded", ObservedGeneration: 5},
			LastHandledReconcileAt: "2026-01-01T00:00:00Z",
			Annotations:            map[string]string{},
		},
	}}
	for _, o := range opts {
		o(&in)
	}
	return in
}

func requestAnnotation(v string) obsOption {
	return func(in *Input) {
		in.Observation.Kustomization.Annotations[status.AnnotationReconciliationRequested] = v
	}
}

func hrAnnotation(k, v string) obsOption {
	return func(in *Input) { in.Observation.HelmRelease.Annotations[k] = v }
}

func noPassRequired(in *Input) {
	no := false
	in.Observation.ConfigMap.AdditionalReconciliationRequired = &no
}

func TestDecide(t *testing.T) {
	derived, _, err := RequestValue(observation().Observation)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		in      Input
		want    Conclusion
		request string
		reason  string // a part of the reason
	}{
		{
			name: "a pass required by the status triggers with a derived value",
			in:   observation(), want: ConclusionTrigger, request: derived,
		},
		{
			name: "the kustomization annotation wins over the derived value",
			in:   observation(requestAnnotation("req-2")), want: ConclusionTrigger, request: "req-2",
		},
		{
			name: "the kustomization annotation alone requests a pass",
			in:   observation(noPassRequired, requestAnnotation("req-2")), want: ConclusionTrigger, request: "req-2",
		},
		{
			name: "no request when the status says false and no annotation",
			in:   observation(noPassRequired), want: ConclusionNothingRequested,
		},
		{
			name: "no request on a fresh install without status",
			in:   observation(func(in *Input) { in.Observation.ConfigMap = nil }), want: ConclusionNothingRequested, reason: "no status ConfigMap",
		},
		{
			name: "a blank annotation is no request",
			in:   observation(noPassRequired, requestAnnotation("  ")), want: ConclusionNothingRequested,
		},
		{
			name: "a value the planner passed on is already handled",
			in:   observation(requestAnnotation("req-2"), hrAnnotation(AnnotationHandledRequest, "req-2")), want: ConclusionAlreadyHandled, request: "req-2", reason: AnnotationHandledRequest,
		},
		{
			name: "a value sylva-units-operator passed on is already handled",
			in:   observation(requestAnnotation("req-2"), hrAnnotation(AnnotationOperatorHandled, "req-2")), want: ConclusionAlreadyHandled, request: "req-2", reason: "sylva-units-operator",
		},
		{
			name: "a value already in requestedAt is already handled",
			in:   observation(requestAnnotation("req-2"), hrAnnotation(AnnotationRequestedAt, "req-2")), want: ConclusionAlreadyHandled, reason: AnnotationRequestedAt,
		},
		{
			name: "a value helm-controller already saw is already handled",
			in: observation(requestAnnotation("req-2"), func(in *Input) {
				in.Observation.HelmRelease.LastHandledReconcileAt = "req-2"
			}),
			want: ConclusionAlreadyHandled, reason: "lastHandledReconcileAt",
		},
		{
			name: "an older handled value does not hide a new request",
			in:   observation(requestAnnotation("req-3"), hrAnnotation(AnnotationHandledRequest, "req-2"), hrAnnotation(AnnotationRequestedAt, "req-2")), want: ConclusionTrigger, request: "req-3",
		},
		{
			name: "a suspended helmrelease is not triggered",
			in:   observation(func(in *Input) { in.Observation.HelmRelease.Suspended = true }), want: ConclusionSuspended, request: derived, reason: "flux resume hr",
		},
		{
			name: "a suspended helmrelease with a stale ready is not triggered",
			in: observation(func(in *Input) {
				hr := in.Observation.HelmRelease
				hr.Suspended, hr.Generation = true, 6
			}),
			want: ConclusionSuspended,
		},
		{
			name: "a kustomization that is not ready makes the pass wait",
			in: observation(func(in *Input) {
				in.Observation.Kustomization.Ready = &status.Condition{Status: "False", Reason: "DependencyNotReady"}
			}),
			want: ConclusionWaiting, request: derived, reason: "Kustomization sylva-units-status is not Ready (DependencyNotReady)",
		},
		{
			name: "a kustomization ready at an older generation makes the pass wait",
			in:   observation(func(in *Input) { in.Observation.Kustomization.Generation = 4 }), want: ConclusionWaiting, reason: "current generation 4",
		},
		{
			name: "a helmrelease that is not ready makes the pass wait",
			in: observation(func(in *Input) {
				in.Observation.HelmRelease.Ready = &status.Condition{Status: "False", Reason: "UpgradeFailed", Message: "timeout"}
			}),
			want: ConclusionWaiting, reason: "HelmRelease sylva-units is not Ready (UpgradeFailed: timeout)",
		},
		{
			name: "a helmrelease without conditions makes the pass wait",
			in:   observation(func(in *Input) { in.Observation.HelmRelease.Ready = nil }), want: ConclusionWaiting, reason: "no Ready condition",
		},
		{
			name: "a helmrelease ready at an older generation makes the pass wait",
			in: observation(func(in *Input) {
				in.Observation.HelmRelease.Generation = 6
			}),
			want: ConclusionWaiting, reason: "current generation 6",
		},
		{
			name: "a ready condition computed for an older generation makes the pass wait",
			in: observation(func(in *Input) {
				in.Observation.HelmRelease.Ready.ObservedGeneration = 4
			}),
			want: ConclusionWaiting, reason: "Ready=True is for generation 4",
		},
		{
			name: "a reconciling helmrelease makes the pass wait",
			in: observation(func(in *Input) {
				in.Observation.HelmRelease.Reconciling = &status.Condition{Status: "True", Reason: "Progressing"}
			}),
			want: ConclusionWaiting, reason: "reconciling (Progressing)",
		},
		{
			name: "a stalled helmrelease makes the pass wait",
			in: observation(func(in *Input) {
				in.Observation.HelmRelease.Stalled = &status.Condition{Status: "True", Reason: "RetriesExceeded"}
			}),
			want: ConclusionWaiting, reason: "stalled (RetriesExceeded)",
		},
		{
			name: "a release still being applied makes the pass wait",
			in: observation(func(in *Input) {
				in.Observation.Kustomization.Annotations[status.AnnotationTargetReleaseRevision] = "8"
			}),
			want: ConclusionWaiting, reason: "a release is being applied",
		},
		{
			name: "a missing helmrelease is reported",
			in:   observation(func(in *Input) { in.Observation.HelmRelease = nil }), want: ConclusionMissing, reason: "HelmRelease sylva-units was not found in namespace sylva-system",
		},
		{
			name: "a missing kustomization is reported",
			in:   observation(func(in *Input) { in.Observation.Kustomization = nil }), want: ConclusionMissing, reason: "Kustomization sylva-units-status was not found",
		},
		{
			name: "a malformed status is reported and never triggered",
			in:   observation(func(in *Input) { in.Invalid = `data key "sylva_release": value "x": bad` }), want: ConclusionInvalid, reason: "sylva_release",
		},
		{
			name: "a status asking for a pass without revision nor checksum is invalid",
			in: observation(func(in *Input) {
				in.Observation.ConfigMap.ReleaseRevision, in.Observation.ConfigMap.ValuesChecksum = "", ""
			}),
			want: ConclusionInvalid, reason: "neither release-revision nor values-checksum",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Decide(tt.in)
			if got.Outcome != tt.want {
				t.Fatalf("Decide() = %s, want outcome %s", got, tt.want)
			}
			if tt.request != "" && got.Request != tt.request {
				t.Errorf("Decide().Request = %q, want %q", got.Request, tt.request)
			}
			if !strings.Contains(got.Reason, tt.reason) {
				t.Errorf("Decide().Reason = %q, want it to contain %q", got.Reason, tt.reason)
			}
			if again := Decide(tt.in); again != got {
				t.Errorf("Decide() is not deterministic: %+v then %+v", got, again)
			}
			if got.Trigger() != (tt.want == ConclusionTrigger) {
				t.Errorf("Decide().Trigger() = %v for outcome %s", got.Trigger(), got.Outcome)
			}
		})
	}
}

func TestRequestValue(t *testing.T) {
	tests := []struct {
		name   string
		change func(*status.Status)
		same   bool
	}{
		{name: "the same status yields the same value", change: func(*status.Status) {}, same: true},
		{name: "a new release revision yields a new value", change: func(s *status.Status) { s.ReleaseRevision = "8" }},
		{name: "new values yield a new value", change: func(s *status.Status) { s.ValuesChecksum = "def456" }},
		{name: "a new sylva release yields a new value", change: func(s *status.Status) { s.SylvaRelease = semver.MustParse("1.6") }},
		{name: "unrelated keys do not change the value", change: func(s *status.Status) { s.ReleaseTime = "later" }, same: true},
	}
	base, src, err := RequestValue(observation().Observation)
	if err != nil || src != SourceStatus || !strings.HasPrefix(base, DerivedRequestPrefix) || len(base) != len(DerivedRequestPrefix)+16 {
		t.Fatalf("RequestValue() = %q, %q, %v; want a derived value", base, src, err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := observation()
			tt.change(in.Observation.ConfigMap)
			got, _, err := RequestValue(in.Observation)
			if err != nil {
				t.Fatal(err)
			}
			if (got == base) != tt.same {
				t.Errorf("RequestValue() = %q, base %q, want same = %v", got, base, tt.same)
			}
		})
	}
}

// writtenAt sets the UID and resourceVersion of the status ConfigMap, as
// read from an API server.
func writtenAt(uid, resourceVersion string) obsOption {
	return func(in *Input) {
		in.Observation.ConfigMap.UID, in.Observation.ConfigMap.ResourceVersion = uid, resourceVersion
	}
}

// TestDecideBindsADerivedRequestToTheStatusWrite: a request derived from
// the status, read from an API server, is passed on as a token bound to the
// ConfigMap's write (status.RequestOf), which nobody could write on the
// HelmRelease before the status asked for the pass; the tracking
// annotation keeps the request value.
func TestDecideBindsADerivedRequestToTheStatusWrite(t *testing.T) {
	v, _, err := RequestValue(observation().Observation)
	if err != nil {
		t.Fatal(err)
	}
	written := writtenAt("5d1c0b9e-uid", "4711")
	token := Decide(observation(written)).Request
	if token == v || !strings.HasPrefix(token, DerivedRequestPrefix) || len(token) != len(v) {
		t.Fatalf("Decide().Request = %q for derived value %q, want another value of the same form", token, v)
	}
	if got, _, _ := RequestValue(observation(written).Observation); got != v {
		t.Errorf("RequestValue() of the written status = %q, want the unbound value %q", got, v)
	}
	if other := Decide(observation(writtenAt("5d1c0b9e-uid", "4712"))).Request; other != token {
		t.Errorf("a write of the ConfigMap's metadata alone (resourceVersion 4712) gives a new token %q, want %q", other, token)
	}
	rewritten := func(in *Input) { in.Observation.ConfigMap.ReleaseTime = "2026-01-02 03:04:05.6 +0000 UTC" }
	if other := Decide(observation(writtenAt("5d1c0b9e-uid", "4712"), rewritten)).Request; other == token {
		t.Errorf("a new write of the status data gives the same token %q", token)
	}
	if got := Decide(observation(writtenAt("", "4711"))).Request; got != v {
		t.Errorf("Decide().Request = %q for a status whose UID is unknown, want the value %q", got, v)
	}
	foreign := func(in *Input) {
		in.Observation.ConfigMap.DataWriters = map[string][]string{status.KeyAdditionalReconciliationRequired: {"kubectl-edit"}}
	}
	if d := Decide(observation(written, foreign)); d.Outcome != ConclusionNotFromChart || d.Trigger() || !strings.Contains(d.Reason, "kubectl-edit") {
		t.Errorf("Decide() of a status whose request kubectl-edit wrote = %s, want %s naming the writer", d, ConclusionNotFromChart)
	}
	tests := []struct {
		name    string
		in      Input
		want    Conclusion
		request string
		reason  string
	}{
		{
			name: "the derived value written in advance in every annotation does not hide the pass",
			in: observation(written, hrAnnotation(AnnotationRequestedAt, v), hrAnnotation(AnnotationForceAt, v), hrAnnotation(AnnotationHandledRequest, v),
				func(in *Input) { in.Observation.HelmRelease.LastHandledReconcileAt = v }),
			want: ConclusionTrigger, request: token,
		},
		{
			name: "the tracking annotation alone written in advance does not make the pass wait",
			in:   observation(written, hrAnnotation(AnnotationHandledRequest, v)), want: ConclusionTrigger, request: token,
		},
		{
			name: "the token passed on after the status write is handled",
			in:   observation(written, hrAnnotation(AnnotationRequestedAt, token), hrAnnotation(AnnotationForceAt, token), hrAnnotation(AnnotationHandledRequest, v)),
			want: ConclusionAlreadyHandled, request: token, reason: AnnotationHandledRequest,
		},
		{
			name: "the token helm-controller saw is handled",
			in: observation(written, hrAnnotation(AnnotationRequestedAt, "later"), func(in *Input) {
				in.Observation.HelmRelease.LastHandledReconcileAt = token
			}),
			want: ConclusionAlreadyHandled, request: token, reason: "lastHandledReconcileAt",
		},
		{
			name: "sylva-units-operator's annotation, which the controller may not write, still counts",
			in:   observation(written, hrAnnotation(AnnotationOperatorHandled, v)), want: ConclusionAlreadyHandled, reason: "sylva-units-operator",
		},
		{
			name: "a request from the kustomization annotation is passed on as it is",
			in:   observation(written, requestAnnotation("req-2")), want: ConclusionTrigger, request: "req-2",
		},
		{
			name: "a value the operator copied from the kustomization annotation is still handled",
			in:   observation(written, requestAnnotation("req-2"), hrAnnotation(AnnotationRequestedAt, "req-2")), want: ConclusionAlreadyHandled, reason: AnnotationRequestedAt,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Decide(tt.in)
			if got.Outcome != tt.want {
				t.Fatalf("Decide() = %s, want outcome %s", got, tt.want)
			}
			if tt.request != "" && got.Request != tt.request {
				t.Errorf("Decide().Request = %q, want %q", got.Request, tt.request)
			}
			if !strings.Contains(got.Reason, tt.reason) {
				t.Errorf("Decide().Reason = %q, want it to contain %q", got.Reason, tt.reason)
			}
		})
	}
}
