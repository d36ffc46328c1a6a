package action_test

import (
	"context"
	"strings"
	"testing"

	"gitlab.com/sylva-projects/sylva-planner/action"
	"gitlab.com/sylva-projects/sylva-planner/reconciler"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

// pendingPass is a release namespace whose status asks for a pass, both
// Flux objects Ready.
const pendingPass = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: sylva-units-status, namespace: sylva-system}
  data:
    sylva_release: "1.7"
    additional_reconciliation_required: "true"
    transition_from: "1.5"
    transition_pass: "1"
    release-revision: "11"
    values-checksum: "sum11"
- apiVersion: kustomize.toolkit.fluxcd.io/v1
  kind: Kustomization
  metadata:
    name: sylva-units-status
    namespace: sylva-system
    generation: 1
    annotations: {target-release-revision: "11", target-values-checksum: "sum11"}
  status:
    observedGeneration: 1
    conditions: [{type: Ready, status: "True", reason: ReconciliationSucceeded, observedGeneration: 1}]
- apiVersion: helm.toolkit.fluxcd.io/v2
  kind: HelmRelease
  metadata: {name: sylva-units, namespace: sylva-system, generation: 4}
  status:
    observedGeneration: 4
    conditions: [{type: Ready, status: "True", reason: UpgradeSucceeded, observedGeneration: 4}]
`

func TestReconcileFromAFileDecidesADryRun(t *testing.T) {
	tests := []struct {
		name     string
		yaml     string
		document bool
		// want is the outcome reported, or, when wantErr is set, the
		// error's beginning.
		want    reconciler.Conclusion
		wantErr string
	}{
		{name: "a requested pass would be triggered and reported as made", yaml: pendingPass, want: reconciler.ConclusionWouldTrigger},
		{name: "a requested pass goes into the document as a dry run", yaml: pendingPass, document: true, want: reconciler.ConclusionWouldTrigger},
		{name: "missing Flux objects are an error naming the file", yaml: status14, wantErr: "--file ns.yaml: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var reported []reconciler.Conclusion
			located := 0
			req := action.ReconcileRequest{
				Target:   reconciler.Target{Namespace: "sylva-system", HelmRelease: status.DefaultHelmRelease},
				Status:   &fakeStatus{yaml: tt.yaml},
				File:     "ns.yaml",
				DryRun:   true,
				Document: tt.document,
				Locate: func(status.Observation) (*status.Transition, error) {
					located++
					return &status.Transition{Target: "1.7"}, nil
				},
				OnDecision: func(r reconciler.Result, tr *status.Transition) {
					if tr == nil {
						t.Errorf("OnDecision got no transition with the only decision")
					}
					reported = append(reported, r.Decision.DryRun().Outcome)
				},
			}
			doc, out, err := req.Run(context.Background())
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("Run() error = %v, want one starting %q", err, tt.wantErr)
				}
				if len(reported) > 0 {
					t.Errorf("Run() reported %v with its error, want nothing", reported)
				}
				return
			}
			if err != nil || out != action.OutcomePass {
				t.Fatalf("Run() = %q, %v, want pass", out, err)
			}
			if len(reported) != 1 || reported[0] != tt.want || located != 1 {
				t.Errorf("Run() reported %v, located %d times, want [%s] once", reported, located, tt.want)
			}
			if !doc.DryRun || doc.Transition == nil {
				t.Errorf("document dryRun = %t, transition = %v, want a dry run placed in the plan", doc.DryRun, doc.Transition)
			}
			var got []reconciler.Conclusion
			for _, d := range doc.Decisions {
				got = append(got, d.Outcome)
			}
			if tt.document != (len(got) == 1 && got[0] == tt.want) {
				t.Errorf("document decisions = %v with Document %t, want [%s] only with it", got, tt.document, tt.want)
			}
		})
	}
}
