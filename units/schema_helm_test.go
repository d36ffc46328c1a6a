package units_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/google/go-cmp/cmp"
	"helm.sh/helm/v3/pkg/chartutil"
	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/internal/sylvacore"
	"gitlab.com/sylva-projects/sylva-planner/units"
)

// realValues returns the ref's values.yaml as Helm reads it. Helm v3.22's
// validator no longer asserts "format", so on main the chart's own
// cluster_virtual_ip "" matches both branches of its oneOf (format: ipv4,
// enum [""]) and every values file fails; the document sets it to a
// documentation address, which matches only the ipv4 branch on every ref.
func realValues(t *testing.T, tree sylvacore.Tree) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(tree.Chart(), "values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := yaml.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	v["cluster_virtual_ip"] = "192.0.2.10"
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// marked returns the values with info.transitional-unit set on the real
// units named in tu.
func marked(t *testing.T, values []byte, tu map[string]any) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(values, &v); err != nil {
		t.Fatal(err)
	}
	for name, val := range tu {
		u, _ := v["units"].(map[string]any)[name].(map[string]any)
		info, _ := u["info"].(map[string]any)
		if info == nil {
			t.Fatalf("units.%s.info missing", name)
		}
		info[units.TransitionalKey] = val
	}
	return v
}

func TestSchemaPatchIsAcceptedByHelmOnEveryRef(t *testing.T) {
	patch, err := jsonpatch.DecodePatch([]byte(units.SchemaPatch))
	if err != nil {
		t.Fatalf("SchemaPatch is not a JSON Patch: %v", err)
	}
	for _, tree := range sylvacore.Trees(t) {
		t.Run(tree.Ref, func(t *testing.T) {
			schema, err := os.ReadFile(filepath.Join(tree.Chart(), "values.schema.json"))
			if err != nil {
				t.Fatal(err)
			}
			// The printed patch applies with a standard JSON Patch
			// implementation, and PatchSchema gives the same schema.
			viaLib, err := patch.Apply(schema)
			if err != nil {
				t.Fatalf("apply SchemaPatch to %s's values.schema.json: %v", tree.Ref, err)
			}
			viaUnits, err := units.PatchSchema(schema)
			if err != nil {
				t.Fatalf("PatchSchema() error = %v", err)
			}
			var a, b any
			if err := json.Unmarshal(viaLib, &a); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(viaUnits, &b); err != nil {
				t.Fatalf("PatchSchema() output is not JSON: %v", err)
			}
			if diff := cmp.Diff(a, b); diff != "" {
				t.Errorf("PatchSchema() differs from the JSON Patch applied by a library (-patch +PatchSchema):\n%s", diff)
			}
			assertOnlyLinesAdded(t, schema, viaUnits)
			if _, err := units.PatchSchema(viaUnits); !errors.Is(err, units.ErrSchemaLayout) {
				t.Errorf("PatchSchema(patched) error = %v, want ErrSchemaLayout (already patched)", err)
			}

			values := realValues(t, tree)
			validate := func(s []byte, tu map[string]any) error {
				return chartutil.ValidateAgainstSingleSchema(marked(t, values, tu), s)
			}
			good := map[string]any{"cert-manager": "from-1.4"}
			if err := validate(schema, nil); err != nil {
				t.Fatalf("the real values do not validate against the ref's own schema: %v", err)
			}
			if err := validate(schema, good); err == nil || !strings.Contains(err.Error(), units.TransitionalKey) {
				t.Errorf("unpatched schema with info.transitional-unit: error = %v, want a rejection naming %s", err, units.TransitionalKey)
			}
			if err := validate(viaUnits, nil); err != nil {
				t.Errorf("patched schema rejects the real values: %v", err)
			}
			if err := validate(viaUnits, good); err != nil {
				t.Errorf("patched schema rejects info.transitional-unit: from-1.4: %v", err)
			}
			// Each malformed value on its own real unit, validated at once:
			// Helm reports every failing path.
			bad := map[string]any{"cert-manager": "1.4", "flux-system": "from-banana", "kyverno": "from-1", "capi": "from-1.4.2", "calico": 1.4, "metallb": true}
			err = validate(viaUnits, bad)
			for name, val := range bad {
				if err == nil || !strings.Contains(err.Error(), "/units/"+name+"/info/"+units.TransitionalKey) {
					t.Errorf("patched schema accepts info.transitional-unit: %v (on units.%s): error = %v", val, name, err)
				}
			}
		})
	}
}

// assertOnlyLinesAdded checks that patched is orig with lines inserted and
// one comma appended: a reviewable diff.
func assertOnlyLinesAdded(t *testing.T, orig, patched []byte) {
	t.Helper()
	o := strings.Split(string(orig), "\n")
	p := strings.Split(string(patched), "\n")
	i := 0
	for i < len(o) && o[i] == p[i] {
		i++
	}
	if i == len(o) || p[i] != o[i]+"," {
		t.Fatalf("patched schema changes line %d instead of adding after it", i+1)
	}
	added := len(p) - len(o)
	if added <= 0 || strings.Join(o[i+1:], "\n") != strings.Join(p[i+1+added:], "\n") {
		t.Errorf("patched schema differs from the original beyond %d added lines", added)
	}
	if !bytes.Contains(patched, []byte(`"`+units.TransitionalKey+`": {`)) {
		t.Errorf("patched schema has no %q property", units.TransitionalKey)
	}
}

func TestPatchSchemaRefusesOtherLayouts(t *testing.T) {
	tests := []struct{ name, schema string }{
		{"no $defs", `{"properties": {}}`},
		{"unit_info without properties", `{"$defs": {"unit_info": {"type": "object"}}}`},
		{"already patched", `{"$defs": {"unit_info": {"properties": {"transitional-unit": {}}}}}`},
		{"properties at another path", `{"$defs": {"x": {"unit_info": {"properties": {}}}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := units.PatchSchema([]byte(tt.schema)); !errors.Is(err, units.ErrSchemaLayout) {
				t.Errorf("PatchSchema(%s) error = %v, want ErrSchemaLayout", tt.schema, err)
			}
		})
	}
	got, err := units.PatchSchema([]byte("{\"$defs\": {\"unit_info\": {\"properties\": {}}}}"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(got, &m); err != nil {
		t.Fatalf("PatchSchema(empty properties) = %s, not JSON: %v", got, err)
	}
}
