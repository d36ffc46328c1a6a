package check

import (
	"fmt"
	"maps"
	"strconv"

	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/values/overlay"
)

// scenario kinds, which decide how findings are named.
type scenarioKind int

const (
	kindFresh scenarioKind = iota
	kindPass
	kindPrerelease
	kindBranch
	kindReleaseBranch
)

// planScenario is one render a check compares with the plan.
type planScenario struct {
	kind scenarioKind
	name string
	// status is the data of the status ConfigMap before the render; nil
	// means there is none (a fresh install).
	status map[string]string
	// want is the helper values the plan expects; nil when the render
	// must only succeed.
	want map[string]string
	// pass is the plan's pass the scenario renders; nil for a fresh
	// install.
	pass *planner.Pass
	// workersVersion is the full Kubernetes version the workers run
	// before the pass ("v1.29.9"): the one the last pass that rolled them
	// set, else the one the source release maps their minor to; "" when
	// unknown.
	workersVersion string
}

// workersVersionBefore is the full Kubernetes version the workers run
// before pass (planScenario.workersVersion).
func workersVersionBefore(plan *planner.Plan, in planner.Input, pass planner.Pass) string {
	v := ""
	if len(plan.Passes) == 0 {
		return v
	}
	if rel, ok := in.Catalog.Release(in.From.MinorOnly()); ok {
		if minor, err := semver.Parse(plan.Passes[0].Workers.From); err == nil {
			if kv, ok := rel.KubeVersion(minor); ok {
				v = kv.For(catalog.Provider(plan.BootstrapProvider)).String()
			}
		}
	}
	for _, ps := range plan.Passes {
		if ps.Index >= pass.Index {
			break
		}
		if ps.Workers.Rolls {
			v = ps.ControlPlane.Version
		}
	}
	return v
}

// scenarioOptions say how walkScenarios builds the scenarios.
type scenarioOptions struct {
	// transition records the transition in the expected values
	// (transition_from and transition_pass, empty on a fresh install), as
	// values in the overlay's form write it into the status.
	transition bool
}

// walkScenarios is the pass loop both checks share. It hands render, in
// order, a fresh install of the target (the final values), then each pass
// of the last hop against the status ConfigMap as it will be before it
// (the source release's status, then the one written by the previous
// pass) and, for the first pass, the same status naming a pre-release of
// the hop's source (X.Y-pre), one naming a branch (main, which must only
// render) and one naming the source only by its release branch
// (sylva_branch release-X.Y). The status before the next pass is built from what render
// returns for a pass (see nextStatus).
func walkScenarios(plan *planner.Plan, in planner.Input, o scenarioOptions, render func(planScenario) (got, info map[string]string)) error {
	final, err := overlay.FinalValues(plan, in.Catalog, in.To)
	if err != nil {
		return err
	}
	if o.transition {
		final[overlay.KeyTransitionFrom], final[overlay.KeyTransitionPass] = "", ""
	}
	render(planScenario{kind: kindFresh, name: "fresh install of " + plan.To.Release, want: final})

	status, err := sourceStatus(plan, in.From)
	if err != nil {
		return err
	}
	for i, pass := range overlay.LastHop(plan) {
		want, err := overlay.PassValues(pass.Values)
		if err != nil {
			return err
		}
		if o.transition {
			want[overlay.KeyTransitionFrom], want[overlay.KeyTransitionPass] = overlay.HopSource(plan), strconv.Itoa(pass.HopPass)
		}
		name := fmt.Sprintf("pass %d of %d (%s → %s)", pass.HopPass, pass.HopPasses, overlay.HopSource(plan), plan.To.Release)
		wv := workersVersionBefore(plan, in, pass)
		got, info := render(planScenario{kind: kindPass, name: name, status: status, want: want, pass: &pass, workersVersion: wv})
		if i == 0 && status != nil {
			// The hop's source release as a pre-release (1.3-pre): what
			// a status written by a development chart of that line says.
			pre := maps.Clone(status)
			pre[overlay.KeySylvaRelease] = overlay.HopSource(plan) + "-pre"
			render(planScenario{kind: kindPrerelease, name: name + " from a pre-release status", status: pre, want: want, pass: &pass, workersVersion: wv})
			branch := maps.Clone(status)
			branch[overlay.KeySylvaRelease] = "main"
			render(planScenario{kind: kindBranch, name: name + " from a status naming a branch", status: branch, pass: &pass, workersVersion: wv})
			// The hop's source named only by its release branch
			// (sylva_branch: release-1.5, no sylva_release), as a
			// development chart of that branch writes it: the release
			// status.Status.Release reads.
			byBranch := maps.Clone(status)
			delete(byBranch, overlay.KeySylvaRelease)
			byBranch[overlay.KeySylvaBranch] = "release-" + overlay.HopSource(plan)
			render(planScenario{kind: kindReleaseBranch, name: name + " from a status naming its release branch", status: byBranch, want: want, pass: &pass, workersVersion: wv})
		}
		if status, err = nextStatus(pass, got, info); err != nil {
			return err
		}
	}
	return nil
}

// sourceStatus is the status ConfigMap data before the first pass of the
// last hop: the previous hop's last expected status, or the source
// release's own (no sylva_release up to overlay.LegacyRelease).
func sourceStatus(plan *planner.Plan, from semver.Version) (map[string]string, error) {
	var prev *planner.Pass
	for i := range plan.Passes {
		if plan.Passes[i].Release != plan.To.Release {
			prev = &plan.Passes[i]
		}
	}
	if prev != nil {
		return overlay.StatusValues(prev.ExpectedStatus)
	}
	st := map[string]string{"release-revision": "1"}
	if from.MinorOnly().Compare(semver.MustParse(overlay.LegacyRelease)) > 0 {
		st[overlay.KeySylvaRelease] = from.String()
		st[overlay.KeyAdditionalReconciliationRequired] = "false"
	}
	return st, nil
}

// nextStatus is the status the sylva-units-status unit writes after a
// pass: the plan's expected status, with the status keys of the render:
// as the YAML of additional-info when the values set
// additional_sylva_units_status_info (info non-nil), else as data keys.
func nextStatus(pass planner.Pass, got, info map[string]string) (map[string]string, error) {
	st, err := overlay.StatusValues(pass.ExpectedStatus)
	if err != nil {
		return nil, err
	}
	st["release-revision"] = fmt.Sprint(pass.Index + 1)
	if info != nil {
		// The chart writes the YAML of additional_sylva_units_status_info
		// into additional-info and nothing else of the values.
		for _, k := range overlay.StatusKeys() {
			delete(st, k)
		}
		y, err := yaml.Marshal(info)
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", overlay.AdditionalInfo, err)
		}
		st[overlay.AdditionalInfo] = string(y)
		return st, nil
	}
	for _, k := range overlay.StatusKeys() {
		if v, ok := got[k]; ok {
			st[k] = v
		}
	}
	return st, nil
}
