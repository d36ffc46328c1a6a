package sylvacore_test

import (
	"os"
	"path/filepath"
	"testing"

	"gitlab.com/sylva-projects/sylva-planner/internal/sylvacore"
)

func TestEveryBundleRefHasTheSylvaUnitsChart(t *testing.T) {
	for _, tr := range sylvacore.Trees(t) {
		if _, err := os.Stat(filepath.Join(tr.Chart(), "Chart.yaml")); err != nil {
			t.Errorf("%s (%s): %v", tr.Ref, tr.Commit, err)
		}
	}
}

func TestTheSameRefIsExtractedOnce(t *testing.T) {
	a := sylvacore.At(t, "main")
	b := sylvacore.At(t, "main")
	if a != b {
		t.Errorf("At(main) = %+v, then %+v", a, b)
	}
}
