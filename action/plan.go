package action

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"gitlab.com/sylva-projects/sylva-planner/availability"
	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/inventory"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/removedapis"
	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/skew"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

// CheckRemovedAPIs is the check of the removed-API findings.
const CheckRemovedAPIs = "removed-apis"

// CheckInventory is the check of the manifests an inventory was read from.
const CheckInventory = "inventory"

// PlanRequest is what plan and report are asked: the flags as given, and
// the sources to read. A nil source is not read.
type PlanRequest struct {
	// Releases are the catalog, the date and the flag values, unparsed;
	// an empty From is read from Status, an empty Workers and Provider
	// from the inventory's nodes.
	Releases
	// CatalogInput names the catalog in the plan's header ("catalog
	// embedded", "catalog FILE"); the catalog's version is added.
	CatalogInput string
	// Status gives the installed release when From is empty.
	Status StatusSource
	// Progress, when set, is a status already read (the controller's
	// watch): the installed release and the transition in flight. From
	// and Status are then not read.
	Progress *planner.TransitionState
	// Inventory is the manifests (--inventory): the running components
	// judged against the route, the nodes' minor and provider, and the
	// removed-API check.
	Inventory FactsSource
	// Cluster is a live cluster: the drain checks and the removed-API
	// check (which it then makes instead of the manifests), and the
	// running components when no Inventory is given.
	Cluster FactsSource
	// ClusterNamespace, when set, is the namespace of the release that
	// runs in the cluster Cluster reads: the management cluster's own
	// (status.DefaultNamespace). A release whose status Status read from
	// another namespace is a workload cluster's, whose nodes, workloads
	// and APIs are in that cluster: its plan is made without Cluster, as
	// an offline plan is. Empty applies Cluster to any release.
	ClusterNamespace string
	// ProdNamespaces are the namespace globs of production workloads for
	// the drain checks.
	ProdNamespaces []string
	Suppressions   []planner.Suppression
	Baseline       []planner.Finding
	// Gate, Rerun and Selection are passed to the planner as given (see
	// planner.Input).
	Gate      planner.GateOptions
	Rerun     string
	Selection envelope.Selection

	// Sources are the inputs the command line names (--status as File,
	// --inventory, the cluster when Live), and SuppressionsFile and
	// BaselineFile the files of --suppressions and --baseline: Run reads
	// each named one first, into Status, Inventory, Cluster, Suppressions
	// and Baseline. Nothing named, those are used as given.
	Sources                        Sources
	SuppressionsFile, BaselineFile string

	// inputs name what Run read, for the plan's header.
	inputs []string

	// overlays, when set, answers the plan's Overlay once per distinct
	// input across the releases of one plan -A run.
	overlays *overlayMemo
}

// Run reads the sources of r, each once, and computes the plan once.
// Errors name the flag to fix.
func (r PlanRequest) Run(ctx context.Context) (*planner.Plan, error) {
	if err := r.readSources(); err != nil {
		return nil, err
	}
	if r.To == "" {
		return nil, r.missingTo()
	}
	r.inputs = []string{strings.TrimSpace(r.CatalogInput + " " + r.Catalog.Version)}
	fromSource, progress, err := r.readInstalled(ctx)
	if err != nil {
		return nil, err
	}
	// The detection rules are compiled when there are facts to detect
	// components in: plan -A plans thousands of releases without any.
	rules := sync.OnceValues(func() ([]inventory.Rule, error) { return DetectionRules(r.Catalog) })
	manifests, observed, err := r.readManifests(ctx, rules)
	if err != nil {
		return nil, err
	}
	in, err := r.input()
	if err != nil {
		return nil, err
	}
	in.FromSource, in.Observed, in.Progress = fromSource, observed, progress
	in.Suppressions, in.Baseline = r.Suppressions, r.Baseline
	in.Gate, in.Rerun, in.Selection = r.Gate, r.Rerun, r.Selection
	if err := r.judgeFacts(ctx, &in, manifests, rules); err != nil {
		return nil, err
	}
	in.Inputs = r.inputs
	// The plan's Next writes the helper values: it says when values
	// generate cannot.
	in.Overlay = r.overlays.overlayError
	p, err := planner.Compute(in)
	if err != nil && fromSource != "flag" {
		err = statusSourceError(err, in.From, r.To)
	}
	return p, err
}

