package action

import "gitlab.com/sylva-projects/sylva-planner/status"

// PlanInputs are the inputs plan and report are named: Sources (File is
// --status, Inventory is --inventory, the cluster when Live) and the
// suppressions and baseline files.
type PlanInputs struct {
	Sources
	Suppressions, Baseline string
}

// SetSources sets the sources of r that in names and reads the
// suppressions and the baseline; errors name the flag. Offline unless
// Live: the status comes from File (refused beside From), else from the
// cluster when Live; the cluster's facts are read when Live, and judge the
// release of status.DefaultNamespace (the management cluster's own) when
// the status is read live too.
func (r *PlanRequest) SetSources(in PlanInputs) error {
	if r.From != "" && in.File != "" {
		// The status would otherwise go unread, and with it a pass of a
		// transition in progress.
		return badRequest("give --from or --status, not both: --status reads the installed release from the status ConfigMap, and where a transition in progress stands")
	}
	in.FileFlag = "--status"
	if in.File != "" || in.Live {
		r.Status = in.Status()
	}
	var err error
	if r.Inventory, err = in.Manifests(); err != nil {
		return err
	}
	if in.Live {
		r.Cluster = in.cluster().Facts()
		if in.File == "" {
			// A status read live from another namespace than
			// sylva-system is a workload cluster's release.
			r.ClusterNamespace = status.DefaultNamespace
		}
	}
	if r.Suppressions, err = readInput(in.Sources, "--suppressions", in.Suppressions, ParseSuppressions); err != nil {
		return err
	}
	r.Baseline, err = readInput(in.Sources, "--baseline", in.Baseline, ParseBaseline)
	return err
}

// SetSources sets the sources of plan -A: every release's status from the
// List of File (--status), else from the cluster; the rest of the plan
// request (inventory, suppressions, baseline) read once, as
// PlanRequest.SetSources reads it. The cluster's facts are read from the
// cluster the fleet comes from, or with --status when Live.
func (r *FleetPlanRequest) SetSources(in PlanInputs) error {
	in.FileFlag = "--status"
	one := in
	one.File, one.Live = "", false
	if err := r.Plan.SetSources(one); err != nil {
		return err
	}
	if in.File == "" || in.Live {
		r.Plan.Cluster = in.cluster().Facts()
	}
	r.Source, r.FromFile = in.Fleet(), in.File != ""
	return nil
}

// Validate refuses what plan -A cannot plan: --from or --workers (each
// release is planned from its own status), no --to, a --to or provider
// the catalog does not know.
func (r FleetPlanRequest) Validate() error {
	for _, f := range [][2]string{{"--from", r.Plan.From}, {"--workers", r.Plan.Workers}} {
		if f[1] != "" {
			return badRequest("%s does not go with --all-namespaces: each release is planned from its own status", f[0])
		}
	}
	if r.Plan.To == "" {
		return &MissingFlagError{Flag: "--to", Example: "--all-namespaces --to 1.6"}
	}
	_, err := Input(r.Plan.Catalog, r.Plan.To, r.Plan.To, "", r.Plan.Provider)
	return err
}
