package overlay

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/internal/catalogtest"
	"gitlab.com/sylva-projects/sylva-planner/internal/kubetest"
	"gitlab.com/sylva-projects/sylva-planner/internal/sylvacore"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/yamldoc"
)

// The kustomize Component of the overlay, listed under components: of
// sylva-core's environment-values/kubeadm-capd example (main), builds with
// kustomize into a HelmRelease whose last valuesFrom entry is the
// overlay's ConfigMap, after the environment's own values, and a ConfigMap
// in sylva-system holding the overlay exactly as values generate writes it
// (with the environment's labels).
func TestKustomizeComponentAppendsTheOverlayLast(t *testing.T) {
	if testing.Short() {
		t.Skip("runs kustomize on sylva-core's environment-values")
	}
	bin := filepath.Join(kubetest.Dir(), "kustomize")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("no kustomize at %s: build it with make tools (bash hack/build-tools.sh kustomize)", bin)
	}
	g, err := Generate(input12To14(t))
	if err != nil {
		t.Fatal(err)
	}
	files, err := g.Kustomize(releaseNamespace)
	if err != nil {
		t.Fatal(err)
	}
	var overlay bytes.Buffer
	if err := g.WriteYAML(&overlay); err != nil {
		t.Fatal(err)
	}

	root := t.TempDir()
	src := filepath.Join(sylvacore.At(t, "main").Dir, "environment-values")
	for _, dir := range []string{"base", "kubeadm-capd"} {
		if err := os.CopyFS(filepath.Join(root, dir), os.DirFS(filepath.Join(src, dir))); err != nil {
			t.Fatal(err)
		}
	}
	comp := filepath.Join(root, "transition")
	if err := os.Mkdir(comp, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(comp, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	kpath := filepath.Join(root, "kubeadm-capd", "kustomization.yaml")
	k, err := os.ReadFile(kpath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(k, []byte("\ncomponents: []\n")) {
		t.Fatalf("environment-values/kubeadm-capd/kustomization.yaml has no `components: []` to list the component under:\n%s", k)
	}
	k = bytes.Replace(k, []byte("\ncomponents: []\n"), []byte("\ncomponents:\n  - ../transition\n"), 1)
	if err := os.WriteFile(kpath, k, 0o644); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(bin, "build", filepath.Join(root, "kubeadm-capd"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("kustomize build: %v\n%s", err, stderr.String())
	}
	var hr, cm map[string]any
	for _, doc := range yamldoc.Split(out) {
		var o map[string]any
		if err := yaml.Unmarshal(doc, &o); err != nil {
			t.Fatal(err)
		}
		name, _ := stringAt(o, "metadata", "name")
		switch {
		case o["kind"] == "HelmRelease" && name == "sylva-units":
			hr = o
		case o["kind"] == "ConfigMap" && name == KustomizeConfigMap:
			cm = o
		}
	}
	if hr == nil || cm == nil {
		t.Fatalf("kustomize build gives no HelmRelease sylva-units (%v) or ConfigMap %s (%v):\n%s", hr != nil, KustomizeConfigMap, cm != nil, out)
	}
	from, _ := yamldoc.Dig(hr, "spec", "valuesFrom")
	list, _ := from.([]any)
	if len(list) < 2 {
		t.Fatalf("HelmRelease valuesFrom = %v, want the environment's entries then the overlay's", from)
	}
	want := map[string]any{"kind": "ConfigMap", "name": KustomizeConfigMap, "valuesKey": KustomizeValuesKey}
	if diff := cmp.Diff(want, list[len(list)-1]); diff != "" {
		t.Errorf("last valuesFrom entry (-want +got):\n%s", diff)
	}
	for _, e := range list[:len(list)-1] {
		if e.(map[string]any)["name"] == KustomizeConfigMap {
			t.Errorf("valuesFrom lists %s before its end: %v", KustomizeConfigMap, list)
		}
	}
	if ns, _ := stringAt(cm, "metadata", "namespace"); ns != releaseNamespace {
		t.Errorf("ConfigMap %s namespace = %q, want %q (the HelmRelease's)", KustomizeConfigMap, ns, releaseNamespace)
	}
	if hns, _ := stringAt(hr, "metadata", "namespace"); hns != releaseNamespace {
		t.Errorf("HelmRelease namespace = %q, want %q", hns, releaseNamespace)
	}
	if _, ok := yamldoc.Dig(cm, "metadata", "labels", "copy-from-bootstrap-to-management"); !ok {
		t.Errorf("ConfigMap %s lacks the environment's label copy-from-bootstrap-to-management: %v", KustomizeConfigMap, cm["metadata"])
	}
	// The values are the overlay under the line marking the file
	// generated (a YAML comment, which Helm reads past).
	data, _ := stringAt(cm, "data", KustomizeValuesKey)
	if diff := cmp.Diff(string(stampKustomize(overlay.Bytes())), data); diff != "" {
		t.Errorf("ConfigMap %s data.%s is not the overlay under its marker line (-want +got):\n%s", KustomizeConfigMap, KustomizeValuesKey, diff)
	}
	if !strings.Contains(data, StateKey) {
		t.Errorf("ConfigMap data holds no %s", StateKey)
	}
}

func input12To14(t testing.TB) planner.Input {
	t.Helper()
	return planner.Input{Catalog: catalogtest.With12To14(t), From: semver.MustParse("1.2"), To: semver.MustParse("1.4"), FromSource: "flag", ToolVersion: "test"}
}

func stringAt(m map[string]any, path ...string) (string, bool) {
	v, ok := yamldoc.Dig(m, path...)
	if !ok {
		return "", false
	}
	s, ok := v.(string)
	return s, ok
}

// releaseNamespace is the namespace of the sylva-units HelmRelease of
// sylva-core's environment-values.
const releaseNamespace = "sylva-system"
