package reconciler

import (
	"io"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"

	"gitlab.com/sylva-projects/sylva-planner/planner"
)

// NamespacedPlan is the plan of the release of one namespace.
type NamespacedPlan struct {
	Namespace string
	Plan      *planner.Plan
}

// WriteFleetGateMetrics writes the gate's gauges of each plan to w in the
// Prometheus text format, labelled by its namespace as the controller
// serves them (families sorted by name, series by label values); a nil
// plan writes nothing for its namespace. The caller writes the file.
func WriteFleetGateMetrics(w io.Writer, plans []NamespacedPlan) error {
	g := NewGateGauges("namespace")
	for _, np := range plans {
		if np.Plan != nil {
			g.Set(np.Plan, np.Namespace)
		}
	}
	return writeGauges(w, g)
}

// writeGauges gathers c in a registry of its own and writes it in the
// text format.
func writeGauges(w io.Writer, c prometheus.Collector) error {
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(c); err != nil {
		return err
	}
	mfs, err := reg.Gather()
	if err != nil {
		return err
	}
	for _, mf := range mfs {
		if _, err := expfmt.MetricFamilyToText(w, mf); err != nil {
			return err
		}
	}
	return nil
}
