package overlay

import (
	"encoding/json"
	"fmt"
	"strconv"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
)

// HopSource is the release the last hop of p starts from.
func HopSource(p *planner.Plan) string {
	if len(p.Route) < 2 {
		return ""
	}
	return RouteRelease(p, len(p.Route)-2)
}

// RouteRelease is the release at index i of p's route, as major.minor.
func RouteRelease(p *planner.Plan, i int) string {
	v, err := semver.Parse(p.Route[i])
	if err != nil {
		return p.Route[i]
	}
	return v.Short()
}

// LastHop returns the passes of p applied by the chart of its target.
func LastHop(p *planner.Plan) []planner.Pass {
	var out []planner.Pass
	for _, pass := range p.Passes {
		if pass.Release == p.To.Release {
			out = append(out, pass)
		}
	}
	return out
}

// FinalValues are the helper values the chart of the plan's target must
// end with: those of the last pass of its hop, or the catalog's settled
// values when the plan has no pass on that chart.
func FinalValues(p *planner.Plan, cat *catalog.Catalog, to semver.Version) (map[string]string, error) {
	if hop := LastHop(p); len(hop) > 0 {
		return passValues(hop[len(hop)-1])
	}
	if rel, ok := cat.Release(to.MinorOnly()); ok {
		return settledValues(rel), nil
	}
	return map[string]string{}, nil
}

// passValues returns the plan's values of a pass as the strings a
// rendered gotpl value would give, by value name.
func passValues(p planner.Pass) (map[string]string, error) {
	return PassValues(p.Values)
}

// PassValues returns the helper values v as the strings a rendered gotpl
// value gives ("true"/"false" for booleans), by value name; an empty
// Longhorn version is left out.
func PassValues(v planner.Values) (map[string]string, error) {
	return flatten(v)
}

// StatusValues returns the status a pass expects as the strings the
// status ConfigMap holds, by key.
func StatusValues(s planner.ExpectedStatus) (map[string]string, error) {
	return flatten(s)
}

// flatten encodes a struct as JSON and returns its top-level fields as
// strings (bools as "true"/"false").
func flatten(v any) (map[string]string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode %T: %w", v, err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("decode %T: %w", v, err)
	}
	out := make(map[string]string, len(m))
	for k, x := range m {
		out[k] = ScalarString(x)
	}
	return out, nil
}

// ScalarString is a value as PassValues gives it: the string a rendered
// gotpl value gives ("true"/"false" for booleans, numbers as written,
// nil as "").
func ScalarString(x any) string {
	switch t := x.(type) {
	case nil:
		return ""
	case string:
		return t
	case bool:
		return strconv.FormatBool(t)
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64)
	}
	return fmt.Sprint(x)
}

// settledValues are the values of a release nobody upgrades into (no
// supported source): its own versions, no transition.
func settledValues(rel *catalog.Release) map[string]string {
	v := map[string]string{
		KeySylvaRelease:                     rel.Release.Short(),
		KeyTransitionFromN2:                 "false",
		KeyK8sVersionShort:                  rel.Kubernetes.Management.Short(),
		KeyAdditionalReconciliationRequired: "false",
	}
	if rel.HoldsWorkers() {
		v[KeyMachineDeploymentsPaused] = "false"
	}
	if c, ok := rel.Component("longhorn"); ok {
		v[KeyLonghornVersion] = c.Version.String()
	}
	return v
}
