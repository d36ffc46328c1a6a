package catalog

import (
	"io/fs"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

// twoPasses decodes a file as add does without decodeOnce: the header,
// then the shape of its kind, strictly.
func twoPasses(t *testing.T, data []byte) (fileHeader, File) {
	t.Helper()
	var h fileHeader
	if err := yaml.Unmarshal(data, &h); err != nil {
		t.Fatal(err)
	}
	var f File
	switch h.Kind {
	case KindReleases:
		var rf releasesFile
		if err := yaml.UnmarshalStrict(data, &rf); err != nil {
			t.Fatal(err)
		}
		f.Releases = rf.Releases
	case KindComponents:
		var cf componentsFile
		if err := yaml.UnmarshalStrict(data, &cf); err != nil {
			t.Fatal(err)
		}
		f.Components, f.Kubernetes = cf.Components, cf.Kubernetes
	default:
		t.Fatalf("kind %q", h.Kind)
	}
	return h, f
}

func TestOnePassDecodesTheEmbeddedFilesAsTheTwoPasses(t *testing.T) {
	for _, name := range []string{"data/releases.yaml", "data/components.yaml"} {
		data, err := fs.ReadFile(embedded, name)
		if err != nil {
			t.Fatal(err)
		}
		h, f, ok := decodeOnce(data)
		if !ok {
			t.Fatalf("%s: not decoded in one pass", name)
		}
		wh, wf := twoPasses(t, data)
		if diff := cmp.Diff(wh, h); diff != "" {
			t.Errorf("%s header (-two passes +one):\n%s", name, diff)
		}
		if diff := cmp.Diff(wf, f); diff != "" {
			t.Errorf("%s (-two passes +one):\n%s", name, diff)
		}
		if len(f.Releases)+len(f.Components) == 0 {
			t.Errorf("%s: nothing decoded", name)
		}
	}
}

// A file the one pass cannot take is left to the two passes, which say
// what is wrong.
func TestOnePassLeavesOtherFilesToTheTwoPasses(t *testing.T) {
	for name, data := range map[string]string{
		"field of another kind": header + "kind: ReleaseCatalog\nreleases: []\ncomponents: []\n",
		"kind not named":        header + "kind: \"ReleaseCatalog\"\nreleases: []\n",
		"one-document catalog":  header + "kind: Catalog\nreleases: []\ncomponents: []\n",
		"not YAML":              "kind: ReleaseCatalog\n\t- [",
	} {
		if _, _, ok := decodeOnce([]byte(data)); ok {
			t.Errorf("%s: decoded in one pass", name)
		}
	}
}

func BenchmarkLoadEmbedded(b *testing.B) {
	sub, err := fs.Sub(embedded, "data")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(sub); err != nil {
			b.Fatal(err)
		}
	}
}
