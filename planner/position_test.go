package planner_test

import (
	"strings"
	"testing"

	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/skew"
)

func TestLocate(t *testing.T) {
	tests := []struct {
		name       string
		to         string
		pr         planner.Progress
		done, of   int
		known      bool
		nextK8s    string
		summaryHas string
	}{
		{
			"a 1.4 cluster has not started the n-2 transition", "1.6",
			planner.Progress{Found: true, Installed: skew.MustParse("1.4")},
			0, 2, true, "1.32", "pass 0 of 2 done",
		},
		{
			"after pass 1 of 1.4 → 1.6 the second pass comes next", "1.6",
			planner.Progress{Found: true, Installed: skew.MustParse("1.6"), Pending: true, TransitionFrom: "1.4", TransitionPass: "1"},
			1, 2, true, "1.33", "an additional reconciliation",
		},
		{
			"after pass 2 of 1.5 → 1.7 the third pass comes next", "1.7",
			planner.Progress{Found: true, Installed: skew.MustParse("1.7"), Pending: true, TransitionFrom: "1.5", TransitionPass: "2"},
			2, 3, true, "1.35", "pass 2 of 3 done",
		},
		{
			"a settled cluster is done", "1.6",
			planner.Progress{Found: true, Installed: skew.MustParse("1.6")},
			0, 0, true, "", "done",
		},
		{
			"a pending pass without transition keys cannot be placed", "1.6",
			planner.Progress{Found: true, Installed: skew.MustParse("1.6"), Pending: true},
			0, 0, false, "", "cannot be placed",
		},
		{
			"a fresh install has no transition", "1.6",
			planner.Progress{},
			0, 0, false, "", "fresh install",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pos, err := planner.Locate(planner.Input{Catalog: defaultCatalog(t), To: skew.MustParse(tt.to), AsOf: asOf}, tt.pr)
			if err != nil {
				t.Fatal(err)
			}
			if pos.PassesDone != tt.done || (tt.of != 0 && pos.Passes != tt.of) || pos.PassKnown != tt.known {
				t.Errorf("Locate = %d of %d (known %v), want %d of %d (known %v)", pos.PassesDone, pos.Passes, pos.PassKnown, tt.done, tt.of, tt.known)
			}
			next := ""
			if pos.Next != nil {
				next = pos.Next.Values.K8sVersionShort
			}
			if next != tt.nextK8s {
				t.Errorf("next pass k8s_version_short = %q, want %q", next, tt.nextK8s)
			}
			if !strings.Contains(pos.Summary, tt.summaryHas) {
				t.Errorf("summary %q does not contain %q", pos.Summary, tt.summaryHas)
			}
		})
	}
}
