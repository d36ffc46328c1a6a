package inventory_test

import (
	"os"
	"testing"
	"testing/fstest"

	"gitlab.com/sylva-projects/sylva-planner/availability"
	"gitlab.com/sylva-projects/sylva-planner/inventory"
)

func TestScanReadsTheDrainModelAndTheAPIVersions(t *testing.T) {
	fsys := fstest.MapFS{
		"apps.yaml": {Data: []byte(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop-prod, labels: {app: web}}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      terminationGracePeriodSeconds: 5
      containers:
      - name: web
        image: registry.example/web:1.0.0
        lifecycle: {preStop: {exec: {command: ["sh", "-c", "sleep 10"]}}}
---
apiVersion: policy/v1beta1
kind: PodDisruptionBudget
metadata: {name: web, namespace: shop-prod}
spec: {maxUnavailable: 0, selector: {matchLabels: {app: web}}}
`)},
		"list.json": {Data: []byte(`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-1","namespace":"shop-prod","labels":{"app":"web"},
"managedFields":[{"apiVersion":"v1","manager":"kubectl"}],"annotations":{}},"spec":{"nodeName":"n1","containers":[{"name":"web","image":"registry.example/web:1.0.0"}]},
"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}]}`)},
		"broken.yaml": {Data: []byte("a: [")},
	}
	f, err := inventory.Scan(fsys, "manifests in test")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Snapshot.Workloads) != 1 || len(f.Snapshot.PDBs) != 1 || len(f.Snapshot.Pods) != 1 {
		t.Fatalf("snapshot = %+v", f.Snapshot)
	}
	w := f.Snapshot.Workloads[0]
	if w.Replicas != 2 || w.Containers[0].PreStopSleepSeconds != 10 || *w.GracePeriodSeconds != 5 {
		t.Errorf("workload = %+v", w)
	}
	if !f.Snapshot.Pods[0].Healthy || f.Snapshot.Pods[0].Node != "n1" {
		t.Errorf("pod = %+v", f.Snapshot.Pods[0])
	}
	if len(f.Uses) != 3 {
		t.Errorf("uses = %+v, want the three objects' API versions", f.Uses)
	}
	if f.Checks[0].Status != "partial" {
		t.Errorf("check with a broken file = %+v, want partial", f.Checks[0])
	}
	var got []string
	for _, it := range availability.Check(f.Snapshot, availability.Options{}) {
		got = append(got, it.Code)
	}
	want := map[string]bool{availability.CodeDrainHang: true, availability.CodeGracePeriod: true}
	for _, c := range got {
		delete(want, c)
	}
	if len(want) > 0 {
		t.Errorf("codes %v, missing %v", got, want)
	}
}

// BenchmarkScan scans the directory named by SYLVA_PLANNER_SCAN_DIR (see
// hack/bench-scan.sh with KEEP=1).
func BenchmarkScan(b *testing.B) {
	dir := os.Getenv("SYLVA_PLANNER_SCAN_DIR")
	if dir == "" {
		b.Skip("set SYLVA_PLANNER_SCAN_DIR to a directory of manifests")
	}
	for b.Loop() {
		f, err := inventory.Scan(os.DirFS(dir), dir)
		if err != nil {
			b.Fatal(err)
		}
		availability.Check(f.Snapshot, availability.Options{})
	}
}
