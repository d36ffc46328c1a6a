package inventorykube_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"gitlab.com/sylva-projects/sylva-planner/internal/kubetest"
	"gitlab.com/sylva-projects/sylva-planner/inventory/inventorykube"
	"gitlab.com/sylva-projects/sylva-planner/planner"
)

// bombManifest is 60 MiB of tiny ConfigMaps: Helm stores it in a Secret
// of about 400 KB.
func bombManifest() string {
	const doc = "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: y}\n"
	return strings.Repeat(doc, (60<<20)/len(doc))
}

func TestAGzipBombReleaseSecretIsNamedNotRead(t *testing.T) {
	cfg := kubetest.Config(t)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ns := kubetest.Namespace(t, cfg)
	secrets := cs.CoreV1().Secrets(ns)
	store := driver.NewSecrets(secrets)
	webManifest := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: " + ns + "}\nspec:\n  template:\n    spec:\n      containers:\n        - {name: c, image: \"quay.io/jetstack/cert-manager-controller:v1.17.2\"}\n"
	bomb := bombManifest()
	for _, r := range []*release.Release{
		// An interrupted upgrade can leave two revisions deployed: only
		// the newest is read, the older (the bomb) is not decompressed.
		{Name: "web", Namespace: ns, Version: 1, Manifest: bomb, Info: &release.Info{Status: release.StatusDeployed}},
		{Name: "web", Namespace: ns, Version: 2, Manifest: webManifest, Info: &release.Info{Status: release.StatusDeployed}},
		{Name: "bomb", Namespace: ns, Version: 1, Manifest: bomb, Info: &release.Info{Status: release.StatusDeployed}},
	} {
		key := "sh.helm.release.v1." + r.Name + ".v" + strconv.Itoa(r.Version)
		if err := store.Create(key, r); err != nil {
			t.Fatalf("store release %s: %v", key, err)
		}
		// Namespaces are never finalised here: the Secrets go with the
		// test, so that the other tests read a clean cluster.
		t.Cleanup(func() { _ = secrets.Delete(context.Background(), key, metav1.DeleteOptions{}) })
	}

	facts, err := inventorykube.Collect(ctx(t), cfg, inventorykube.Options{Context: "kubetest", PageSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	var helm planner.Check
	for _, c := range facts.Checks {
		if c.Name == inventorykube.CheckHelm {
			helm = c
		}
	}
	if helm.Status != planner.CheckPartial || helm.Required ||
		!strings.Contains(helm.Detail, "1 not read: "+ns+"/sh.helm.release.v1.bomb.v1: decompresses to more than 16 MiB") ||
		strings.Contains(helm.Detail, "web.v1") {
		t.Errorf("check %s = %s (required %v): %s; want partial, not required, naming the bomb release and not web's older revision",
			helm.Name, helm.Status, helm.Required, helm.Detail)
	}
	var web []string
	for _, o := range facts.Inventory.Objects {
		if strings.HasPrefix(o.File, ns+"/") {
			web = append(web, o.File+" "+o.Kind+" "+o.Name)
		}
	}
	if want := ns + "/sh.helm.release.v1.web.v2#release Deployment web"; strings.Join(web, ",") != want {
		t.Errorf("objects of the releases of %s: %d, the first %.200q; want %s", ns, len(web), strings.Join(web, ","), want)
	}
}
