package kube_test

import (
	"context"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"gitlab.com/sylva-projects/sylva-planner/internal/kubetest"
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
		fleetNames, fleetErr = kubetest.PopulateFleet(cfg, size)
		b.Logf("created %d release namespaces (5 objects each) in %s", size, time.Since(start).Round(time.Millisecond))
	})
	if fleetErr != nil {
		b.Fatal(fleetErr)
	}
	counting, n := kubetest.Counted(cfg)
	r, err := kube.NewReader(counting, kube.Options{})
	if err != nil {
		b.Fatal(err)
	}
	n.Reset()
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
	b.ReportMetric(float64(n.Count())/float64(b.N), "requests/op")
	b.ReportMetric(float64(size), "namespaces")
}
