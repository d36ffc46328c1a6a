package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"gitlab.com/sylva-projects/sylva-planner/internal/kubetest"
)

// TestValuesRenderLooksUpTheLiveClusterWithinTheAllowList renders values
// whose lookups read the real API server: the status ConfigMap is allowed,
// a Secret is not (empty result and a warning) until --allow-lookup names it.
func TestValuesRenderLooksUpTheLiveClusterWithinTheAllowList(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	cfg := kubetest.Config(t)
	ns := kubetest.Namespace(t, cfg)
	cs := kubernetes.NewForConfigOrDie(cfg)
	ctx := context.Background()
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "sylva-units-status", Namespace: ns},
		Data:       map[string]string{"sylva_release": "1.4"},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: ns},
		StringData: map[string]string{"k": "v"},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	vals := filepath.Join(dir, "values.yaml")
	if err := os.WriteFile(vals, []byte(`installed: '{{ lookup "v1" "ConfigMap" .Release.Namespace "sylva-units-status" | dig "data" "sylva_release" "none" }}'
secret_found: '{{ lookup "v1" "Secret" .Release.Namespace "s" | empty | not }}'
`), 0o644); err != nil {
		t.Fatal(err)
	}
	kubeconfig := kubetest.WriteKubeconfig(t, cfg)
	render := func(extra ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		args := append([]string{"sylva-planner", "values", "render", "-f", vals, "--kubeconfig", kubeconfig, "-n", ns}, extra...)
		code := runIn(ctx, "", args, &out, &errOut, func(string) string { return "" })
		return code, out.String(), errOut.String()
	}
	code, out, errOut := render()
	if code != exitOK || !strings.Contains(out, `installed: "1.4"`) || !strings.Contains(out, `secret_found: "false"`) {
		t.Fatalf("render: exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "Secret") || !strings.HasPrefix(errOut, "sylva-planner: warning: ") {
		t.Errorf("no warning about the refused Secret lookup on stderr, starting with the program's name as every message does: %q", errOut)
	}
	code, out, errOut = render("--allow-lookup", "core/v1/Secret")
	if code != exitOK || !strings.Contains(out, `secret_found: "true"`) {
		t.Fatalf("render with --allow-lookup: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestValuesRenderWithAnEmptyNamespaceReadsNothing renders, against the
// real API server holding a status ConfigMap and a HelmRelease in another
// namespace, with the namespace set empty on the command line and in the
// environment: both are input errors (one line, exit 1) and print nothing,
// where an empty namespace used to widen the allow list to every namespace.
func TestValuesRenderWithAnEmptyNamespaceReadsNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	cfg := kubetest.Config(t)
	ns := kubetest.Namespace(t, cfg)
	cs := kubernetes.NewForConfigOrDie(cfg)
	ctx := context.Background()
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "sylva-units-status", Namespace: ns},
		Data:       map[string]string{"sylva_release": "1.4"},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	vals := filepath.Join(dir, "values.yaml")
	if err := os.WriteFile(vals, []byte(`installed: '{{ lookup "v1" "ConfigMap" "`+ns+`" "sylva-units-status" | dig "data" "sylva_release" "none" }}'
cms: '{{ (lookup "v1" "ConfigMap" "" "").items | len }}'
`), 0o644); err != nil {
		t.Fatal(err)
	}
	kubeconfig := kubetest.WriteKubeconfig(t, cfg)
	tests := []struct {
		name string
		args []string
		env  bool
	}{
		{name: "an empty -n is refused", args: []string{"-n", ""}},
		{name: "an empty SYLVA_PLANNER_NAMESPACE is refused", env: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.env {
				t.Setenv("SYLVA_PLANNER_NAMESPACE", "")
			}
			var out, errOut bytes.Buffer
			args := append([]string{"sylva-planner", "values", "render", "-f", vals, "--kubeconfig", kubeconfig}, tt.args...)
			code := runIn(ctx, "", args, &out, &errOut, func(string) string { return "" })
			if code != exitError || out.Len() != 0 || strings.Count(errOut.String(), "\n") != 1 || !strings.Contains(errOut.String(), "--namespace is empty") {
				t.Fatalf("exit %d, want 1 with one line naming --namespace and no output\nstdout: %s\nstderr: %s", code, out.String(), errOut.String())
			}
		})
	}
}
