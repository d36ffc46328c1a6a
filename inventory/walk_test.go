package inventory

import (
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// mixedManifests returns n files of every shape the scan reads: workloads
// and budgets through the full decoder, services through the header peek,
// Lists, Helm release Secrets, a file that does not parse and files that
// are not manifests.
func mixedManifests(t *testing.T, n int) fstest.MapFS {
	t.Helper()
	release := helmSecret(t, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: cert-manager, namespace: cert-manager}\nspec:\n  template:\n    spec:\n      containers:\n        - {name: c, image: \"quay.io/jetstack/cert-manager-controller:v1.17.2\"}\n")
	fsys := fstest.MapFS{}
	for i := range n {
		ns := fmt.Sprintf("team-%02d", i%7)
		var doc string
		switch i % 6 {
		case 0:
			doc = fmt.Sprintf("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web-%d\n  namespace: %s\nspec:\n  replicas: %d\n  selector: {matchLabels: {app: web-%d}}\n  template:\n    metadata: {labels: {app: web-%d}}\n    spec:\n      containers:\n      - {name: web, image: registry.example/web:1.%d.0}\n---\napiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata: {name: web-%d, namespace: %s}\nspec: {maxUnavailable: 0, selector: {matchLabels: {app: web-%d}}}\n", i, ns, i%3+1, i, i, i%5, i, ns, i)
		case 1:
			doc = fmt.Sprintf("apiVersion: v1\nkind: Service\nmetadata:\n  name: svc-%d\n  namespace: %s\n  labels:\n    app: web-%d\nspec:\n  ports:\n  - port: 80\n", i, ns, i)
		case 2:
			doc = fmt.Sprintf(`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p-%d","namespace":%q,"managedFields":[{"apiVersion":"v1beta1"}]},"spec":{"nodeName":"n%d","containers":[{"name":"c","image":"registry.example/app:2.%d"}]}},{"apiVersion":"v1","kind":"Node","metadata":{"name":"n%d"},"status":{"nodeInfo":{"kubeletVersion":"v1.3%d.2"}}}]}`, i, ns, i%4, i%9, i%4, i%3)
		case 3:
			doc = release
		case 4:
			doc = "kind: [unclosed\n"
		case 5:
			doc = fmt.Sprintf("apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db-%d, namespace: %s}\nspec:\n  replicas: 3\n  template:\n    spec:\n      terminationGracePeriodSeconds: %d\n      containers:\n      - {name: db, image: registry.example/db:3.%d}\n", i, ns, i%40, i%2)
		}
		ext := []string{".yaml", ".yml", ".json"}[i%3]
		if i%6 == 2 {
			ext = ".json"
		}
		fsys[fmt.Sprintf("%s/%03d%s", ns, i, ext)] = &fstest.MapFile{Data: []byte(doc)}
		if i%10 == 0 {
			fsys[fmt.Sprintf("%s/README-%d.md", ns, i)] = &fstest.MapFile{Data: []byte("not a manifest")}
		}
	}
	return fsys
}

func TestParallelScanGivesTheFactsOfASequentialScan(t *testing.T) {
	fsys := mixedManifests(t, 300)
	want, err := scan(fsys, "manifests", 1)
	if err != nil {
		t.Fatal(err)
	}
	if want.Inventory.Files != 300 || len(want.Inventory.Skipped) != 50 || len(want.Snapshot.Workloads) != 100 || len(want.Snapshot.Nodes) != 50 {
		t.Fatalf("sequential scan read %d files, skipped %d, %d workloads, %d nodes; want 300, 50, 100, 50",
			want.Inventory.Files, len(want.Inventory.Skipped), len(want.Snapshot.Workloads), len(want.Snapshot.Nodes))
	}
	for _, workers := range []int{2, 3, 8, 64} {
		for range 5 {
			got, err := scan(fsys, "manifests", workers)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(Inventory{})); diff != "" {
				t.Fatalf("scan with %d workers (-sequential +parallel):\n%s", workers, diff)
			}
		}
	}
}

func TestParallelReadGivesTheInventoryOfASequentialRead(t *testing.T) {
	fsys := mixedManifests(t, 120)
	want, err := read(fsys, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{2, 5, 32} {
		got, err := read(fsys, workers)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(Inventory{})); diff != "" {
			t.Fatalf("read with %d workers (-sequential +parallel):\n%s", workers, diff)
		}
	}
}

// failing refuses to open the files named in bad.
type failing struct {
	fstest.MapFS
	bad map[string]bool
}

func (f failing) Open(name string) (fs.File, error) {
	if f.bad[name] {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
	}
	return f.MapFS.Open(name)
}

func (f failing) ReadFile(name string) ([]byte, error) {
	if f.bad[name] {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
	}
	return f.MapFS.ReadFile(name)
}

func TestAnUnreadableFileStopsTheParallelScanWithTheFirstInWalkOrder(t *testing.T) {
	fsys := failing{MapFS: mixedManifests(t, 60), bad: map[string]bool{"team-01/001.yml": true, "team-05/005.json": true}}
	for _, workers := range []int{1, 4} {
		_, err := scan(fsys, "manifests", workers)
		if err == nil || !strings.HasPrefix(err.Error(), "read manifest team-01/001.yml: ") {
			t.Errorf("scan with %d workers: error %v, want the one of team-01/001.yml", workers, err)
		}
	}
}

func TestAFileOfManyDocumentsGivesTheFactsOfASequentialScan(t *testing.T) {
	var b strings.Builder
	for i := range 3 * docParallelMin {
		fmt.Fprintf(&b, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web-%d, namespace: ns}\nspec:\n  replicas: %d\n  template:\n    spec:\n      containers:\n      - {name: web, image: registry.example/web:1.%d}\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web-%d\n  namespace: ns\n---\n", i, i%4, i%7, i)
		if i == 2*docParallelMin+5 {
			b.WriteString("kind: [unclosed\n---\n")
		}
	}
	fsys := fstest.MapFS{"all.yaml": {Data: []byte(b.String())}, "one.yaml": {Data: []byte("apiVersion: v1\nkind: Node\nmetadata: {name: node-1}\nstatus: {nodeInfo: {kubeletVersion: v1.31.2}}\n")}}
	// One worker per file and no document split: the sequential reference.
	var want Facts
	want.Inventory = &Inventory{}
	for _, name := range []string{"all.yaml", "one.yaml"} {
		part := &Facts{Inventory: &Inventory{}}
		err := part.addFile(name, fsys[name].Data)
		want.join(part)
		want.Inventory.Files++
		if err != nil {
			want.Inventory.Skipped = append(want.Inventory.Skipped, name+": "+err.Error())
		}
	}
	if len(want.Inventory.Skipped) != 1 || len(want.Snapshot.Workloads) != 2*docParallelMin+6 {
		t.Fatalf("sequential reference: skipped %v, %d workloads; want the broken document and the workloads before it", want.Inventory.Skipped, len(want.Snapshot.Workloads))
	}
	got, err := scan(fsys, "", 4)
	if err != nil {
		t.Fatal(err)
	}
	want.Inventory.sortObjects()
	got.Checks = nil
	if diff := cmp.Diff(&want, got, cmp.AllowUnexported(Inventory{})); diff != "" {
		t.Errorf("scan of a file of many documents (-sequential +parallel):\n%s", diff)
	}
}
