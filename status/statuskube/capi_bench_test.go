package statuskube_test

import (
	"context"
	"testing"

	"gitlab.com/sylva-projects/sylva-planner/internal/kubetest"
	"gitlab.com/sylva-projects/sylva-planner/status/statuskube"
)

// BenchmarkReadAllFleet measures ReadAll on a real API server holding a
// fleet: the management release in sylva-system and workload releases in
// their own namespaces (kubetest.FleetSizeEnv in all), each with its status
// ConfigMap, its Kustomization and HelmRelease (Ready), a
// KubeadmControlPlane and a MachineDeployment. It reports the wall time
// of one ReadAll (ns/op) and its HTTP requests (requests/op), counted by
// an http.RoundTripper around the configuration's transport. The fleet is
// created once per process (kubetest.BenchFleet).
func BenchmarkReadAllFleet(b *testing.B) {
	cfg, size := kubetest.BenchFleet(b)
	counting, n := kubetest.Counted(cfg)
	r, err := statuskube.NewReader(counting, statuskube.Options{})
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
