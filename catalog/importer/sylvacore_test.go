package importer_test

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/catalog/importer"
	"gitlab.com/sylva-projects/sylva-planner/ci"
	"gitlab.com/sylva-projects/sylva-planner/internal/sylvacore"
)

var (
	bundleOnce    sync.Once
	bundleResults []*importer.Result
	bundleErr     error
)

// importBundle imports every bundle ref once per test binary.
func importBundle(t *testing.T) []*importer.Result {
	t.Helper()
	if os.Getenv(sylvacore.EnvDir) != "" {
		t.Skip("the import test needs the bundle's refs; SYLVA_CORE_DIR names a single checkout")
	}
	repo := ci.Checkout{Dir: sylvacore.Repo(t)}
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	bundleOnce.Do(func() {
		ctx := context.Background()
		var refs []importer.Ref
		for _, name := range sylvacore.BundleRefs {
			commit, err := repo.Resolve(ctx, name)
			if err != nil {
				bundleErr = err
				return
			}
			refs = append(refs, importer.Ref{Name: name, Commit: commit, FS: repo.FS(ctx, commit)})
		}
		bundleResults, bundleErr = importer.ImportAll(refs, cat, nil)
	})
	if bundleErr != nil {
		t.Fatal(bundleErr)
	}
	return bundleResults
}

// summary is what one ref proves, in a comparable form.
type summary struct {
	Release     string
	Development bool
	Management  string
	K8s         []string
	Components  []string
	Units       int
}

func TestImportOfEveryBundleRef(t *testing.T) {
	got := map[string]summary{}
	for _, r := range importBundle(t) {
		s := summary{Release: r.Release.Short(), Development: r.Development, Management: r.Management.Short(), Units: len(r.Units)}
		for _, k := range r.KubeVersions {
			s.K8s = append(s.K8s, k.Minor.Short()+" "+k.Kubeadm.String()+" "+k.RKE2.String())
		}
		for _, c := range r.Components {
			s.Components = append(s.Components, c.Name+" "+c.Version.String())
		}
		got[r.Ref] = s
		for _, u := range r.Units {
			if !strings.HasPrefix(u.Source, r.Ref+":") {
				t.Errorf("%s: unit %s source %q does not name the ref", r.Ref, u.Unit, u.Source)
			}
		}
	}
	want := map[string]summary{
		"1.0.0": {
			Release: "1.0", Management: "1.27",
			K8s:        []string{"1.25 v1.25.14 v1.25.14+rke2r1", "1.26 v1.26.9 v1.26.9+rke2r1", "1.27 v1.27.6 v1.27.6+rke2r1"},
			Components: []string{"cluster-api 1.6.1", "external-secrets 0.9.13", "longhorn 1.5.3"},
			Units:      12,
		},
		"1.2.1": {
			Release: "1.2", Management: "1.29",
			K8s:        []string{"1.27 v1.27.16 v1.27.16+rke2r2", "1.28 v1.28.14 v1.28.14+rke2r1", "1.29 v1.29.9 v1.29.9+rke2r1"},
			Components: []string{"cert-manager 1.15.3", "cluster-api 1.8.3", "external-secrets 0.10.4", "flux 2.4.0", "longhorn 1.6.3"},
			Units:      14,
		},
		"1.3.10": {
			Release: "1.3", Management: "1.30",
			K8s:        []string{"1.28 v1.28.15 v1.28.15+rke2r1", "1.29 v1.29.13 v1.29.13+rke2r1", "1.30 v1.30.9 v1.30.9+rke2r1"},
			Components: []string{"cert-manager 1.15.4", "cluster-api 1.8.6", "external-secrets 0.10.4", "flux 2.4.0", "longhorn 1.7.3"},
			Units:      14,
		},
		"release-1.3": {
			Release: "1.3", Management: "1.30",
			K8s:        []string{"1.28 v1.28.15 v1.28.15+rke2r1", "1.29 v1.29.15 v1.29.15+rke2r1", "1.30 v1.30.11 v1.30.11+rke2r1"},
			Components: []string{"cert-manager 1.15.4", "cluster-api 1.8.6", "external-secrets 0.10.4", "flux 2.4.0", "longhorn 1.7.3"},
			Units:      14,
		},
		"main": {
			Release: "1.4", Development: true, Management: "1.31",
			K8s:        []string{"1.29 v1.29.15 v1.29.15+rke2r1", "1.30 v1.30.12 v1.30.12+rke2r1", "1.31 v1.31.8 v1.31.8+rke2r1"},
			Components: []string{"calico 3.29", "cert-manager 1.17.2", "cluster-api 1.9.7", "external-secrets 0.16.2", "flux 2.5.1", "longhorn 1.8.1"},
			Units:      16,
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("import of the bundle refs (-want +got):\n%s", diff)
	}
}

// TestEmbeddedCatalogIsCurrent is `make verify-catalog` as a test: the
// imported blocks of the embedded releases file are what the bundle says.
func TestEmbeddedCatalogIsCurrent(t *testing.T) {
	results := importBundle(t)
	rels, err := importer.Releases(results)
	if err != nil {
		t.Fatal(err)
	}
	notes := map[string][]importer.Note{}
	for _, r := range results {
		notes[r.Ref] = r.Notes
	}
	current, err := os.ReadFile("../data/releases.yaml")
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := importer.Update(current, rels, notes)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(current), string(fresh)); diff != "" {
		t.Errorf("catalog/data/releases.yaml is not what sylva-core says; run `make catalog` and review (-embedded +imported):\n%s", diff)
	}
}
