package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
	"testing"

	"k8s.io/client-go/rest"

	"gitlab.com/sylva-projects/sylva-planner/internal/kubetest"
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
	cfg, size := kubetest.BenchFleet(b)
	proxy, requests := countingProxy(b, cfg)
	kc := kubetest.WriteKubeconfig(b, &rest.Config{Host: proxy})
	args := []string{"sylva-planner", "plan", "-A", "--kubeconfig", kc, "--to", "1.5", "--as-of", "2026-12-01"}
	requests.Store(0)
	b.ResetTimer()
	for b.Loop() {
		// The API server the package's tests share may hold their
		// releases too, some of which block: exit 0 or 2, a plan made.
		if code := run(context.Background(), args, io.Discard, io.Discard, func(string) string { return "" }); code != exitOK && code != exitBlocked {
			b.Fatalf("plan -A exited %d, want %d or %d", code, exitOK, exitBlocked)
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
