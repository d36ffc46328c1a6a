package action

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"gitlab.com/sylva-projects/sylva-planner/ci"
	"gitlab.com/sylva-projects/sylva-planner/fileio"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

// ControlPlaneLabel marks control-plane nodes (kubeadm and RKE2 both set
// it).
const ControlPlaneLabel = "node-role.kubernetes.io/control-plane"

// VerifyRequest is what verify is asked: the plan whose final state the
// cluster must have reached, and where to read the cluster.
type VerifyRequest struct {
	Releases
	// Status is the sylva-units-status ConfigMap; StatusFile names it when
	// it is a file (the facts' source then names it too).
	Status     StatusSource
	StatusFile string
	// Facts gives the Nodes (kubelet version, control-plane label) and the
	// workloads whose images tell the components' versions.
	Facts FactsSource
}

// Run computes the plan, reads the status and the facts once each, and
// checks the cluster against the plan's final state.
func (r VerifyRequest) Run(ctx context.Context) (*ci.Verification, error) {
	in, err := r.input()
	if err != nil {
		return nil, err
	}
	p, err := planner.Compute(in)
	if err != nil {
		return nil, err
	}
	if _, ok := pastCatalog(p); ok {
		// Plan reads such a target as a kb-stale warning; verify has no
		// final state of it to check the cluster against.
		return nil, in.Catalog.RefusePastNewest("--to", in.To, "verify needs its Kubernetes and component versions to check the cluster against")
	}
	rules, err := DetectionRules(r.Catalog)
	if err != nil {
		return nil, err
	}
	obs, err := r.Status.Observation(ctx)
	if err != nil {
		return nil, err
	}
	facts, err := r.Facts.Facts(ctx)
	if err != nil {
		return nil, err
	}
	f := ci.Facts{Source: facts.Source, Components: map[string]semver.Version{}}
	if r.StatusFile != "" {
		name := filepath.ToSlash(r.StatusFile)
		if r.StatusFile == fileio.StdinName {
			name = "standard input"
		}
		f.Source = name + " and " + facts.Source
	}
	statusFacts(&f, in, obs)
	// A kubelet version that does not parse names the manifests it was
	// read from.
	where := ""
	if m, ok := r.Facts.(Manifests); ok {
		where = m.Flag + " " + m.Dir + ": "
	}
	inv := facts.Inventory
	for _, o := range inv.Objects {
		if o.Kind != "Node" {
			continue
		}
		v, err := semver.Parse(o.KubeletVersion)
		if err != nil {
			return nil, fmt.Errorf("%snode %s: kubelet version: %w", where, o.Name, err)
		}
		_, cp := o.Labels[ControlPlaneLabel]
		f.Nodes = append(f.Nodes, ci.Node{Name: o.Name, Kubelet: v, ControlPlane: cp})
	}
	for _, d := range inv.Detect(rules) {
		if !d.Version.IsZero() {
			f.Components[d.Component] = d.Version
		}
	}
	return ci.Verify(p, f), nil
}

// VerifyOutcome fails when a check of the verification failed.
func VerifyOutcome(v *ci.Verification) Outcome { return failIf(!v.OK) }

// statusFacts sets what the status of obs says: the release, a pass
// pending placed in the plan of in, read as every other command reads it
// (planner.Locate), and a release being applied.
func statusFacts(f *ci.Facts, in planner.Input, obs status.Observation) {
	cm := obs.ConfigMap
	f.StatusFound = cm != nil
	if cm == nil {
		return
	}
	if v, _, ok := cm.Release(); ok {
		f.StatusRelease = v
	}
	pr := planner.TransitionStateOf(obs)
	f.StatusPending, f.StatusApplying = pr.Pending, pr.Applying
	if pr.Pending || f.StatusRelease.CompareMinor(in.To) != 0 {
		// Where the cluster stands, as status --to says it: a pass
		// pending, or a release short of the target.
		if pos, err := planner.Locate(in, pr); err == nil && pos != nil {
			f.StatusPosition = pos.Summary
		}
	}
}

// SetSources sets the status and the facts of r from s: offline, the
// status of File (--status) and the manifests of Inventory, both needed;
// else the cluster's status and nodes.
func (r *VerifyRequest) SetSources(s Sources) error {
	switch {
	case s.File == "" && s.Inventory == "":
		r.Status, r.Facts = s.Status(), s.cluster().Nodes()
		return nil
	case s.File == "" || s.Inventory == "":
		return errors.New("offline verification needs both --status FILE and --inventory DIR")
	}
	s.FileFlag = "--status"
	r.Status, r.StatusFile = s.Status(), s.File
	var err error
	r.Facts, err = s.Manifests()
	return err
}
