package reconciler

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

// genObservation builds an Observation from the choices next returns: the
// status ConfigMap present or not, with or without a pass asked for; the
// Kustomization and HelmRelease each suspended or not, Ready True, False,
// Unknown or absent, for the current or an older generation, reconciling,
// stalled; target annotations equal to the status or not; request and
// tracking annotations equal to the request value, to the token bound to
// the status write (a status read from an API server) or neither.
func genObservation(next func(n int) int) status.Observation {
	pick := func(vals ...string) string { return vals[next(len(vals))] }
	flag := func() bool { return next(2) == 1 }
	obs := status.Observation{Namespace: "sylva-system", FluxRead: true}
	if next(5) > 0 {
		cm := &status.Status{
			Name:            status.ConfigMapName,
			ReleaseRevision: pick("", "4", "5"),
			ChartVersion:    pick("", "1.6.0", "1.6.1"),
			ValuesChecksum:  pick("", "aaa", "bbb"),
		}
		if flag() {
			cm.SylvaRelease = semver.MustParse(pick("1.5", "1.6"))
		}
		if next(3) > 0 {
			b := flag()
			cm.AdditionalReconciliationRequired = &b
		}
		if flag() {
			// Read from an API server: a derived request is bound to
			// this write (an empty resourceVersion is unknown).
			cm.UID, cm.ResourceVersion = "cm-uid", pick("", "41", "42")
		}
		obs.ConfigMap = cm
	}
	cond := func(gen int64) *status.Condition {
		switch next(5) {
		case 0:
			return nil
		case 1:
			return &status.Condition{Status: "False", Reason: "Failed"}
		case 2:
			return &status.Condition{Status: "Unknown", Reason: "Progressing"}
		case 3:
			return &status.Condition{Status: "True", ObservedGeneration: gen - int64(next(2))}
		}
		return &status.Condition{Status: "True"}
	}
	flagCond := func() *status.Condition {
		switch next(3) {
		case 0:
			return nil
		case 1:
			return &status.Condition{Status: "False"}
		}
		return &status.Condition{Status: "True", Reason: "X"}
	}
	object := func(kind, name string) *status.FluxObject {
		gen := int64(3 + next(2))
		if flag() {
			// Healthy: Ready at its generation, nothing else set.
			return &status.FluxObject{
				Kind: kind, Name: name, Namespace: obs.Namespace, Generation: gen, ObservedGeneration: gen,
				Ready: &status.Condition{Status: "True", ObservedGeneration: gen}, Annotations: map[string]string{},
			}
		}
		return &status.FluxObject{
			Kind: kind, Name: name, Namespace: obs.Namespace,
			Generation: gen, ObservedGeneration: gen - int64(next(2)),
			Suspended: next(4) == 0,
			Ready:     cond(gen), Reconciling: flagCond(), Stalled: flagCond(),
			Annotations: map[string]string{},
		}
	}
	if next(8) > 0 {
		ks := object("Kustomization", status.KustomizationName)
		cm := obs.ConfigMap
		if cm == nil {
			cm = &status.Status{}
		}
		for _, t := range []struct{ annotation, same string }{
			{status.AnnotationTargetReleaseRevision, cm.ReleaseRevision},
			{status.AnnotationTargetChartVersion, cm.ChartVersion},
			{status.AnnotationTargetValuesChecksum, cm.ValuesChecksum},
		} {
			v := pick("", "4", "5", "1.6.0", "1.6.1", "aaa", "bbb")
			if flag() {
				v = t.same // the release the status describes
			}
			if v != "" {
				ks.Annotations[t.annotation] = v
			}
		}
		if v := pick("", "", "req-1", "req-2"); v != "" {
			ks.Annotations[status.AnnotationReconciliationRequested] = v
		}
		obs.Kustomization = ks
	}
	if next(8) > 0 {
		hr := object("HelmRelease", status.DefaultHelmRelease)
		// The request value the observation asks for, if any, and the
		// token passed on for it, so that the tracking annotations
		// sometimes match either.
		req, _ := status.RequestOf(obs)
		value := func() string { return pick("", "other", req.Value, req.Token) }
		for _, a := range []string{AnnotationHandledRequest, AnnotationOperatorHandled, AnnotationRequestedAt} {
			if next(3) == 0 {
				if v := value(); v != "" {
					hr.Annotations[a] = v
				}
			}
		}
		hr.LastHandledReconcileAt = value()
		obs.HelmRelease = hr
	}
	return obs
}

