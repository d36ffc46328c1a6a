package kubetest

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"gitlab.com/sylva-projects/sylva-planner/status"
)

// The Flux resources of a release.
var (
	Kustomizations = schema.GroupVersionResource{Group: "kustomize.toolkit.fluxcd.io", Version: "v1", Resource: "kustomizations"}
	HelmReleases   = schema.GroupVersionResource{Group: "helm.toolkit.fluxcd.io", Version: "v2", Resource: "helmreleases"}
)

// FleetChecksum is the values checksum of the releases PopulateFleet
// creates.
const FleetChecksum = "644d1efc8e0818f815306c705014a39421ee14f8c6b47685e98d341c9ab19808"

// Kustomization is the sylva-units-status Kustomization of ns with
// annotations.
func Kustomization(ns string, annotations map[string]string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": Kustomizations.GroupVersion().String(),
		"kind":       "Kustomization",
		"metadata":   map[string]any{"name": status.KustomizationName, "namespace": ns},
		"spec": map[string]any{
			"interval":  "30m",
			"prune":     true,
			"sourceRef": map[string]any{"kind": "GitRepository", "name": "sylva-core"},
		},
	}}
	u.SetAnnotations(annotations)
	return u
}

// HelmRelease is the HelmRelease name of ns, of the sylva-units chart.
func HelmRelease(ns, name string, suspend bool) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": HelmReleases.GroupVersion().String(),
		"kind":       "HelmRelease",
		"metadata":   map[string]any{"name": name, "namespace": ns},
		"spec": map[string]any{
			"interval": "30m",
			"suspend":  suspend,
			"chart": map[string]any{"spec": map[string]any{
				"chart":     "sylva-units",
				"sourceRef": map[string]any{"kind": "GitRepository", "name": "sylva-core"},
			}},
		},
	}}
}

// CreateReady creates u, a Kustomization or a HelmRelease, in ns and sets
// it Ready at its generation through the status subresource; safe to call
// from several goroutines.
func CreateReady(cfg *rest.Config, ns string, u *unstructured.Unstructured) error {
	ctx := context.Background()
	resource := Kustomizations
	if u.GetKind() == "HelmRelease" {
		resource = HelmReleases
	}
	c := dynamic.NewForConfigOrDie(cfg).Resource(resource).Namespace(ns)
	created, err := c.Create(ctx, u, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("create %s %s/%s: %w", u.GetKind(), ns, u.GetName(), err)
	}
	gen := created.GetGeneration()
	created.Object["status"] = map[string]any{
		"observedGeneration": gen,
		"conditions": []any{map[string]any{
			"type": "Ready", "status": "True", "reason": "ReconciliationSucceeded", "message": "applied",
			"observedGeneration": gen, "lastTransitionTime": "2025-06-01T10:00:00Z",
		}},
	}
	if _, err := c.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("update status of %s %s/%s: %w", u.GetKind(), ns, u.GetName(), err)
	}
	return nil
}

// FleetNamespace is the namespace of release i of a fleet PopulateFleet
// creates: sylva-system for the first, the management cluster's.
func FleetNamespace(i int) string {
	if i == 0 {
		return status.DefaultNamespace
	}
	return fmt.Sprintf("bench-wl-%04d", i)
}

// PopulateFleet creates a fleet of size Sylva 1.4 releases, with parallel
// requests: the management release in sylva-system and size-1 workload
// releases in namespaces of their own, each with its status ConfigMap
// (written by the chart's writer), its Kustomization and HelmRelease
// (Ready), a KubeadmControlPlane and a MachineDeployment on 1.29, 1.30 or
// 1.31 in turn. It returns the namespaces.
func PopulateFleet(cfg *rest.Config, size int) ([]string, error) {
	names := make([]string, size)
	for i := range names {
		names[i] = FleetNamespace(i)
	}
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	var wg sync.WaitGroup
	errs := make(chan error, size)
	sem := make(chan struct{}, 16)
	for i, ns := range names {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if err := populateRelease(cfg, c, i, ns); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		return nil, err
	}
	return names, nil
}

