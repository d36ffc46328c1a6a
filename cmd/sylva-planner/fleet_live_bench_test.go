package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"gitlab.com/sylva-projects/sylva-planner/internal/kubetest"
)

// fleetBenchSizeEnv sets the number of release namespaces of
// BenchmarkPlanAllLive; 200 by default, so that the benchmark make test
// runs once stays short. The figure docs/status.md quotes is for 2,000:
//
//	SYLVA_PLANNER_BENCH_FLEET=2000 go test ./cmd/sylva-planner -run '^$' -bench PlanAllLive
const fleetBenchSizeEnv = "SYLVA_PLANNER_BENCH_FLEET"

var (
	liveFleetOnce sync.Once
	liveFleetErr  error
)

// BenchmarkPlanAllLive measures plan -A --to 1.5 of the process against a
// real API server holding a fleet (kubetest.PopulateFleet: the management
// release and workload releases on 1.4, each with its status, Flux
// objects, control plane and MachineDeployment): the whole command,
// reading every release, the management cluster's facts, and planning
// each release. It reports the wall time (ns/op) and the HTTP requests of
// one run (requests/op), counted by a proxy between the command and the
// API server.
func BenchmarkPlanAllLive(b *testing.B) {
	size := 200
	if s := os.Getenv(fleetBenchSizeEnv); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("%s=%q: want a number of namespaces", fleetBenchSizeEnv, s)
		}
		size = n
	}
	cfg := kubetest.Config(b)
	cfg.QPS, cfg.Burst = 10000, 10000
	liveFleetOnce.Do(func() {
		start := time.Now()
		_, liveFleetErr = kubetest.PopulateFleet(cfg, size)
		b.Logf("created %d release namespaces in %s", size, time.Since(start).Round(time.Millisecond))
	})
	if liveFleetErr != nil {
		b.Fatal(liveFleetErr)
	}
	proxy, requests := countingProxy(b, cfg)
	kc := kubetest.WriteKubeconfig(b, &rest.Config{Host: proxy})
	args := []string{"sylva-planner", "plan", "-A", "--kubeconfig", kc, "--to", "1.5", "--as-of", "2026-12-01"}
	requests.Store(0)
	b.ResetTimer()
	for b.Loop() {
		if code := run(context.Background(), args, io.Discard, io.Discard, func(string) string { return "" }); code != exitOK {
			b.Fatalf("plan -A exited %d, want %d", code, exitOK)
		}
	}
	b.ReportMetric(float64(requests.Load())/float64(b.N), "requests/op")
	b.ReportMetric(float64(size), "namespaces")
}

// countingProxy serves the API server of cfg over plain HTTP on the
// loopback, authenticated as cfg, and counts the requests it forwards.
func countingProxy(b *testing.B, cfg *rest.Config) (string, *atomic.Int64) {
	b.Helper()
	target, err := url.Parse(cfg.Host)
	if err != nil {
		b.Fatal(err)
	}
	rt, err := rest.TransportFor(cfg)
	if err != nil {
		b.Fatal(err)
	}
	var n atomic.Int64
	p := httputil.NewSingleHostReverseProxy(target)
	p.Transport = rt
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		p.ServeHTTP(w, r)
	}))
	b.Cleanup(srv.Close)
	return srv.URL, &n
}
