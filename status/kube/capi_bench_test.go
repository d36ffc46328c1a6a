package kube_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"gitlab.com/sylva-projects/sylva-planner/internal/kubetest"
	"gitlab.com/sylva-projects/sylva-planner/status"
	"gitlab.com/sylva-projects/sylva-planner/status/kube"
)

// fleetBenchSizeEnv sets the number of release namespaces of
// BenchmarkReadAllFleet; fleetBenchSize by default, so that the benchmark
// run once by make test stays short. The figure is for 2,000:
//
//	SYLVA_PLANNER_BENCH_FLEET=2000 go test ./status/kube -run '^$' -bench ReadAllFleet
const fleetBenchSizeEnv = "SYLVA_PLANNER_BENCH_FLEET"

const fleetBenchSize = 200

var (
	fleetOnce  sync.Once
	fleetNames []string
	fleetErr   error
)

// BenchmarkReadAllFleet measures ReadAll on a real API server holding a
// fleet: the management release in sylva-system and workload releases in
// their own namespaces (fleetBenchSizeEnv in all), each with its status
// ConfigMap, its Kustomization and HelmRelease (Ready), a
// KubeadmControlPlane and a MachineDeployment. It reports the wall time
// of one ReadAll (ns/op) and its HTTP requests (requests/op), counted by
// an http.RoundTripper around the configuration's transport. The fleet is
// created once per process, in parallel.
func BenchmarkReadAllFleet(b *testing.B) {
	size := fleetBenchSize
	if s := os.Getenv(fleetBenchSizeEnv); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("%s=%q: want a number of namespaces", fleetBenchSizeEnv, s)
		}
		size = n
	}
	cfg := kubetest.Config(b)
	cfg.QPS, cfg.Burst = 10000, 10000
	fleetOnce.Do(func() {
		start := time.Now()
		fleetNames, fleetErr = populateFleet(cfg, size)
		b.Logf("created %d release namespaces (5 objects each) in %s", size, time.Since(start).Round(time.Millisecond))
	})
	if fleetErr != nil {
		b.Fatal(fleetErr)
	}
	counting, n := counted(cfg)
	r, err := kube.NewReader(counting, kube.Options{})
	if err != nil {
		b.Fatal(err)
	}
	n.n.Store(0)
	b.ResetTimer()
	for b.Loop() {
		all, err := r.ReadAll(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if len(all) < size {
			b.Fatalf("ReadAll found %d namespaces, want at least %d", len(all), size)
		}
	}
	b.ReportMetric(float64(n.n.Load())/float64(b.N), "requests/op")
	b.ReportMetric(float64(size), "namespaces")
}

// populateFleet creates sylva-system and size-1 workload namespaces, each
// a release with its Cluster API objects, with parallel requests.
func populateFleet(cfg *rest.Config, size int) ([]string, error) {
	names := make([]string, size)
	names[0] = status.DefaultNamespace
	for i := 1; i < size; i++ {
		names[i] = fmt.Sprintf("bench-wl-%04d", i)
	}
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	var wg sync.WaitGroup
	errs := make(chan error, size)
	sem := make(chan struct{}, 16)
	for i, ns := range names {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := populateRelease(cfg, c, i, ns); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		return nil, err
	}
	return names, nil
}

// populateRelease creates namespace ns and its release: the status
// ConfigMap, the Kustomization and HelmRelease (Ready), the control plane
// and a MachineDeployment.
func populateRelease(cfg *rest.Config, c kubernetes.Interface, i int, ns string) error {
	ctx := context.Background()
	if _, err := c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create namespace %s: %w", ns, err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: status.ConfigMapName, Namespace: ns}, Data: map[string]string{
		status.KeySylvaRelease: "1.4", status.KeyReleaseRevision: strconv.Itoa(i + 1), status.KeyChartVersion: "1.4.3", status.KeyValuesChecksum: checksum,
	}}
	if _, err := c.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{FieldManager: status.ChartWriter}); err != nil {
		return fmt.Errorf("create ConfigMap %s/%s: %w", ns, cm.Name, err)
	}
	for _, u := range []*unstructured.Unstructured{
		kustomization(ns, map[string]string{status.AnnotationTargetReleaseRevision: strconv.Itoa(i + 1)}),
		helmRelease(ns, status.DefaultHelmRelease, false),
	} {
		if err := createReady(cfg, ns, u); err != nil {
			return err
		}
	}
	cluster := ns
	if ns == status.DefaultNamespace {
		cluster = "management-cluster"
	}
	minor := []string{"v1.29.15", "v1.30.14", "v1.31.8"}[i%3]
	for _, u := range []*unstructured.Unstructured{
		kubetest.KubeadmControlPlane(ns, cluster+status.ControlPlaneSuffix, minor),
		kubetest.MachineDeployment(ns, cluster+"-md0", minor),
	} {
		if err := kubetest.CreateCAPI(cfg, u); err != nil {
			return err
		}
	}
	return nil
}
