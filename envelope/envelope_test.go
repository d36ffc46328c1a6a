package envelope_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

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
  toolVersion: v1.2.3
  catalogVersion: 2026.11.0
  asOf: "2026-11-30"
note: a < b & c
`
	if j.String() != wantJSON {
		t.Errorf("WriteJSON =\n%s\nwant\n%s", j.String(), wantJSON)
	}
	if y.String() != wantYAML {
		t.Errorf("WriteYAML =\n%s\nwant\n%s", y.String(), wantYAML)
	}
}

// YAML keeps the fields in their JSON order and every value its JSON type:
// decoded again, it is the JSON document.
func TestYAMLIsTheJSONDocumentInItsOrder(t *testing.T) {
	v := struct {
		Z     string         `json:"z"`
		A     map[string]any `json:"a"`
		Empty map[string]any `json:"empty"`
		List  []any          `json:"list"`
	}{
		Z:     "first",
		A:     map[string]any{"b": "true", "a": "1.6", "c": "yes", "n": 3, "f": 1.5, "big": uint64(1 << 63), "e": 1e21, "null": nil},
		Empty: map[string]any{},
		List:  []any{"1", 2, false, map[string]any{"y": 1, "x": 2}},
	}
	var j, y bytes.Buffer
	if err := envelope.WriteJSON(&j, v); err != nil {
		t.Fatal(err)
	}
	if err := envelope.WriteYAML(&y, v); err != nil {
		t.Fatal(err)
	}
	back, err := yaml.YAMLToJSON(y.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var want, got any
	if err := json.Unmarshal(j.Bytes(), &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(back, &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("WriteYAML decoded = %v, want the JSON document %v\n%s", got, want, y.String())
	}
	if !strings.HasPrefix(y.String(), "z: first\na:\n  a: \"1.6\"\n") {
		t.Errorf("WriteYAML does not keep the field order, or sorts map keys otherwise:\n%s", y.String())
	}
}