// populateRelease creates namespace ns and its release, the i-th of the
// fleet.
func populateRelease(cfg *rest.Config, c kubernetes.Interface, i int, ns string) error {
	ctx := context.Background()
	if _, err := c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create namespace %s: %w", ns, err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: status.ConfigMapName, Namespace: ns}, Data: map[string]string{
		status.KeySylvaRelease: "1.4", status.KeyReleaseRevision: strconv.Itoa(i + 1), status.KeyChartVersion: "1.4.3", status.KeyValuesChecksum: FleetChecksum,
	}}
	if _, err := c.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{FieldManager: status.ChartWriter}); err != nil {
		return fmt.Errorf("create ConfigMap %s/%s: %w", ns, cm.Name, err)
	}
	for _, u := range []*unstructured.Unstructured{
		Kustomization(ns, map[string]string{status.AnnotationTargetReleaseRevision: strconv.Itoa(i + 1)}),
		HelmRelease(ns, status.DefaultHelmRelease, false),
	} {
		if err := CreateReady(cfg, ns, u); err != nil {
			return err
		}
	}
	cluster := ns
	if ns == status.DefaultNamespace {
		cluster = "management-cluster"
	}
	minor := []string{"v1.29.15", "v1.30.14", "v1.31.8"}[i%3]
	for _, u := range []*unstructured.Unstructured{
		KubeadmControlPlane(ns, cluster+status.ControlPlaneSuffix, minor),
		MachineDeployment(ns, cluster+"-md0", minor),
	} {
		if err := CreateCAPI(cfg, u); err != nil {
			return err
		}
	}
	return nil
}

// RequestCounter counts the HTTP requests of a configuration (Counted).
type RequestCounter struct {
	next http.RoundTripper
	n    atomic.Int64
	mu   sync.Mutex
	seen []string
}

// RoundTrip counts r and sends it on.
func (c *RequestCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	c.mu.Lock()
	c.seen = append(c.seen, r.Method+" "+r.URL.Path)
	c.mu.Unlock()
	return c.next.RoundTrip(r)
}

// Count is the number of requests sent so far.
func (c *RequestCounter) Count() int64 { return c.n.Load() }

// Reset forgets the requests sent so far.
func (c *RequestCounter) Reset() {
	c.n.Store(0)
	c.mu.Lock()
	c.seen = nil
	c.mu.Unlock()
}

// Seen is each request sent since the last Reset, as "METHOD PATH".
func (c *RequestCounter) Seen() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.seen...)
}

// Counted returns a copy of cfg whose requests the RequestCounter counts.
func Counted(cfg *rest.Config) (*rest.Config, *RequestCounter) {
	cfg = rest.CopyConfig(cfg)
	c := &RequestCounter{}
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		c.next = rt
		return c
	}
	return cfg, c
}

// FleetSizeEnv sets the number of release namespaces of the fleet
// benchmarks (BenchFleet); 200 by default, so that the benchmarks make
// test runs once stay short. The figures the docs quote are for 2,000:
//
//	SYLVA_PLANNER_BENCH_FLEET=2000 go test ./PKG -run '^$' -bench Fleet
const FleetSizeEnv = "SYLVA_PLANNER_BENCH_FLEET"

var (
	benchFleetOnce sync.Once
	benchFleetSize int
	benchFleetErr  error
)

// BenchFleet is the fleet of a benchmark: the test API server's
// configuration (client throttling off) and the number of release
// namespaces of the fleet PopulateFleet created on it, once per process,
// of FleetSizeEnv's size.
func BenchFleet(b *testing.B) (*rest.Config, int) {
	b.Helper()
	size := 200
	if s := os.Getenv(FleetSizeEnv); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("%s=%q: want a number of namespaces", FleetSizeEnv, s)
		}
		size = n
	}
	cfg := Config(b)
	cfg.QPS, cfg.Burst = 10000, 10000
	benchFleetOnce.Do(func() {
		start := time.Now()
		_, benchFleetErr = PopulateFleet(cfg, size)
		benchFleetSize = size
		b.Logf("created %d release namespaces (5 objects each) in %s", size, time.Since(start).Round(time.Millisecond))
	})
	if benchFleetErr != nil {
		b.Fatal(benchFleetErr)
	}
	return cfg, benchFleetSize
}
