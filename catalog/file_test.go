package catalog_test

import (
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/envelope"
)

func TestACatalogWrittenAsOneDocumentLoadsBackUnchanged(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	md := envelope.NewMetadata("test", cat.Version, time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC))
	data, err := yaml.Marshal(cat.File(md))
	if err != nil {
		t.Fatal(err)
	}
	back, err := catalog.LoadFile(fstest.MapFS{"catalog.yaml": {Data: data}}, "catalog.yaml")
	if err != nil {
		t.Fatalf("LoadFile(catalog list -o yaml) error = %v", err)
	}
	if diff := cmp.Diff(cat.File(md), back.File(md), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("catalog after a round trip (-want +got):\n%s", diff)
	}
}

func TestACatalogDocumentRefusesAFieldOfNoKind(t *testing.T) {
	doc := "apiVersion: planner.sylva/v1alpha1\nkind: ReleaseCatalog\ncatalogVersion: x\nupdated: \"2026-01-01\"\ncomponents: []\nreleases: []\n"
	if _, err := catalog.LoadFile(fstest.MapFS{"r.yaml": {Data: []byte(doc)}}, "r.yaml"); err == nil {
		t.Error("LoadFile(ReleaseCatalog with components) succeeded, want the unknown field refused")
	}
}
