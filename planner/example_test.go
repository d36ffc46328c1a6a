package planner_test

import (
	"fmt"
	"time"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
)

func ExampleCompute() {
	cat, _ := catalog.Default()
	p, err := planner.Compute(planner.Input{
		Catalog: cat,
		From:    semver.MustParse("1.4"),
		To:      semver.MustParse("1.6"),
		AsOf:    time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC),
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Summary.Line)
	// Output:
	// 2 passes · control plane 1.31 → 1.32 → 1.33 · workers roll 2 times (1.31 → 1.32 → 1.33) · Longhorn 1.8.1 → 1.9.2
}
