package main

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCommittedKnowledgeBaseMatchesTheGenerator(t *testing.T) {
	got, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../../data/removed.json")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("removedapis/data/removed.json is out of date; run `go generate ./removedapis` (-committed +generated):\n%s", diff)
	}
}

func TestEverySupplementEntryCitesTheMigrationGuide(t *testing.T) {
	for _, a := range supplement {
		if !strings.HasPrefix(a.Source, guide+"#v1-") || a.Removed == "" {
			t.Errorf("supplement %s %s: source %q, removed %q", a.APIVersion(), a.Kind, a.Source, a.Removed)
		}
	}
}
