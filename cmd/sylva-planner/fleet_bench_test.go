package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkPlanAllFleetFile measures plan -A --to 1.6 of a fleet of 2,000
// release namespaces read from a file (sylva-system and 1,999 workload
// clusters on 1.4, each with its status ConfigMap, a KubeadmControlPlane
// and a MachineDeployment on 1.29, 1.30 or 1.31): the file's decoding and
// the planning of every release, in the process, without the API server
// (status/statuskube's BenchmarkReadAllFleet measures reading such a fleet
// live).
func BenchmarkPlanAllFleetFile(b *testing.B) {
	file := filepath.Join(b.TempDir(), "fleet.json")
	if err := os.WriteFile(file, fleetList(2000), 0o600); err != nil {
		b.Fatal(err)
	}
	args := []string{"sylva-planner", "plan", "-A", "--status", file, "--to", "1.6", "--as-of", "2026-12-01"}
	for b.Loop() {
		// Exit 2: the fleet's order blocks (1.6 does not manage 1.4).
		if code := run(context.Background(), args, io.Discard, io.Discard, os.Getenv); code != 2 {
			b.Fatalf("plan -A exited %d, want 2", code)
		}
	}
}

// fleetList is the JSON List of a fleet of size release namespaces.
func fleetList(size int) []byte {
	items := make([]map[string]any, 0, 3*size)
	for i := range size {
		ns, cluster := fmt.Sprintf("bench-wl-%04d", i), fmt.Sprintf("bench-wl-%04d", i)
		if i == 0 {
			ns, cluster = "sylva-system", "management-cluster"
		}
		version := []string{"v1.29.15", "v1.30.14", "v1.31.8"}[i%3]
		meta := func(name string) map[string]any { return map[string]any{"name": name, "namespace": ns} }
		items = append(items,
			map[string]any{
				"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta("sylva-units-status"),
				"data": map[string]any{"sylva_release": "1.4", "release-revision": fmt.Sprint(i + 1), "sylva-units-chart-version": "1.4.3"},
			},
			map[string]any{
				"apiVersion": "controlplane.cluster.x-k8s.io/v1beta2", "kind": "KubeadmControlPlane", "metadata": meta(cluster + "-control-plane"),
				"spec": map[string]any{"version": version},
			},
			map[string]any{
				"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "MachineDeployment", "metadata": meta(cluster + "-md0"),
				"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"version": version}}},
			},
		)
	}
	out, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
	if err != nil {
		panic(err)
	}
	return out
}
