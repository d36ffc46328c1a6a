package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"gitlab.com/sylva-projects/sylva-planner/action"
	"gitlab.com/sylva-projects/sylva-planner/internal/kubetest"
)

func TestMain(m *testing.M) { os.Exit(kubetest.Main(m)) }

// TestVerifyOnARealAPIServer seeds Nodes (kubelet versions set through the
// status subresource), the status ConfigMap and a Longhorn DaemonSet, then
// runs `verify` against the server.
func TestVerifyOnARealAPIServer(t *testing.T) {
	cfg := kubetest.Config(t)
	ns := kubetest.Namespace(t, cfg)
	cs := kubernetes.NewForConfigOrDie(cfg)
	ctx := context.Background()
	prefix := ns + "-"

	node := func(name, kubelet string, cp bool) {
		t.Helper()
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: prefix + name, Labels: map[string]string{"test": ns}}}
		if cp {
			n.Labels[action.ControlPlaneLabel] = ""
		}
		created, err := cs.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		created.Status.NodeInfo.KubeletVersion = kubelet
		if _, err := cs.CoreV1().Nodes().UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.CoreV1().Nodes().Delete(context.Background(), n.Name, metav1.DeleteOptions{}) })
	}
	node("cp-0", "v1.33.5", true)
	node("md-0", "v1.33.5", false)
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "sylva-units-status", Namespace: ns},
		Data:       map[string]string{"sylva_release": "1.6", "additional_reconciliation_required": "true"},
	}
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{FieldManager: "kustomize-controller"}); err != nil {
		t.Fatal(err)
	}
	labels := map[string]string{"app": "longhorn-manager"}
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "longhorn-manager", Namespace: ns},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "m", Image: "docker.io/longhornio/longhorn-manager:v1.9.2"}}},
			},
		},
	}
	if _, err := cs.AppsV1().DaemonSets(ns).Create(ctx, ds, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kubeconfig := kubetest.WriteKubeconfig(t, cfg)
	verify := func() (int, string) {
		var out, errOut bytes.Buffer
		code := runIn(ctx, "", []string{"sylva-planner", "verify", "--from", "1.4", "--to", "1.6", "--kubeconfig", kubeconfig, "-n", ns}, &out, &errOut, func(string) string { return "" })
		return code, out.String() + errOut.String()
	}

	// Other tests' nodes may exist on the shared server; only ours carry the
	// namespace prefix, and all of them must pass for the check to pass, so
	// this test relies on being the only one creating Nodes in this package.
	// The status records no transition keys, as a chart that runs its own
	// transition writes it: verify fails on the pending pass and places it,
	// as status --to does, from the one hop of the catalog into 1.6 that
	// takes a further pass.
	code, out := verify()
	if code != exitBlocked || !strings.Contains(out, "FAIL status") || !strings.Contains(out, "pass 1 of 2 done; next: pass 2") || !strings.Contains(out, "the only hop of the catalog into 1.6 that takes a further pass is 1.4 → 1.6") {
		t.Fatalf("verify with a pending pass: exit %d\n%s", code, out)
	}
	cm.Data["additional_reconciliation_required"] = "false"
	if _, err := cs.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{FieldManager: "kustomize-controller"}); err != nil {
		t.Fatal(err)
	}
	code, out = verify()
	if code != exitOK {
		t.Fatalf("verify of the final state: exit %d\n%s", code, out)
	}
	for _, want := range []string{"OK   status", "OK   control-plane", "OK   workers", "OK   longhorn"} {
		if !strings.Contains(out, want) {
			t.Errorf("verify output lacks %q:\n%s", want, out)
		}
	}
}