// checkAgreement fails when Decide (reconcile, the controller) and
// status.Interpret (the status command) disagree on obs.
func checkAgreement(t *testing.T, obs status.Observation) {
	t.Helper()
	d := Decide(Input{Observation: obs})
	rep := status.Interpret(obs)
	fail := func(what string) {
		t.Helper()
		t.Fatalf("%s\ndecision: %s\nstatus: canStartNow=%v passPending=%v inProgress=%v reasons=%q\nobservation: cm=%+v\nks=%+v\nhr=%+v",
			what, d, rep.CanStartNow, rep.PassPending, rep.InProgress, rep.Reasons, obs.ConfigMap, obs.Kustomization, obs.HelmRelease)
	}
	switch d.Outcome {
	case ConclusionTrigger:
		if !rep.CanStartNow || rep.InProgress || !rep.PassPending {
			fail("reconcile triggers but status says the pass cannot start, a release is in progress, or nothing is pending")
		}
		if req, _ := status.RequestOf(obs); d.Request != req.Token {
			fail("reconcile passes on " + d.Request + ", not the token the readiness rule reads, " + req.Token)
		}
	case ConclusionWaiting:
		if rep.CanStartNow {
			fail("reconcile waits but status says a pass can start now")
		}
		if !strings.HasPrefix(d.Reason, strings.Join(rep.Reasons, "; ")) {
			fail("reconcile and status give different reasons")
		}
	case ConclusionSuspended:
		if rep.CanStartNow {
			fail("reconcile says suspended but status says a pass can start now")
		}
	case ConclusionNothingRequested, ConclusionAlreadyHandled:
		if rep.PassPending {
			fail("status says a pass is pending but reconcile has nothing to pass on")
		}
	case ConclusionMissing:
		if rep.CanStartNow {
			fail("an object is missing but status says a pass can start now")
		}
	case ConclusionInvalid:
		if !slices.ContainsFunc(rep.Findings, func(f status.Finding) bool { return f.Code == status.CodeRequestInvalid }) {
			fail("reconcile refuses an invalid request but status has no " + status.CodeRequestInvalid + " finding")
		}
	case ConclusionWouldTrigger:
		fail("Decide returned " + string(ConclusionWouldTrigger) + ", which only a dry run reports")
	case ConclusionFailed:
		if rep.PassFailed == "" {
			fail("reconcile says the requested pass failed but status does not")
		}
	case ConclusionNotFromChart:
		if !slices.ContainsFunc(rep.Findings, func(f status.Finding) bool { return f.Code == status.CodeRequestNotFromChart }) {
			fail("reconcile says the request is not the chart's but status has no " + status.CodeRequestNotFromChart + " finding")
		}
	}
	if d.Outcome == ConclusionMissing || d.Outcome == ConclusionInvalid {
		// Reconcile stops before passing anything on; status still says
		// what is asked for, and that it cannot start or is invalid.
		return
	}
	if rep.CanStartNow && rep.PassPending && d.Outcome != ConclusionTrigger {
		fail("status says the pending pass can start now but reconcile does not trigger")
	}
	if rep.PassPending && !d.Pending() {
		fail("status says a pass is pending but reconcile does not")
	}
	if d.Pending() && !rep.PassPending && !rep.InProgress {
		fail("reconcile has a pending pass but status says none is pending and no release is in progress")
	}
}

// TestStatusAndReconcileAgree draws observations from a fixed seed and
// checks that the status command and reconcile answer alike: the same
// readiness rule (status.Assess) decides both.
func TestStatusAndReconcileAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	outcomes := map[Conclusion]int{}
	for range 20000 {
		obs := genObservation(func(n int) int { return r.IntN(n) })
		checkAgreement(t, obs)
		outcomes[Decide(Input{Observation: obs}).Outcome]++
	}
	// The generator must reach every outcome, or the property proves little.
	for _, o := range []Conclusion{ConclusionTrigger, ConclusionNothingRequested, ConclusionAlreadyHandled, ConclusionWaiting, ConclusionSuspended, ConclusionMissing, ConclusionInvalid} {
		if outcomes[o] == 0 {
			t.Errorf("no generated observation gave outcome %s (got %v)", o, outcomes)
		}
	}
}

