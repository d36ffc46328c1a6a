package main

import (
	"context"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"gitlab.com/sylva-projects/sylva-planner/internal/kubetest"
	"gitlab.com/sylva-projects/sylva-planner/planner"
)

// TestPlanLiveOnAHalfDoneTransition: a cluster whose status says release
// 1.6, pass 1 of 2 done, another pass required, is planned by plan --live
// as status --to reads it: pass 2 is pending, never "already on 1.6".
func TestPlanLiveOnAHalfDoneTransition(t *testing.T) {
	cfg := kubetest.Config(t)
	ns := kubetest.Namespace(t, cfg)
	cs := kubernetes.NewForConfigOrDie(cfg)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "sylva-units-status", Namespace: ns}, Data: map[string]string{
		"sylva_release": "1.6", "additional_reconciliation_required": "true", "transition_from": "1.4", "transition_pass": "1",
		"release-revision": "7", "values-checksum": "abc",
	}}
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"KUBECONFIG": kubetest.WriteKubeconfig(t, cfg)}
	code, out, errOut := runWithEnv(env, "plan", "--live", "--to", "1.6", "-n", ns, "-o", "json", "--as-of", "2026-11-30", "--fail-on", "never")
	p := decodePlan(t, code, out, errOut)
	if p.From.Release != "1.4" || p.Metadata.FromSource != "transition_from" {
		t.Errorf("plan from %s (%s), want 1.4 read from transition_from", p.From.Release, p.Metadata.FromSource)
	}
	if p.Position == nil || p.Position.PassesDone != 1 || p.Position.Passes != 2 || p.Position.Next == nil || p.Position.Next.Index != 2 {
		t.Fatalf("position = %+v, want pass 1 of 2 done, pass 2 next", p.Position)
	}
	if !strings.Contains(p.Next, "pass 2 of 2 is pending") || slices.ContainsFunc(p.Findings, func(f planner.Finding) bool { return f.Code == planner.CodeSameRelease }) {
		t.Errorf("next %q, findings %v: want pass 2 pending and no %s", p.Next, p.Findings, planner.CodeSameRelease)
	}
	// The namespace is not sylva-system: a workload cluster's release,
	// planned without this cluster's facts.
	if slices.ContainsFunc(p.Metadata.Inputs, func(in string) bool { return strings.HasPrefix(in, "cluster live") }) {
		t.Errorf("inputs %q: the plan of the release of %s read this cluster's facts, which are not its cluster's", p.Metadata.Inputs, ns)
	}
	// status --to on the same cluster places it the same way.
	code, out, errOut = runWithEnv(env, "status", "-n", ns, "--to", "1.6", "--as-of", "2026-11-30")
	if code != exitOK || !strings.Contains(out, p.Position.Summary) {
		t.Errorf("status --to: exit %d, want the plan's position %q in:\n%s%s", code, p.Position.Summary, out, errOut)
	}
}