// missingTo is the error of a request without --to: its example adds
// --to to what was given, --from or a status (which --from beside it
// would contradict).
func (r PlanRequest) missingTo() error {
	example := "--from " + cmp.Or(r.From, "1.4") + " --to " + r.Catalog.Newest().String()
	if r.From == "" && (r.Status != nil || r.Progress != nil) {
		// With what selects the status (--status FILE, -n, the
		// catalog), so that the example runs as printed.
		example = "--to " + r.Catalog.Newest().String()
		if full := r.Selection.Command("plan", "--to", r.Catalog.Newest().String()); strings.Contains(full, " plan ") {
			example = full[strings.Index(full, " plan ")+len(" plan "):]
		}
	}
	return &MissingFlagError{Flag: "--to", Example: example}
}

// readInstalled sets From when it is not given: from the status already
// read (Progress), else from Status; it returns where From came from and
// the transition in flight. A status read from another namespace than
// ClusterNamespace drops Cluster (a workload cluster's release).
func (r *PlanRequest) readInstalled(ctx context.Context) (string, *planner.TransitionState, error) {
	if pr := r.Progress; pr != nil {
		r.From = pr.Installed.String()
		return string(status.SourceSylvaRelease), pr, nil
	}
	if r.From != "" {
		return "flag", nil, nil
	}
	v, src, pr, ns, err := installedRelease(ctx, r.Status)
	if err != nil {
		return "", nil, err
	}
	r.From = v.String()
	r.inputs = append(r.inputs, r.Status.Input())
	if r.ClusterNamespace != "" && ns != r.ClusterNamespace {
		r.Cluster = nil
	}
	return src, &pr, nil
}

// readManifests reads the Inventory, when given: the components it runs
// (with rules), and the workers' minor and the provider when the flags
// do not say them.
func (r *PlanRequest) readManifests(ctx context.Context, rules func() ([]inventory.Rule, error)) (*inventory.Facts, *planner.Observed, error) {
	if r.Inventory == nil {
		return nil, nil, nil
	}
	manifests, err := r.Inventory.Facts(ctx)
	if err != nil {
		return nil, nil, err
	}
	r.inputs = append(r.inputs, r.Inventory.Input())
	rs, err := rules()
	if err != nil {
		return nil, nil, err
	}
	oldest, _, rke2 := manifests.Inventory.Nodes()
	if r.Workers == "" && !oldest.IsZero() {
		r.Workers = oldest.Short()
	}
	if r.Provider == "" && rke2 {
		r.Provider = string(catalog.ProviderRKE2)
	}
	return manifests, observedOf(manifests, rs), nil
}

// judgeFacts adds to in what the facts say: the cluster's when there is
// one (read here), else the manifests': the components (when the
// manifests did not give them), the drain findings and the removed-API
// check of each pass.
func (r *PlanRequest) judgeFacts(ctx context.Context, in *planner.Input, manifests *inventory.Facts, rules func() ([]inventory.Rule, error)) error {
	facts := manifests
	if r.Cluster != nil {
		var err error
		if facts, err = r.Cluster.Facts(ctx); err != nil {
			return err
		}
		r.inputs = append(r.inputs, r.Cluster.Input())
		if in.Observed == nil {
			rs, err := rules()
			if err != nil {
				return err
			}
			in.Observed = &planner.Observed{Source: facts.Source, Components: components(facts.Inventory, rs)}
		}
		in.Observed.Checks = append(in.Observed.Checks, facts.Checks...)
	}
	if facts == nil {
		return nil
	}
	// The drain rules judge the cluster's facts, else the manifests'
	// (their budgets' specs and workloads' pod templates, with statuses
	// where the dumps carry them), as drain-check does: a budget that
	// allows no eviction hangs the rollout either way.
	items := availability.Check(facts.Snapshot, availability.Options{ProdNamespaces: r.ProdNamespaces})
	in.Observed.Findings = append(in.Observed.Findings, availability.Findings(items)...)
	kb, err := removedapis.Default()
	if err != nil {
		return err
	}
	uses := facts.Uses
	in.Observed.JudgePasses = func(targets []planner.PassTarget) ([]planner.Finding, []planner.Check) {
		findings, check := removedAPIFindings(kb, uses, apiTargets(targets))
		return findings, []planner.Check{check}
	}
	return nil
}

