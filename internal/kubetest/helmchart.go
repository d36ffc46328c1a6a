package kubetest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// helmCharts is the resource of source-controller's HelmChart.
var helmCharts = schema.GroupVersionResource{Group: "source.toolkit.fluxcd.io", Version: "v1", Resource: "helmcharts"}

// ReadyHelmChart creates the HelmChart sylva-units (version 0.1.0, from the
// HelmRepository named source) in ns and gives it the status
// source-controller would: Ready, with tgz, served at url +
// "/sylva-units-0.1.0.tgz", as its artifact. helm-controller then installs
// that archive without a source-controller.
func ReadyHelmChart(t testing.TB, ctx context.Context, dyn dynamic.Interface, ns, source, url string, tgz []byte) {
	t.Helper()
	sum := sha256.Sum256(tgz)
	hc := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "HelmChart",
		"metadata": map[string]any{"name": "sylva-units", "namespace": ns},
		"spec": map[string]any{
			"chart": "sylva-units", "version": "0.1.0", "interval": "1h",
			"sourceRef": map[string]any{"kind": "HelmRepository", "name": source},
		},
	}}
	created, err := dyn.Resource(helmCharts).Namespace(ns).Create(ctx, hc, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Format(time.RFC3339)
	created.Object["status"] = map[string]any{
		"observedGeneration": created.GetGeneration(),
		"observedChartName":  "sylva-units",
		"conditions": []any{map[string]any{
			"type": "Ready", "status": "True", "reason": "ChartPullSucceeded", "message": "served by the test",
			"observedGeneration": created.GetGeneration(), "lastTransitionTime": now,
		}},
		"artifact": map[string]any{
			"path": "helmchart/" + ns + "/sylva-units/sylva-units-0.1.0.tgz", "url": url + "/sylva-units-0.1.0.tgz",
			"revision": "0.1.0", "digest": "sha256:" + hex.EncodeToString(sum[:]), "lastUpdateTime": now, "size": int64(len(tgz)),
		},
	}
	if _, err := dyn.Resource(helmCharts).Namespace(ns).UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("set the HelmChart status: %v", err)
	}
}
