package reconciler

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes"

	"gitlab.com/sylva-projects/sylva-planner/internal/kubetest"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

// EnvE2E enables the end-to-end test with the real Flux controllers.
const envE2E = "SYLVA_PLANNER_E2E"

var helmRepositories = schema.GroupVersionResource{Group: "source.toolkit.fluxcd.io", Version: "v1", Resource: "helmrepositories"}

// e2eChart is a stand-in for sylva-units: it renders the data of the
// status ConfigMap (into statusDesired, which the test's stand-in for
// kustomize-controller applies as sylva-units-status, as the chart's
// sylva-units-status Kustomization does), asking for another pass until
// the third Helm release revision, as a two-pass transition does.
var e2eChart = map[string]string{
	"sylva-units/Chart.yaml": "apiVersion: v2\nname: sylva-units\nversion: 0.1.0\n",
	"sylva-units/templates/status.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: ` + statusDesired + `
data:
  sylva_release: "1.6"
  release-revision: {{ .Release.Revision | quote }}
  values-checksum: e2e
  additional_reconciliation_required: {{ if lt (int .Release.Revision) 3 }}"true"{{ else }}"false"{{ end }}
`,
}

// statusDesired is the ConfigMap the stand-in chart renders the status
// data into.
const statusDesired = "sylva-units-status-desired"

// applyStatus plays kustomize-controller's part for the status: whenever
// the data the chart rendered (statusDesired) is not that of the status
// ConfigMap, it applies it there server-side as kustomize-controller, the
// only writer whose write of the status requests a pass. It stops with
// ctx.
func applyStatus(ctx context.Context, t *testing.T, core kubernetes.Interface, ns string) {
	t.Helper()
	for ctx.Err() == nil {
		desired, err := core.CoreV1().ConfigMaps(ns).Get(ctx, statusDesired, metav1.GetOptions{})
		if err == nil {
			cur, err := core.CoreV1().ConfigMaps(ns).Get(ctx, status.ConfigMapName, metav1.GetOptions{})
			if err != nil || !maps.Equal(cur.Data, desired.Data) {
				ac := corev1ac.ConfigMap(status.ConfigMapName, ns).WithData(desired.Data)
				if _, err := core.CoreV1().ConfigMaps(ns).Apply(ctx, ac, metav1.ApplyOptions{FieldManager: status.ChartWriter, Force: true}); err != nil && ctx.Err() == nil {
					t.Errorf("applying the status as %s: %v", status.ChartWriter, err)
					return
				}
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func chartArchive(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, name := range []string{"sylva-units/Chart.yaml", "sylva-units/templates/status.yaml"} {
		body := e2eChart[name]
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), ModTime: time.Unix(0, 0)}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// helmRepository serves the chart as a Helm HTTP repository on loopback.
func helmRepository(t *testing.T) string {
	t.Helper()
	tgz := chartArchive(t)
	sum := sha256.Sum256(tgz)
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	index := fmt.Sprintf(`apiVersion: v1
entries:
  sylva-units:
  - apiVersion: v2
    name: sylva-units
    version: 0.1.0
    created: "2026-01-01T00:00:00Z"
    digest: %s
    urls:
    - %s/sylva-units-0.1.0.tgz
generated: "2026-01-01T00:00:00Z"
`, hex.EncodeToString(sum[:]), srv.URL)
	mux.HandleFunc("/index.yaml", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(index)) })
	mux.HandleFunc("/sylva-units-0.1.0.tgz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(tgz) })
	return srv.URL
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().String()
}

// TestEndToEndWithFlux drives a two-pass transition with the real
// helm-controller and source-controller: the chart asks for a further pass
// in the status ConfigMap it writes, until its third release revision.
// Enabled by SYLVA_PLANNER_E2E=1; the controllers are built by
// hack/build-flux.sh (make testbin-flux). Without the source-controller
// binary, the test plays its part (a Ready HelmChart whose artifact it
// serves) and helm-controller still runs every pass.
func TestEndToEndWithFlux(t *testing.T) {
	if os.Getenv(envE2E) != "1" {
		t.Skip("set " + envE2E + "=1 to run the end-to-end test with helm-controller and source-controller")
	}
	dir := kubetest.Dir()
	helmController, sourceController := filepath.Join(dir, "helm-controller"), filepath.Join(dir, "source-controller")
	if _, err := os.Stat(helmController); err != nil {
		t.Fatalf("%s not found; run `make testbin-flux` (hack/build-flux.sh)", helmController)
	}
	withSource := true
	if _, err := os.Stat(sourceController); err != nil {
		// helm-controller alone still runs the passes; the test then plays
		// source-controller's part: a Ready HelmChart whose artifact it
		// serves.
		withSource = false
		t.Logf("%s not found (`make testbin-flux` builds it): the test serves the HelmChart artifact itself", sourceController)
	}
	c := newCluster(t)
	kubeconfig := kubetest.WriteKubeconfig(t, c.cfg)
	ns := kubetest.Namespace(t, c.cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	repoURL := helmRepository(t)

	hr := loadYAML(t, "helmrelease.yaml")
	hr.SetNamespace(ns)
	if withSource {
		storage := freeAddr(t)
		kubetest.RunController(t, kubeconfig, ns, sourceController, "--storage-path="+t.TempDir(),
			"--storage-addr="+storage, "--storage-adv-addr="+storage, "--metrics-addr=0", "--health-addr=127.0.0.1:0", "--log-level=debug")
		repo := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "HelmRepository",
			"metadata": map[string]any{"name": "e2e", "namespace": ns},
			"spec":     map[string]any{"url": repoURL, "interval": "1h"},
		}}
		if _, err := c.dyn.Resource(helmRepositories).Namespace(ns).Create(ctx, repo, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := unstructured.SetNestedField(hr.Object, map[string]any{
			"chart": "sylva-units", "version": "0.1.0",
			"sourceRef": map[string]any{"kind": "HelmRepository", "name": "e2e"},
		}, "spec", "chart", "spec"); err != nil {
			t.Fatal(err)
		}
	} else {
		kubetest.ReadyHelmChart(t, ctx, c.dyn, ns, "e2e", repoURL, chartArchive(t))
		unstructured.RemoveNestedField(hr.Object, "spec", "chart")
		if err := unstructured.SetNestedField(hr.Object, map[string]any{"kind": "HelmChart", "name": "sylva-units"}, "spec", "chartRef"); err != nil {
			t.Fatal(err)
		}
	}
	kubetest.RunController(t, kubeconfig, ns, helmController, "--metrics-addr=0", "--health-addr=127.0.0.1:0", "--log-level=debug")
	if _, err := c.dyn.Resource(helmReleases).Namespace(ns).Create(ctx, hr, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// No kustomize-controller: the sylva-units-status Kustomization is
	// Ready, without target annotations, and applyStatus writes the status
	// the chart rendered, as kustomize-controller would.
	ks := loadYAML(t, "kustomization.yaml")
	ks.SetAnnotations(nil)
	c.createFlux(t, ctx, kustomizations, ns, ks, true)
	applyCtx, stopApplying := context.WithCancel(ctx)
	applied := make(chan struct{})
	go func() { defer close(applied); applyStatus(applyCtx, t, c.core, ns) }()
	defer func() { stopApplying(); <-applied }()

	kubetest.EventuallyCtx(t, ctx, "helm-controller installed the chart", func() bool {
		cm, err := c.core.CoreV1().ConfigMaps(ns).Get(ctx, status.ConfigMapName, metav1.GetOptions{})
		return err == nil && cm.Data[status.KeyReleaseRevision] == "1"
	})

	a := c.applier(t)
	var decisions []string
	res, err := a.Drive(ctx, Target{Namespace: ns}, DriveOptions{
		Wait:       true,
		Interval:   time.Second,
		OnDecision: func(r Result) { decisions = append(decisions, r.Decision.String()) },
		OnProgress: func(p WaitProgress) { t.Logf("[%s] %s: %s", p.Elapsed.Round(time.Second), p.Request, p.State) },
	})
	if err != nil {
		t.Fatalf("Drive: %v\ndecisions:\n%s", err, strings.Join(decisions, "\n"))
	}
	t.Logf("decisions:\n%s", strings.Join(decisions, "\n"))
	if res.Decision.Outcome != ConclusionNothingRequested {
		t.Fatalf("Drive ended with %s, want nothing requested", res.Decision)
	}
	cm, err := c.core.CoreV1().ConfigMaps(ns).Get(ctx, status.ConfigMapName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := cm.Data[status.KeyReleaseRevision]; got != "3" {
		t.Errorf("release-revision %s after the transition, want 3 (install and two passes)", got)
	}
	if n := c.triggers(t, ns); n != 2 {
		t.Errorf("%d passes requested, want 2", n)
	}
}
