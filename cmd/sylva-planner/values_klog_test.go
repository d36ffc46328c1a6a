package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"gitlab.com/sylva-projects/sylva-planner/internal/kubetest"
)

// klogLine is the header klog puts on every line it writes:
// severity, month and day ("W1201 ...").
var klogLine = regexp.MustCompile(`(?m)^[IWEF]\d{4} `)

// TestValuesRenderLiveWritesNoKlogLine renders, against the real API
// server, values that look up an object of a deprecated custom resource
// version: the server answers with a Warning header, which client-go hands
// to klog, and klog writes straight to the process's stderr. The command's
// own stderr carries the render's warnings; the process's stderr must not
// carry a klog line.
func TestValuesRenderLiveWritesNoKlogLine(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	cfg := kubetest.Config(t)
	ns := kubetest.Namespace(t, cfg)
	dyn := dynamic.NewForConfigOrDie(cfg)
	ctx := context.Background()
	group := "klog.planner.sylva"
	crds := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "gadgets." + group},
		"spec": map[string]any{
			"group": group, "scope": "Namespaced",
			"names": map[string]any{"plural": "gadgets", "singular": "gadget", "kind": "Gadget", "listKind": "GadgetList"},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"deprecated": true, "deprecationWarning": "gadgets v1 is deprecated",
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
			}},
		},
	}}
	if _, err := dyn.Resource(crds).Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dyn.Resource(crds).Delete(context.Background(), crd.GetName(), metav1.DeleteOptions{}) })
	gadgets := dyn.Resource(schema.GroupVersionResource{Group: group, Version: "v1", Resource: "gadgets"}).Namespace(ns)
	gadget := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": group + "/v1", "kind": "Gadget",
		"metadata": map[string]any{"name": "g", "namespace": ns},
		"spec":     map[string]any{"size": "large"},
	}}
	var err error
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if _, err = gadgets.Create(ctx, gadget, metav1.CreateOptions{}); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("create the gadget once its CRD is established: %v", err)
	}

	dir := t.TempDir()
	vals := filepath.Join(dir, "values.yaml")
	if err := os.WriteFile(vals, []byte(`size: '{{ lookup "`+group+`/v1" "Gadget" .Release.Namespace "g" | dig "spec" "size" "none" }}'
`), 0o644); err != nil {
		t.Fatal(err)
	}
	kubeconfig := kubetest.WriteKubeconfig(t, cfg)

	var out, errOut bytes.Buffer
	process := captureStderr(t, func() {
		args := []string{"sylva-planner", "values", "render", "-f", vals, "--kubeconfig", kubeconfig, "-n", ns, "--allow-lookup", group + "/v1/Gadget"}
		if code := runIn(ctx, "", args, &out, &errOut, func(string) string { return "" }); code != exitOK {
			t.Errorf("render: exit %d\n%s\n%s", code, out.String(), errOut.String())
		}
	})
	if !strings.Contains(out.String(), "size: large") {
		t.Fatalf("render did not read the gadget (the lookup this test needs):\n%s\n%s", out.String(), errOut.String())
	}
	if klogLine.MatchString(process) || klogLine.MatchString(errOut.String()) {
		t.Errorf("a klog line reached stderr:\nprocess: %s\ncommand: %s", process, errOut.String())
	}
}

// captureStderr runs fn with the process's stderr (os.Stderr, where klog
// writes) sent to a pipe, and returns what was written there.
func captureStderr(t *testing.T, fn func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		done <- string(b)
	}()
	stderr := os.Stderr
	os.Stderr = w
	defer func() { os.Stderr = stderr }()
	fn()
	os.Stderr = stderr
	_ = w.Close()
	return <-done
}