// FuzzStatusAndReconcileAgree is TestStatusAndReconcileAgree driven by the
// fuzzer's bytes (go test -fuzz FuzzStatusAndReconcileAgree ./reconciler).
func FuzzStatusAndReconcileAgree(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	f.Add([]byte("the Kustomization is Ready only for an older generation"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var i int
		next := func(n int) int {
			if i+2 > len(data) {
				i++
				return (i * 7) % n
			}
			v := binary.LittleEndian.Uint16(data[i:])
			i += 2
			return int(v) % n
		}
		checkAgreement(t, genObservation(next))
	})
}

// TestStatusAndReconcileAgreeOnABoundToken: a request derived from a
// status read from an API server is passed on as a token bound to the
// ConfigMap's write; status and reconcile read the HelmRelease through the
// same token.
func TestStatusAndReconcileAgreeOnABoundToken(t *testing.T) {
	written := writtenAt("5d1c0b9e-uid", "4711")
	v, _, err := RequestValue(observation(written).Observation)
	if err != nil {
		t.Fatal(err)
	}
	token := Decide(observation(written)).Request
	if token == v {
		t.Fatalf("Decide().Request = %q, want a token other than the value", token)
	}
	lastHandled := func(s string) obsOption {
		return func(in *Input) { in.Observation.HelmRelease.LastHandledReconcileAt = s }
	}
	tests := []struct {
		name       string
		in         Input
		want       Conclusion
		pending    bool
		inProgress bool
	}{
		{
			name: "just triggered: handled, and in progress until helm-controller picks the token up",
			in:   observation(written, hrAnnotation(AnnotationRequestedAt, token), hrAnnotation(AnnotationForceAt, token), hrAnnotation(AnnotationHandledRequest, v)),
			want: ConclusionAlreadyHandled, inProgress: true,
		},
		{
			name: "helm-controller handled the token: handled and done",
			in: observation(written, hrAnnotation(AnnotationRequestedAt, token), hrAnnotation(AnnotationForceAt, token), hrAnnotation(AnnotationHandledRequest, v),
				lastHandled(token)),
			want: ConclusionAlreadyHandled,
		},
		{
			name: "the value written in advance is not handled: pending, and it can start",
			in: observation(written, hrAnnotation(AnnotationRequestedAt, v), hrAnnotation(AnnotationForceAt, v), hrAnnotation(AnnotationHandledRequest, v),
				lastHandled(v)),
			want: ConclusionTrigger, pending: true,
		},
		{
			name: "the tracking annotation alone written in advance is not handled",
			in:   observation(written, hrAnnotation(AnnotationHandledRequest, v)),
			want: ConclusionTrigger, pending: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkAgreement(t, tt.in.Observation)
			d := Decide(tt.in)
			rep := status.Interpret(tt.in.Observation)
			if d.Outcome != tt.want || d.Request != token {
				t.Errorf("Decide() = %s (request %q), want outcome %s with %q", d, d.Request, tt.want, token)
			}
			if rep.PassPending != tt.pending || rep.InProgress != tt.inProgress {
				t.Errorf("Interpret: pass pending %v, in progress %v; want %v, %v (%q)", rep.PassPending, rep.InProgress, tt.pending, tt.inProgress, rep.Summary)
			}
			summary := strings.Join(rep.Summary, " ")
			if strings.Contains(summary, "has not handled") {
				t.Errorf("Interpret summary %q says helm-controller has not handled the request", summary)
			}
			if tt.inProgress && !strings.Contains(summary, "has not picked it up yet") {
				t.Errorf("Interpret summary %q, want the pass in progress, not picked up yet", summary)
			}
			if tt.want == ConclusionAlreadyHandled && !strings.Contains(d.Reason, AnnotationHandledRequest) {
				t.Errorf("Decide().Reason = %q, want the pass passed on by the planner's annotation", d.Reason)
			}
		})
	}
}
