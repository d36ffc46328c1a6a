package helmengine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const miniChart = "testdata/chart/mini"

func loadMini(t *testing.T) *Chart {
	t.Helper()
	c, err := LoadChart(miniChart)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// writeValues writes values files into a temporary folder and returns
// them as Files and as paths (for Helm).
func writeValues(t *testing.T, docs ...string) ([]File, []string) {
	t.Helper()
	dir := t.TempDir()
	var files []File
	var paths []string
	for i, d := range docs {
		p := filepath.Join(dir, string(rune('a'+i))+".yaml")
		if err := os.WriteFile(p, []byte(d), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, File{Name: p, Data: []byte(d)})
		paths = append(paths, p)
	}
	return files, paths
}

func TestChartValuesEqualHelmTemplate(t *testing.T) {
	tests := []struct {
		name  string
		files []string
	}{
		{"the chart's defaults alone", nil},
		{"a file overriding a value and a unit", []string{"name: other\nunits: {c: {enabled: true}}\n"}},
		{"a null deleting a default unit", []string{"units: {c: null}\n"}},
		{"two files merged in order", []string{"name: one\n", "name: two\ngreeting: '{{ .Values.name | upper }}'\n"}},
	}
	c := loadMini(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files, paths := writeValues(t, tt.files...)
			opts := ChartOptions{Namespace: conformanceNamespace, SkipSchemaValidation: true}
			got, err := c.Values(context.Background(), files, opts)
			if err != nil {
				t.Fatalf("Values: %v", err)
			}
			want, err := helmTemplate(context.Background(), miniChart, paths)
			if err != nil {
				t.Fatalf("helm template: %v", err)
			}
			if diff := cmp.Diff(want, got.Values); diff != "" {
				t.Errorf("Values differs from helm template's Secret (-helm +ours):\n%s", diff)
			}
			opts.Validate = true
			full, err := c.Values(context.Background(), files, opts)
			if err != nil {
				t.Fatalf("Values with Validate: %v", err)
			}
			if diff := cmp.Diff(want, full.Values); diff != "" {
				t.Errorf("Values with Validate differs from helm template's Secret (-helm +ours):\n%s", diff)
			}
		})
	}
}

func TestChartValuesSchema(t *testing.T) {
	c := loadMini(t)
	_, err := c.Values(context.Background(), nil, ChartOptions{})
	var se *SchemaError
	if !errors.As(err, &se) {
		t.Fatalf("Values error = %v, want a *SchemaError", err)
	}
	if len(se.Problems) != 1 || !strings.Contains(se.Problems[0], "/cluster_virtual_ip") {
		t.Errorf("SchemaError.Problems = %q, want one naming /cluster_virtual_ip", se.Problems)
	}
	if !strings.Contains(err.Error(), "--skip-schema-validation") {
		t.Errorf("schema error %q does not name the flag that skips it", err)
	}
	files, _ := writeValues(t, "cluster_virtual_ip: 10.0.0.1\n")
	if _, err := c.Values(context.Background(), files, ChartOptions{}); err != nil {
		t.Errorf("Values with a valid IP: %v", err)
	}
}

func TestChartValuesErrors(t *testing.T) {
	tests := []struct {
		name      string
		values    string
		validate  bool
		wantPath  string
		wantInMsg string
	}{
		{"a failing gotpl value names its path", "greeting: '{{ fail \"boom\" }}'\n", false, "values.greeting", "boom"},
		{"a check made while rendering a unit runs with Validate", "units: {a: {depends_on: null}}\n", true, "", "unit a needs depends_on"},
		{"a unit that unit-enabled rejects fails the reduced render as in Helm", "units: {zz: null}\n", false, "", "no unit zz"},
	}
	c := loadMini(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files, _ := writeValues(t, tt.values)
			opts := ChartOptions{SkipSchemaValidation: true, Validate: tt.validate}
			_, err := c.Values(context.Background(), files, opts)
			var ce *ChartError
			if !errors.As(err, &ce) {
				t.Fatalf("Values error = %v, want a *ChartError", err)
			}
			if ce.Path != tt.wantPath || !strings.Contains(ce.Message, tt.wantInMsg) {
				t.Errorf("ChartError = {Path: %q, Message: %q}, want path %q and %q in the message", ce.Path, ce.Message, tt.wantPath, tt.wantInMsg)
			}
			if !tt.validate {
				return
			}
			opts.Validate = false
			if _, err := c.Values(context.Background(), files, opts); err != nil {
				t.Errorf("Values without Validate: %v (the reduced render does not run per-unit checks)", err)
			}
		})
	}
}

func TestChartLookupIsServedFromTheSource(t *testing.T) {
	c := loadMini(t)
	files, _ := writeValues(t, "release: '{{ lookup \"v1\" \"ConfigMap\" .Release.Namespace \"sylva-units-status\" | dig \"data\" \"sylva_release\" \"none\" }}'\n")
	opts := ChartOptions{SkipSchemaValidation: true}
	res, err := c.Values(context.Background(), files, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Values["release"]; got != "none" {
		t.Errorf("release without a status = %v, want none", got)
	}
	opts.Source = NewObjects(statusCM(map[string]any{"sylva_release": "1.6"}))
	if res, err = c.Values(context.Background(), files, opts); err != nil {
		t.Fatal(err)
	}
	if got := res.Values["release"]; got != "1.6" {
		t.Errorf("release with a status = %v, want 1.6", got)
	}
}

func TestChartEvalAndRender(t *testing.T) {
	c := loadMini(t)
	opts := ChartOptions{SkipSchemaValidation: true}
	got, err := c.Eval(context.Background(), nil, opts, `{{ include "unit-def" (tuple . "b") }}`)
	if err != nil {
		t.Fatal(err)
	}
	if got != `{"enabled":"true"}` {
		t.Errorf("Eval unit-def b = %s, want the interpreted unit", got)
	}
	m, err := c.Render(context.Background(), nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range m.Objects {
		names = append(names, o["kind"].(string)+"/"+o["metadata"].(map[string]any)["name"].(string))
	}
	want := []string{"Secret/sylva-units-values", "ConfigMap/status", "ConfigMap/unit-a", "ConfigMap/unit-b"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("Render objects (-want +got):\n%s", diff)
	}
}

func TestChartValuesIsDeterministic(t *testing.T) {
	c := loadMini(t)
	var outs []string
	for range 2 {
		res, err := c.Values(context.Background(), nil, ChartOptions{SkipSchemaValidation: true})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := WriteYAML(&b, res.Values); err != nil {
			t.Fatal(err)
		}
		outs = append(outs, b.String())
	}
	if outs[0] != outs[1] {
		t.Errorf("two renders differ:\n%s\n%s", outs[0], outs[1])
	}
}
