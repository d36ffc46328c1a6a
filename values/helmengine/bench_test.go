package helmengine

import (
	"context"
	"fmt"
	"os"
	"testing"

	"gitlab.com/sylva-projects/sylva-planner/internal/benchcpu"
	"gitlab.com/sylva-projects/sylva-planner/internal/sylvacore"
	"gitlab.com/sylva-projects/sylva-planner/internal/valuestest"
)

// benchValues is a synthetic sylva-units-like values tree: units units,
// perUnit gotpl strings in each (10 per unit gives 2,000 for 200 units),
// mixing sprig calls, .Values reads and a lookup of the status ConfigMap.
func benchValues(units, total int) map[string]any {
	us := map[string]any{}
	per := total / units
	for i := range units {
		u := map[string]any{
			"info":    map[string]any{"description": fmt.Sprintf("unit %d", i)},
			"enabled": true,
		}
		for j := range per {
			// Every string is distinct (it names its unit), as in real values.
			var s string
			switch j % 5 {
			case 0:
				s = fmt.Sprintf(`{{ .Values.cluster.name | upper }}-unit-%d`, i)
			case 1:
				s = fmt.Sprintf(`{{ has "unit-%d" (list "unit-1" "unit-2") }}`, i)
			case 2:
				s = fmt.Sprintf(`{{ lookup "v1" "ConfigMap" .Release.Namespace "sylva-units-status" | dig "data" "sylva_release" "unit-%d" }}`, i)
			case 3:
				s = fmt.Sprintf(`{{ printf "%%s-%%d-%%d" .Release.Namespace %d %d }}`, i, j)
			case 4:
				s = fmt.Sprintf(`{{ .Values.k8s_version_map | keys | sortAlpha | join "," }}{{ if gt %d 100 }}-high{{ end }}`, i)
			}
			u[fmt.Sprintf("v%02d", j)] = s
		}
		us[fmt.Sprintf("unit-%03d", i)] = u
	}
	return map[string]any{
		"cluster":         map[string]any{"name": "management"},
		"k8s_version_map": map[string]any{"1.32": "v1.32.9", "1.33": "v1.33.5"},
		"units":           us,
	}
}

// BenchmarkRender renders 200 units with 2,000 gotpl strings, as `values
// render` does.
func BenchmarkRender(b *testing.B) {
	vals := benchValues(200, 2000)
	src := NewObjects(statusCM(map[string]any{"sylva_release": "1.5"}))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := Render(ctx, vals, RenderOptions{Source: src, KubeVersion: "1.33"})
		if err != nil {
			b.Fatal(err)
		}
		if res.Templates != 2000 {
			b.Fatalf("rendered %d templates", res.Templates)
		}
	}
}

// TestWriteBenchValues writes the benchmark's values file for
// hack/bench-values-render.sh when SYLVA_PLANNER_BENCH_VALUES names a path.
func TestWriteBenchValues(t *testing.T) {
	path := os.Getenv("SYLVA_PLANNER_BENCH_VALUES")
	if path == "" {
		t.Skip("SYLVA_PLANNER_BENCH_VALUES is not set")
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	if err := WriteYAML(f, benchValues(200, 2000)); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkChartRenders measures, on sylva-core main's chart with its
// management values and Longhorn enabled, one render of each kind values
// check --chart and values render --chart make: Values (the values Secret
// alone), RenderUnits (what a check scenario reads) and Render (the whole
// chart, as helm template).
func BenchmarkChartRenders(b *testing.B) {
	tr := sylvacore.At(b, "main")
	c, err := LoadChart(tr.Chart())
	if err != nil {
		b.Fatal(err)
	}
	files := append(valuestest.ReadFiles[File](b, tr.Chart(), "values.yaml", "management.values.yaml"), longhornEnabled)
	opts := ChartOptions{SkipSchemaValidation: true}
	ctx := context.Background()
	b.Run("Values", func(b *testing.B) {
		for b.Loop() {
			if _, err := c.Values(ctx, files, opts); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("RenderUnits", func(b *testing.B) {
		for b.Loop() {
			if _, err := c.RenderUnits(ctx, files, opts, checkUnits...); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Render", func(b *testing.B) {
		for b.Loop() {
			if _, err := c.Render(ctx, files, opts); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkChartUnits is the chart's resolution of every unit that
// prune-audit --chart makes, on sylva-core main's chart with its management
// values. It reports the process's CPU time per resolution (cpu-s/op).
func BenchmarkChartUnits(b *testing.B) {
	tr := sylvacore.At(b, "main")
	c, err := LoadChart(tr.Chart())
	if err != nil {
		b.Fatal(err)
	}
	files := valuestest.ReadFiles[File](b, tr.Chart(), "values.yaml", "management.values.yaml")
	ctx := context.Background()
	defer benchcpu.Report(b)()
	for b.Loop() {
		if _, err := c.Units(ctx, files, ChartOptions{SkipSchemaValidation: true}); err != nil {
			b.Fatal(err)
		}
	}
}
