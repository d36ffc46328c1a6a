package inventory

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

const dump = `apiVersion: v1
kind: List
items:
  - apiVersion: apps/v1
    kind: Deployment
    metadata: {name: kyverno-admission-controller, namespace: kyverno}
    spec:
      template:
        spec:
          containers:
            - {name: kyverno, image: "ghcr.io/kyverno/kyverno:v1.13.4"}
  - apiVersion: v1
    kind: Node
    metadata: {name: cp-0}
    status: {nodeInfo: {kubeletVersion: "v1.31.8+rke2r1"}}
  - apiVersion: v1
    kind: Node
    metadata: {name: md-0}
    status: {nodeInfo: {kubeletVersion: "v1.30.14+rke2r1"}}
`

const pods = `apiVersion: v1
kind: Pod
metadata: {name: longhorn-manager-x, namespace: longhorn-system}
spec:
  containers:
    - {name: m, image: "docker.io/longhornio/longhorn-manager:v1.8.1"}
---
apiVersion: v1
kind: Pod
metadata: {name: longhorn-manager-y, namespace: longhorn-system}
spec:
  containers:
    - {name: m, image: "docker.io/longhornio/longhorn-manager:v1.9.2"}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: helm-controller
  namespace: flux-system
  labels: {app.kubernetes.io/part-of: flux, app.kubernetes.io/version: v2.4.0}
`

func helmSecret(t *testing.T, manifest string) string {
	t.Helper()
	rel, _ := json.Marshal(map[string]string{"name": "cert-manager", "manifest": manifest})
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	if _, err := zw.Write(rel); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	inner := base64.StdEncoding.EncodeToString(gz.Bytes())
	outer := base64.StdEncoding.EncodeToString([]byte(inner))
	return "apiVersion: v1\nkind: Secret\ntype: helm.sh/release.v1\nmetadata: {name: sh.helm.release.v1.cert-manager.v3, namespace: cert-manager}\ndata:\n  release: " + outer + "\n"
}

func rules() []Rule {
	return []Rule{
		{Component: "cert-manager", Images: []*regexp.Regexp{regexp.MustCompile(`(?:^|/)cert-manager-controller:v?([0-9][^@]*)`)}},
		{Component: "flux", Labels: []LabelRule{{Key: "app.kubernetes.io/part-of", Value: "flux", VersionLabel: "app.kubernetes.io/version"}}},
		{Component: "kyverno", Images: []*regexp.Regexp{regexp.MustCompile(`(?:^|/)kyverno/kyverno:v?([0-9][^@]*)`)}},
		{Component: "longhorn", Images: []*regexp.Regexp{regexp.MustCompile(`(?:^|/)longhornio/longhorn-manager:v?([0-9][^@]*)`)}},
	}
}

func TestReadDetectsVersionsFromImagesLabelsAndHelmReleases(t *testing.T) {
	certManager := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: cert-manager, namespace: cert-manager}\nspec:\n  template:\n    spec:\n      containers:\n        - {name: c, image: \"quay.io/jetstack/cert-manager-controller:v1.17.2\"}\n"
	fsys := fstest.MapFS{
		"dump.yaml":         {Data: []byte(dump)},
		"sub/pods.yml":      {Data: []byte(pods)},
		"helm/release.yaml": {Data: []byte(helmSecret(t, certManager))},
		"broken.yaml":       {Data: []byte("kind: [unclosed\n")},
		"notes.txt":         {Data: []byte("ignored")},
	}
	inv, err := Read(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if inv.Files != 4 || len(inv.Skipped) != 1 || !strings.HasPrefix(inv.Skipped[0], "broken.yaml") {
		t.Errorf("files = %d, skipped = %v; want 4 files and broken.yaml skipped", inv.Files, inv.Skipped)
	}
	var got []string
	for _, d := range inv.Detect(rules()) {
		got = append(got, d.Component+"="+d.Version.String())
	}
	want := []string{"cert-manager=1.17.2", "flux=v2.4.0", "kyverno=1.13.4", "longhorn=1.9.2"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Detect (-want +got):\n%s", diff)
	}
	oldest, n, rke2 := inv.Nodes()
	if oldest.Short() != "1.30" || n != 2 || !rke2 {
		t.Errorf("Nodes() = %s, %d, %v; want 1.30, 2, true", oldest.Short(), n, rke2)
	}
}

func TestDetectKeepsAnUnreadableVersion(t *testing.T) {
	inv, err := Read(fstest.MapFS{"p.yaml": {Data: []byte("kind: Pod\nmetadata: {name: k}\nspec:\n  containers:\n    - {image: \"ghcr.io/kyverno/kyverno:latest-dev\"}\n")}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Read(fstest.MapFS{}); err != nil {
		t.Fatal(err)
	}
	d := inv.Detect([]Rule{{Component: "kyverno", Images: []*regexp.Regexp{regexp.MustCompile(`(?:^|/)kyverno/kyverno:v?([^@]*)`)}}})
	if len(d) != 1 || !d[0].Version.IsZero() || d[0].Raw != "latest-dev" {
		t.Errorf("Detect = %+v, want one unreadable kyverno version", d)
	}
}