// installedRelease reads the installed release from the status ConfigMap,
// and what the status says of a transition in flight
// (planner.TransitionStateOf): a further pass pending is planned from where the
// hop started; and the namespace the status was read from.
func installedRelease(ctx context.Context, src StatusSource) (semver.Version, string, planner.TransitionState, string, error) {
	if src == nil {
		return semver.Version{}, "", planner.TransitionState{}, "", &MissingFlagError{
			Flag: "--from", Alternatives: "--status FILE, or --live to read the installed release from the cluster",
			Example: "--from 1.4 --to 1.6",
		}
	}
	obs, err := src.Observation(ctx)
	if err != nil {
		return semver.Version{}, "", planner.TransitionState{}, "", err
	}
	if obs.ConfigMap == nil {
		if rev := status.DeletedRevision(obs); rev != "" {
			// The chart's status unit exists and targets a release past
			// the first install: the ConfigMap was there, and is gone.
			return semver.Version{}, "", planner.TransitionState{}, "", errors.New(status.DeletedMessage(obs.Namespace, rev))
		}
		return semver.Version{}, "", planner.TransitionState{}, "", fmt.Errorf("no sylva-units-status ConfigMap: this is a fresh install, there is nothing to upgrade from; %s to plan anyway", giveFrom(src))
	}
	v, key, ok := obs.ConfigMap.Release()
	if !ok {
		return semver.Version{}, "", planner.TransitionState{}, "", fmt.Errorf("the sylva-units-status ConfigMap does not say which release is installed (%s); %s", key, giveFrom(src))
	}
	return v, string(key), planner.TransitionStateOf(obs), obs.Namespace, nil
}

// giveFrom is the fix of a status that names no installed release, as the
// command line accepts it: --from instead of a status file (both are
// refused together), or --from beside a live read, which then reads the
// cluster's facts only.
func giveFrom(src StatusSource) string {
	switch f := src.(type) {
	case StatusFile:
		return "give --from instead of " + cmp.Or(f.Flag, "--status")
	case *StatusFile:
		return "give --from instead of " + cmp.Or(f.Flag, "--status")
	}
	return "give --from"
}

// observedOf turns the facts of manifests into what the planner judges:
// the components detected and the inventory check.
func observedOf(f *inventory.Facts, rules []inventory.Rule) *planner.Observed {
	inv := f.Inventory
	obs := &planner.Observed{Source: f.Source, Components: components(inv, rules)}
	check := planner.Check{
		Name: CheckInventory, Required: true, Status: planner.CheckAssessed,
		Detail: fmt.Sprintf("files read: %d, objects: %d, components detected: %d", inv.Files, len(inv.Objects), len(obs.Components)),
	}
	obs.Checks = append([]planner.Check{inv.Judge(check, strings.TrimPrefix(f.Source, manifestsIn))}, inv.ReleaseChecks()...)
	return obs
}

// components are the component versions rules detect in inv.
func components(inv *inventory.Inventory, rules []inventory.Rule) []planner.ObservedComponent {
	var out []planner.ObservedComponent
	for _, d := range inv.Detect(rules) {
		out = append(out, planner.ObservedComponent{Name: d.Component, Raw: d.Raw, Version: d.Version, Where: d.Where})
	}
	return out
}

// PlannerInput turns the release flags into a planner.PlannerInput, refusing what does
// not parse with the flag's name and the fix.
func PlannerInput(cat *catalog.Catalog, from, to, workers, provider string) (planner.Input, error) {
	in := planner.Input{Catalog: cat, FromSource: "flag"}
	var err error
	if from == "" {
		return in, &MissingFlagError{Flag: "--from", Example: "--from 1.4 --to 1.6"}
	}
	if to == "" {
		return in, &MissingFlagError{Flag: "--to", Example: "--from " + from + " --to " + cat.Newest().String()}
	}
	if in.From, err = semver.Parse(from); err != nil {
		return in, fmt.Errorf("--from: %w; give a Sylva release such as 1.4", err)
	}
	if in.To, err = parseTo(to); err != nil {
		return in, err
	}
	if workers != "" {
		if in.Workers, err = semver.Parse(workers); err != nil {
			return in, fmt.Errorf("--workers: %w; give a Kubernetes minor such as 1.30", err)
		}
		// The workers of a working cluster run within the skew policy of
		// its control plane: never newer, at most KubeletMaxLag behind. A
		// value outside is a mistake (a Sylva release given for a
		// Kubernetes minor, say), not a cluster to plan.
		if rel, ok := cat.Release(in.From.MinorOnly()); ok {
			if v := skew.KubeletSkew(rel.Kubernetes.Management, in.Workers); v != nil {
				return in, fmt.Errorf("--workers %s: %s (Sylva %s runs Kubernetes %s); give the Kubernetes minor the workers run, from %s to %s",
					workers, v.Message, rel.Release, rel.Kubernetes.Management.Short(),
					rel.Kubernetes.Management.AddMinor(-skew.KubeletMaxLag(rel.Kubernetes.Management)).Short(), rel.Kubernetes.Management.Short())
			}
		}
	}
	if provider == "" {
		provider = string(catalog.ProviderKubeadm)
	}
	if in.Provider, err = catalog.ParseProvider(provider); err != nil {
		return in, fmt.Errorf("--bootstrap-provider: %w", err)
	}
	return in, nil
}

