package envelope_test

import (
	"bytes"
	"testing"
	"time"

	"gitlab.com/sylva-projects/sylva-planner/envelope"
)

type doc struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Metadata   envelope.Metadata `json:"metadata"`
	Note       string            `json:"note"`
}

func TestDocumentsCarryTheMetadataInBothFormats(t *testing.T) {
	d := doc{
		APIVersion: envelope.APIVersion, Kind: "Example",
		Metadata: envelope.NewMetadata("v1.2.3", "2026.11.0", time.Date(2026, 11, 30, 23, 59, 0, 0, time.FixedZone("east", 3600))),
		Note:     "a < b & c",
	}
	var j, y bytes.Buffer
	if err := envelope.WriteJSON(&j, d); err != nil {
		t.Fatal(err)
	}
	if err := envelope.WriteYAML(&y, d); err != nil {
		t.Fatal(err)
	}
	wantJSON := `{
  "apiVersion": "planner.sylva/v1alpha1",
  "kind": "Example",
  "metadata": {
    "toolVersion": "v1.2.3",
    "catalogVersion": "2026.11.0",
    "asOf": "2026-11-30"
  },
  "note": "a < b & c"
}
`
	wantYAML := `apiVersion: planner.sylva/v1alpha1
kind: Example
metadata:
  asOf: "2026-11-30"
  catalogVersion: 2026.11.0
  toolVersion: v1.2.3
note: a < b & c
`
	if j.String() != wantJSON {
		t.Errorf("WriteJSON =\n%s\nwant\n%s", j.String(), wantJSON)
	}
	if y.String() != wantYAML {
		t.Errorf("WriteYAML =\n%s\nwant\n%s", y.String(), wantYAML)
	}
}
