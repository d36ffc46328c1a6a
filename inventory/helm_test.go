package inventory

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"
	"testing/fstest"

	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"sigs.k8s.io/yaml"
)

// keptSecrets keeps the Secrets Helm's Secret driver creates; the driver
// calls nothing else when it stores a release.
type keptSecrets struct {
	typedcorev1.SecretInterface
	created []*corev1.Secret
}

func (k *keptSecrets) Create(_ context.Context, s *corev1.Secret, _ metav1.CreateOptions) (*corev1.Secret, error) {
	k.created = append(k.created, s.DeepCopy())
	return s, nil
}

// storedByHelm returns the release Secret Helm's own storage driver writes
// for a release with manifest.
func storedByHelm(t *testing.T, manifest string) *corev1.Secret {
	t.Helper()
	kept := &keptSecrets{}
	rel := &release.Release{Name: "cert-manager", Namespace: "cert-manager", Version: 3, Manifest: manifest, Info: &release.Info{Status: release.StatusDeployed}}
	if err := driver.NewSecrets(kept).Create("sh.helm.release.v1.cert-manager.v3", rel); err != nil {
		t.Fatal(err)
	}
	if len(kept.created) != 1 {
		t.Fatalf("Helm's driver created %d Secrets, want 1", len(kept.created))
	}
	return kept.created[0]
}

const releaseObjects = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: cert-manager, namespace: cert-manager}\nspec:\n  template:\n    spec:\n      containers:\n        - {name: c, image: \"quay.io/jetstack/cert-manager-controller:v1.17.2\"}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: cert-manager, namespace: cert-manager}\n"

func TestReleasesStoredByHelmReadTheSameFromFilesAndLive(t *testing.T) {
	secret := storedByHelm(t, releaseObjects)

	live := &Inventory{}
	if err := live.AddHelmRelease("cert-manager/"+secret.Name, secret.Data["release"]); err != nil {
		t.Fatal(err)
	}
	secret.APIVersion, secret.Kind = "v1", "Secret"
	dump, err := yaml.Marshal(secret)
	if err != nil {
		t.Fatal(err)
	}
	files, err := Read(fstest.MapFS{"secret.yaml": {Data: dump}})
	if err != nil {
		t.Fatal(err)
	}
	var fromFile, fromLive []string
	for _, o := range files.Objects {
		if o.File == "secret.yaml#release" {
			fromFile = append(fromFile, o.Kind+" "+o.Name+" "+o.Namespace)
		}
	}
	for _, o := range live.Objects {
		fromLive = append(fromLive, o.Kind+" "+o.Name+" "+o.Namespace)
	}
	want := "Deployment cert-manager cert-manager,Service cert-manager cert-manager"
	if got := strings.Join(fromFile, ","); got != want {
		t.Errorf("objects of the release read from a file = %s, want %s", got, want)
	}
	if got := strings.Join(fromLive, ","); got != want {
		t.Errorf("objects of the release read live = %s, want %s", got, want)
	}
}

func TestAReleaseStoredUncompressedIsRead(t *testing.T) {
	stored := base64.StdEncoding.EncodeToString([]byte(`{"name":"old","manifest":"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: old}\n"}`))
	inv := &Inventory{}
	if err := inv.AddHelmRelease("ns/old", []byte(stored)); err != nil {
		t.Fatal(err)
	}
	if len(inv.Objects) != 1 || inv.Objects[0].Name != "old" || inv.Objects[0].File != "ns/old#release" {
		t.Errorf("objects = %+v, want the ConfigMap old of ns/old#release", inv.Objects)
	}
}

func TestAReleaseThatDoesNotDecodeIsAnError(t *testing.T) {
	for name, stored := range map[string]string{
		"not base64":       "%%%",
		"not a release":    base64.StdEncoding.EncodeToString([]byte("[1, 2]")),
		"a broken gzip":    base64.StdEncoding.EncodeToString([]byte{0x1f, 0x8b, 0x08, 0, 1}),
		"truncated base64": "eyJu",
	} {
		if err := (&Inventory{}).AddHelmRelease("ns/x", []byte(stored)); err == nil {
			t.Errorf("AddHelmRelease(%s) = nil, want an error", name)
		}
	}
}
