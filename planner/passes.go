package planner

import (
	"fmt"
	"slices"

	"gitlab.com/sylva-projects/sylva-planner/semver"

	"gitlab.com/sylva-projects/sylva-planner/skew"
)

// planPass appends pass i of the hop.
func (h *hop) planPass(st *state, i int) {
	ps := Pass{
		Index:     len(h.c.passes) + 1,
		Release:   h.rel,
		Trigger:   TriggerReconciliation,
		HopPass:   i,
		HopPasses: h.n,
	}
	if i == 1 {
		ps.Trigger = TriggerUpgrade
	}
	subject := fmt.Sprintf("pass %d", ps.Index)
	cpBefore := st.cp
	cpAfter := h.passControlPlane(st, &ps, subject, i)
	h.passComponents(st, &ps, subject, i, cpBefore, cpAfter)
	h.passWorkers(st, &ps, subject, i, cpAfter)
	h.passValues(&ps, i, cpAfter)
	h.c.passes = append(h.c.passes, ps)
}

// passControlPlane moves the control plane one minor, until the target,
// and returns where it ends.
func (h *hop) passControlPlane(st *state, ps *Pass, subject string, i int) semver.Version {
	cpBefore := st.cp
	cpAfter := h.cpAt(i)
	if v := skew.ControlPlaneStep(cpBefore, cpAfter); v != nil {
		h.add(Finding{Code: CodeControlPlaneSkip, Severity: SeverityBlocker, Class: ClassActionable, Subject: subject, Message: v.Message})
	}
	ps.ControlPlane = VersionChange{From: cpBefore.Short(), To: cpAfter.Short()}
	if kv, ok := h.to.KubeVersion(cpAfter); ok {
		ps.ControlPlane.Version = kv.For(h.provider).String()
		st.cpVersion = ps.ControlPlane.Version
	} else {
		h.add(Finding{
			Code: CodeMissingK8sVersion, Severity: SeverityBlocker, Class: ClassActionable, Subject: subject,
			Message:     fmt.Sprintf("release %s maps no full version for Kubernetes %s, which pass %d needs", h.rel, cpAfter.Short(), ps.Index),
			Remediation: fmt.Sprintf("add Kubernetes %s to the kubernetes.versions of release %s in the catalog", cpAfter.Short(), h.rel),
		})
	}
	st.cp = cpAfter
	return cpAfter
}

// passComponents advances the stepped components one step and jumps the
// others in the first pass of the hop. Both the old and the new version
// must support both control-plane minors of the pass.
func (h *hop) passComponents(st *state, ps *Pass, subject string, i int, cpBefore, cpAfter semver.Version) {
	names := slices.Sorted(func(yield func(string) bool) {
		for _, rc := range h.to.Components {
			if !yield(rc.Name) {
				return
			}
		}
	})
	for _, name := range names {
		before := st.components[name]
		after := before
		if v, ok := h.jumps[name]; ok {
			if i == 1 {
				after = v
			}
		} else {
			for _, s := range h.stepped {
				if s.name != name {
					continue
				}
				for k, at := range h.stepAt[name] {
					if at == i {
						after = s.steps[k]
					}
				}
			}
			if v := skew.MinorStep(name, before, after); v != nil && !before.IsZero() {
				h.add(Finding{Code: CodeStepSkip, Severity: SeverityBlocker, Class: ClassActionable, Subject: subject, Message: v.Message})
			}
		}
		for _, m := range rangeFindings(h.cat, subject, name, before, after, cpBefore, cpAfter) {
			h.add(h.c.ranges.note(m))
		}
		from := before.String()
		if before.IsZero() {
			from = "-"
		}
		ps.Components = append(ps.Components, ComponentChange{Name: name, From: from, To: after.String()})
		st.components[name] = after
	}
}

// passWorkers moves the workers in pass i. A chart that cannot hold the
// MachineDeployments back (the catalog's hold_workers capability of the
// hop's release, unknown meaning cannot) makes them follow
// cluster.k8s_version: they roll on every pass that changes it. A chart
// that can keeps them while the kubelet skew allows, and rolls them at the
// end of the hop, or earlier when the next pass would break the skew.
func (h *hop) passWorkers(st *state, ps *Pass, subject string, i int, cpAfter semver.Version) {
	last := i == h.n
	ps.Workers = WorkerChange{From: st.workers.Short(), To: st.workers.Short()}
	if v := skew.KubeletSkew(cpAfter, st.workers); v != nil && v.Code != skew.CodeKubeletNewer {
		h.add(Finding{
			Code: CodeKubeletSkew, Severity: SeverityBlocker, Class: ClassActionable, Subject: subject,
			Message:     fmt.Sprintf("workers on %s when the control plane reaches %s: %s", st.workers.Short(), cpAfter.Short(), v.Message),
			Remediation: fmt.Sprintf("upgrade the workers to Kubernetes %s or newer before this transition", cpAfter.AddMinor(-skew.KubeletMaxLag(cpAfter)).Short()),
		})
	}
	// The workers are replaced when their minor changes, or when the
	// chart maps their minor to another full version (a patch upgrade).
	changes := func() bool {
		return !st.workers.Equal(cpAfter.MinorOnly()) ||
			(st.workersVersion != "" && ps.ControlPlane.Version != "" && st.workersVersion != ps.ControlPlane.Version)
	}
	rollTo := func() {
		ps.Workers.To = cpAfter.Short()
		ps.Workers.Rolls = true
		st.workers, st.workersVersion = cpAfter.MinorOnly(), ps.ControlPlane.Version
	}
	if !h.to.HoldsWorkers() {
		if changes() {
			rollTo()
		}
		return
	}
	roll := last
	if !last {
		nextCP := h.cpAt(i + 1)
		if skew.KubeletSkew(nextCP, st.workers) != nil {
			roll = true
			h.add(Finding{
				Code: CodeWorkerExtraRollout, Severity: SeverityWarning, Subject: subject,
				Message: fmt.Sprintf("workers must roll in pass %d (to %s) as well as at the end of the hop: on %s they would lag the next control-plane minor %s too far", ps.Index, cpAfter.Short(), st.workers.Short(), nextCP.Short()),
			})
		}
	}
	if roll && changes() {
		rollTo()
	}
	ps.Workers.Paused = !roll
}

// passValues sets the helper values the pass writes and the status it
// must leave.
func (h *hop) passValues(ps *Pass, i int, cpAfter semver.Version) {
	last := i == h.n
	lh := ""
	for _, cc := range ps.Components {
		if cc.Name == longhorn {
			lh = cc.To
		}
	}
	ps.RequestsAnotherPass = !last
	ps.Values = Values{
		SylvaRelease:                     h.rel,
		TransitionFromN2:                 !last,
		K8sVersionShort:                  cpAfter.Short(),
		LonghornVersion:                  lh,
		AdditionalReconciliationRequired: !last,
	}
	if h.to.HoldsWorkers() {
		// Only a chart that reads it gets the value.
		paused := ps.Workers.Paused
		ps.Values.MachineDeploymentsPaused = &paused
	}
	ps.ExpectedStatus = ExpectedStatus{
		SylvaRelease: h.rel, AdditionalReconciliationRequired: fmt.Sprint(!last),
		TransitionFrom: h.from.Short(), TransitionPass: fmt.Sprint(i),
	}
}
