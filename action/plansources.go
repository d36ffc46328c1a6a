package action

import "gitlab.com/sylva-projects/sylva-planner/status"

// readSources reads what r.Sources, r.SuppressionsFile and r.BaselineFile
// name into the sources and inputs of r, each only when named (a request
// without names keeps the sources it was given); errors name the flag.
// Offline unless Live: the status comes from File (refused beside From),
// else from the cluster when Live; the cluster's facts are read when Live,
// and judge the release of status.DefaultNamespace (the management
// cluster's own) when the status is read live too.
func (r *PlanRequest) readSources() error {
	in := r.Sources
	if r.From != "" && in.File != "" {
		// The status would otherwise go unread, and with it a pass of a
		// transition in progress.
		return badRequest("give --from or --status, not both: --status reads the installed release from the status ConfigMap, and where a transition in progress stands")
	}
	in.FileFlag = "--status"
	if in.File != "" || in.Live {
		r.Status = in.Status()
	}
	if in.Inventory != "" {
		var err error
		if r.Inventory, err = in.Manifests(); err != nil {
			return err
		}
	}
	if in.Live {
		r.Cluster = in.cluster().Facts()
		if in.File == "" {
			// A status read live from another namespace than
			// sylva-system is a workload cluster's release.
			r.ClusterNamespace = status.DefaultNamespace
		}
	}
	var err error
	if r.SuppressionsFile != "" {
		if r.Suppressions, err = readInput(in, "--suppressions", r.SuppressionsFile, ParseSuppressions); err != nil {
			return err
		}
	}
	if r.BaselineFile != "" {
		r.Baseline, err = readInput(in, "--baseline", r.BaselineFile, ParseBaseline)
	}
	return err
}

// readSources reads the sources of plan -A when Source is not given:
// every release's status from the List of File (--status), else from the
// cluster; the rest of the plan request (inventory, suppressions, baseline)
// read once, as PlanRequest.readSources reads it, and not again for each
// release. The cluster's facts are read from the cluster the fleet comes
// from, or with --status when Live.
func (r *FleetPlanRequest) readSources() error {
	in := r.Plan.Sources
	in.FileFlag = "--status"
	r.Plan.Sources.File, r.Plan.Sources.Live = "", false
	if err := r.Plan.readSources(); err != nil {
		return err
	}
	r.Plan.Sources, r.Plan.SuppressionsFile, r.Plan.BaselineFile = Sources{}, "", ""
	if r.Source != nil {
		return nil
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
	_, err := PlannerInput(r.Plan.Catalog, r.Plan.To, r.Plan.To, "", r.Plan.Provider)
	return err
}
