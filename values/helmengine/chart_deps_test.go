package helmengine

import (
	"context"
	"slices"
	"sync"
	"testing"

	"helm.sh/helm/v3/pkg/chart"
)

// conditionalChart is a chart whose subchart "extra" is rendered only when
// extra.enabled is true (its Chart.yaml condition), as helm template does.
func conditionalChart() *Chart {
	sub := &chart.Chart{
		Metadata:  &chart.Metadata{APIVersion: chart.APIVersionV2, Name: "extra", Version: "0.1.0"},
		Templates: []*chart.File{{Name: "templates/cm.yaml", Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: extra}\n")}},
	}
	parent := &chart.Chart{
		Metadata: &chart.Metadata{
			APIVersion: chart.APIVersionV2, Name: "parent", Version: "0.1.0",
			Dependencies: []*chart.Dependency{{Name: "extra", Version: "0.1.0", Condition: "extra.enabled"}},
		},
		Templates: []*chart.File{{Name: "templates/cm.yaml", Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: parent}\n")}},
		Values:    map[string]any{"extra": map[string]any{"enabled": false}},
	}
	parent.SetDependencies(sub)
	return NewChart(parent)
}

// renderedNames are the names of the objects c renders with values.
func renderedNames(c *Chart, values string) ([]string, error) {
	files := []File{{Name: "values.yaml", Data: []byte(values)}}
	m, err := c.Render(context.Background(), files, ChartOptions{SkipSchemaValidation: true})
	if err != nil {
		return nil, err
	}
	var names []string
	for _, o := range m.Objects {
		names = append(names, o["metadata"].(map[string]any)["name"].(string))
	}
	slices.Sort(names)
	return names, nil
}

// A render processes the chart's dependencies for its values (a disabled
// subchart leaves the dependency list) in its own copy: the renders after
// it, and those running beside it (values check --chart renders its
// scenarios in parallel), see the chart as loaded.
func TestChartRendersLeaveTheDependenciesAsLoaded(t *testing.T) {
	c := conditionalChart()
	without, with := []string{"parent"}, []string{"extra", "parent"}
	for _, step := range []struct {
		values string
		want   []string
	}{
		{"{}", without},
		{"{}", without},
		{"extra: {enabled: true}", with},
		{"{}", without},
		{"extra: {enabled: true}", with},
	} {
		got, err := renderedNames(c, step.values)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, step.want) {
			t.Fatalf("values %s rendered %v, want %v", step.values, got, step.want)
		}
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			values, want := "{}", without
			if i%2 == 1 {
				values, want = "extra: {enabled: true}", with
			}
			got, err := renderedNames(c, values)
			switch {
			case err != nil:
				t.Error(err)
			case !slices.Equal(got, want):
				t.Errorf("in parallel, values %s rendered %v, want %v", values, got, want)
			}
		})
	}
	wg.Wait()
}