// DetectionRules are the catalog's image and label rules, compiled for
// inventory.Detect.
func DetectionRules(cat *catalog.Catalog) ([]inventory.Rule, error) {
	var rules []inventory.Rule
	for _, comp := range cat.Components {
		r := inventory.Rule{Component: comp.Name}
		for _, re := range comp.Images {
			rx, err := regexp.Compile(re)
			if err != nil {
				return nil, fmt.Errorf("catalog: component %s: %w", comp.Name, err)
			}
			r.Images = append(r.Images, rx)
		}
		for _, l := range comp.Labels {
			k, v, _ := strings.Cut(l.Selector, "=")
			r.Labels = append(r.Labels, inventory.LabelRule{Key: k, Value: v, VersionLabel: l.VersionLabel})
		}
		rules = append(rules, r)
	}
	return rules, nil
}

func apiTargets(ts []planner.PassTarget) []removedapis.Target {
	out := make([]removedapis.Target, len(ts))
	for i, t := range ts {
		out[i] = removedapis.Target{Pass: t.Pass, ControlPlane: t.ControlPlane}
	}
	return out
}

// removedAPIFindings judges the API versions in use against each target
// and returns the findings and the check that reports them.
func removedAPIFindings(kb *removedapis.KB, uses []removedapis.Use, targets []removedapis.Target) ([]planner.Finding, planner.Check) {
	check := planner.Check{
		Name: CheckRemovedAPIs, Required: true, Status: planner.CheckAssessed,
		Detail: fmt.Sprintf("%d API version uses against the removed-API knowledge base (Kubernetes up to %s)", len(uses), kb.Horizon),
	}
	findings, beyond := kb.Check(uses, targets)
	if beyond {
		check.Status = planner.CheckPartial
		check.Detail += fmt.Sprintf("; the target %s is newer than the knowledge base: run `go generate ./removedapis` with a newer k8s.io/api", targets[len(targets)-1].ControlPlane.Short())
	}
	return findings, check
}

// ClusterFlags are the flags that say which cluster of the fleet a plan is
// for (--cluster, --kubernetes, --kubernetes-to), unparsed.
type ClusterFlags struct {
	Cluster, Kubernetes, KubernetesTo string
	// KubernetesSource says where Kubernetes was read when it is not the
	// flag (the Cluster API objects of the release's namespace).
	KubernetesSource string
}

// apply sets the cluster of in from the flags, refusing what does not
// parse with the flag's name and the fix. --kubernetes or --kubernetes-to
// without --cluster plan a workload cluster; --workers must be within the
// kubelet skew of --kubernetes.
func (f ClusterFlags) apply(in *planner.Input) error {
	var err error
	if f.Kubernetes != "" {
		if in.Kubernetes, err = semver.Parse(f.Kubernetes); err != nil {
			return fmt.Errorf("--kubernetes: %w; give the Kubernetes minor the control plane runs, such as 1.30", err)
		}
		in.Kubernetes, in.KubernetesSource = in.Kubernetes.MinorOnly(), f.KubernetesSource
	}
	if f.KubernetesTo != "" {
		if in.KubernetesTo, err = semver.Parse(f.KubernetesTo); err != nil {
			return fmt.Errorf("--kubernetes-to: %w; give the Kubernetes minor to end on, such as 1.32", err)
		}
		in.KubernetesTo = in.KubernetesTo.MinorOnly()
	}
	switch {
	case f.Cluster != "":
		if in.Cluster, err = planner.ParseClusterKind(f.Cluster); err != nil {
			return fmt.Errorf("--cluster: %w", err)
		}
	case f.Kubernetes != "" || f.KubernetesTo != "":
		in.Cluster = planner.ClusterWorkload
	}
	if !in.Workers.IsZero() && !in.Kubernetes.IsZero() {
		if v := skew.KubeletSkew(in.Kubernetes, in.Workers); v != nil {
			return fmt.Errorf("--workers %s: %s (the control plane runs Kubernetes %s, --kubernetes); give the Kubernetes minor the workers run, from %s to %s",
				in.Workers.Short(), v.Message, in.Kubernetes.Short(), in.Kubernetes.AddMinor(-skew.KubeletMaxLag(in.Kubernetes)).Short(), in.Kubernetes.Short())
		}
	}
	return nil
}
