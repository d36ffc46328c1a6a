package inventory

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"sigs.k8s.io/yaml"
)

// storedRelease returns a release as Helm's Secret driver stores it in
// data.release: base64 of gzip (best compression, as Helm) of the release
// JSON.
func storedRelease(tb testing.TB, name, manifest string) []byte {
	tb.Helper()
	rel, err := json.Marshal(map[string]string{"name": name, "manifest": manifest})
	if err != nil {
		tb.Fatal(err)
	}
	var gz bytes.Buffer
	zw, err := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := zw.Write(rel); err != nil {
		tb.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	return []byte(base64.StdEncoding.EncodeToString(gz.Bytes()))
}

// bomb is a release of 60 MiB of ConfigMaps as Helm stores it: about
// 300 KB, 402 KB in a manifest file.
var bomb = sync.OnceValue(func() []byte {
	return storedRelease(panicking{}, "bomb", bombManifest(60))
})

// panicking is the testing.TB of values shared by several tests.
type panicking struct{ testing.TB }

func (panicking) Helper()           {}
func (panicking) Fatal(args ...any) { panic(fmt.Sprint(args...)) }

// bombManifest is a manifest of tiny ConfigMaps of about mib MiB: it
// compresses about 200 times, a release of it fits in a Secret.
func bombManifest(mib int) string {
	const doc = "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: y}\n"
	return strings.Repeat(doc, (mib<<20)/len(doc))
}

// releaseSecretFile is the release Secret of revision rev of release in
// namespace ns as `kubectl get secret -o yaml` writes it; status "" leaves
// the labels out, as a trimmed dump may.
func releaseSecretFile(tb testing.TB, ns, release string, rev int, status string, stored []byte) []byte {
	tb.Helper()
	meta := map[string]any{"name": fmt.Sprintf("sh.helm.release.v1.%s.v%d", release, rev), "namespace": ns}
	if status != "" {
		meta["labels"] = map[string]string{"name": release, "owner": "helm", "status": status, "version": fmt.Sprint(rev)}
	}
	out, err := yaml.Marshal(map[string]any{
		"apiVersion": "v1", "kind": "Secret", "type": "helm.sh/release.v1", "metadata": meta,
		"data": map[string]string{"release": base64.StdEncoding.EncodeToString(stored)},
	})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

func certManagerManifest(version string) string {
	return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: cert-manager, namespace: cert-manager}\nspec:\n  template:\n    spec:\n      containers:\n        - {name: c, image: \"quay.io/jetstack/cert-manager-controller:v" + version + "\"}\n"
}

func TestAGzipBombReleaseIsRefusedBeforeItsManifestIsRead(t *testing.T) {
	if len(bomb()) > 1<<20 {
		t.Fatalf("the bomb is %d bytes, more than a Secret holds", len(bomb()))
	}
	inv := &Inventory{}
	err := inv.AddHelmRelease("bomb/sh.helm.release.v1.bomb.v1", bomb())
	if err == nil || !strings.Contains(err.Error(), "more than 16 MiB") {
		t.Errorf("AddHelmRelease(a release of 60 MiB) = %v, want refused as more than 16 MiB", err)
	}
	if len(inv.Objects) != 0 {
		t.Errorf("AddHelmRelease(a release of 60 MiB) added %d objects, want none", len(inv.Objects))
	}
}

func TestScanNamesTheReleaseItDidNotReadAndKeepsTheVerdict(t *testing.T) {
	fsys := fstest.MapFS{
		"bomb.yaml":         {Data: releaseSecretFile(t, "bomb", "bomb", 1, "deployed", bomb())},
		"cert-manager.yaml": {Data: releaseSecretFile(t, "cert-manager", "cert-manager", 3, "deployed", storedRelease(t, "cert-manager", certManagerManifest("1.17.2")))},
	}
	f, err := Scan(fsys, "manifests in inv")
	if err != nil {
		t.Fatal(err)
	}
	checks := map[string]string{}
	for _, c := range f.Checks {
		checks[c.Name] = fmt.Sprintf("%s required=%v: %s", c.Status, c.Required, c.Detail)
	}
	if got := checks["manifest-helm-releases"]; !strings.HasPrefix(got, "partial required=false") ||
		!strings.Contains(got, "bomb.yaml (bomb/sh.helm.release.v1.bomb.v1): decompresses to more than 16 MiB") {
		t.Errorf("check manifest-helm-releases = %q, want partial, not required, naming the bomb and why", got)
	}
	if got := checks["drain-manifests"]; !strings.HasPrefix(got, "assessed") {
		t.Errorf("check drain-manifests = %q, want assessed: a release Secret holds no drain fact", got)
	}
	if d := f.Inventory.Detect(rules()); len(d) != 1 || d[0].Raw != "1.17.2" {
		t.Errorf("Detect = %+v, want cert-manager 1.17.2 from the release beside the bomb", d)
	}
}

func TestOnlyTheNewestDeployedRevisionOfAReleaseIsRead(t *testing.T) {
	fsys := fstest.MapFS{
		// Superseded and failed revisions are history: never decompressed.
		"v1.yaml": {Data: releaseSecretFile(t, "cert-manager", "cert-manager", 1, "superseded", bomb())},
		"v2.yaml": {Data: releaseSecretFile(t, "cert-manager", "cert-manager", 2, "deployed", storedRelease(t, "cert-manager", certManagerManifest("1.17.2")))},
		"v3.yaml": {Data: releaseSecretFile(t, "cert-manager", "cert-manager", 3, "failed", bomb())},
		// Without labels, the revision is read from the name: v10 is
		// newer than v9, which is not decompressed.
		"other/v9.yaml":  {Data: releaseSecretFile(t, "other", "cert-manager", 9, "", bomb())},
		"other/v10.yaml": {Data: releaseSecretFile(t, "other", "cert-manager", 10, "", storedRelease(t, "cert-manager", certManagerManifest("1.16.1")))},
	}
	inv, err := Read(fsys)
	if err != nil {
		t.Fatal(err)
	}
	// Each file once, with how many objects its release gave.
	count := map[string]int{}
	var got []string
	for _, o := range inv.Objects {
		if strings.HasSuffix(o.File, "#release") {
			if count[o.File] == 0 {
				got = append(got, o.File)
			}
			count[o.File]++
		}
	}
	want := "other/v10.yaml#release v2.yaml#release"
	if strings.Join(got, " ") != want || count["v2.yaml#release"] != 1 || count["other/v10.yaml#release"] != 1 {
		t.Errorf("objects of releases from %v (objects %v), want one from each of the newest deployed revisions: %s", got, count, want)
	}
}

// BenchmarkGzipBombRelease scans one release Secret of 402 KB that
// decompresses to 60 MiB of ConfigMaps.
func BenchmarkGzipBombRelease(b *testing.B) {
	fsys := fstest.MapFS{"bomb.yaml": {Data: releaseSecretFile(b, "bomb", "bomb", 1, "deployed", bomb())}}
	b.ReportMetric(float64(len(fsys["bomb.yaml"].Data)), "secret-bytes")
	for b.Loop() {
		if _, err := Scan(fsys, "bomb"); err != nil {
			b.Fatal(err)
		}
	}
}
