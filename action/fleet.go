package action

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/gatemetrics"
	"gitlab.com/sylva-projects/sylva-planner/inventory"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

// FleetSource reads the objects of every release namespace of a cluster
// (status -A, plan -A): from a List in a file or a live cluster, each kind
// read once.
type FleetSource interface {
	Fleet(ctx context.Context) ([]status.FleetEntry, error)
	// Input names what was read, as StatusSource.Input; it is asked after
	// Fleet, and names "all namespaces" where one namespace's input names
	// NAMESPACE/sylva-units-status.
	Input() string
}

// FleetStatusRequest is what status -A is asked.
type FleetStatusRequest struct {
	Source    FleetSource
	Selection envelope.Selection
	Metadata  envelope.Metadata
	// To, when set, places each release in the plan to it (as status --to
	// places one), with Catalog, AsOf and ToolVersion; it is refused
	// before the source is read when it is no release.
	To          string
	Catalog     *catalog.Catalog
	AsOf        time.Time
	ToolVersion string
}

// Run reads every release namespace once and interprets each, placing it
// in the plan to To when given.
func (r FleetStatusRequest) Run(ctx context.Context) (status.Fleet, error) {
	var to semver.Version
	if r.To != "" {
		var err error
		if to, err = parseTo(r.To); err != nil {
			return status.Fleet{}, err
		}
	}
	entries, err := r.Source.Fleet(ctx)
	if err != nil {
		return status.Fleet{}, err
	}
	fleet := status.InterpretFleet(entries, r.Selection)
	fleet.Metadata = r.Metadata
	fleet.Suggest(func(installed semver.Version) semver.Version { return NewestFrom(r.Catalog, installed) })
	if !to.IsZero() {
		if err := placeFleet(&fleet, planner.Input{Catalog: r.Catalog, To: to, AsOf: r.AsOf, ToolVersion: r.ToolVersion}); err != nil {
			return status.Fleet{}, err
		}
	}
	return fleet, nil
}

// placeFleet places each readable release of f in the plan to in.To, as
// status --to does for one (planner.Locate); releases whose status says the
// same are placed once. A release that cannot be placed (its status names
// a release newer than the target, say) says why in its row; a target the
// catalog does not know is an error.
func placeFleet(f *status.Fleet, in planner.Input) error {
	type placed struct {
		t   *status.Transition
		err error
	}
	seen := map[planner.TransitionState]placed{}
	for i := range f.Releases {
		row := &f.Releases[i]
		if row.Error != "" {
			continue
		}
		pr := planner.TransitionStateOf(row.Report().Observation())
		p, ok := seen[pr]
		if !ok {
			p.t, p.err = Transition(in, pr)
			seen[pr] = p
		}
		switch {
		case unknownTarget(p.err):
			// The planner's error names --to, as plan says it.
			return p.err
		case p.err != nil:
			row.NotPlaced(releaseErrorText(p.err, row.Release), errors.Is(p.err, planner.ErrDowngrade))
		default:
			row.Place(p.t)
		}
	}
	return nil
}

// FleetPlanRequest is what plan -A is asked: each release found is planned
// as plan --live plans one namespace.
type FleetPlanRequest struct {
	// Plan is the request of every release; Status, Rerun and Selection
	// are set per release. Cluster, when set, is read once, for the
	// release of FactsNamespace only (PlanRequest.ClusterNamespace).
	// Plan.Sources names the fleet's status (--status, else the
	// cluster) when Source is nil.
	Plan   PlanRequest
	Source FleetSource
	// FactsNamespace is the namespace of the release that runs in the
	// cluster Plan.Cluster reads: the management cluster's own release
	// (status.DefaultNamespace when empty). Every other namespace holds
	// the release of a workload cluster, whose nodes, workloads and APIs
	// are in that cluster, not in this one: its plan is made without the
	// facts, as an offline plan is, rather than judged on another
	// cluster's.
	FactsNamespace string
	// FromFile says the fleet came from a file (--status): the command
	// that plans one release alone then plans it offline.
	FromFile bool
	// Rerun is the plan -A command line; each release's plan names it with
	// --namespace NAMESPACE for --all-namespaces.
	Rerun     string
	Selection envelope.Selection
}

// Run reads every release namespace once and plans each release from its
// own status. A release that cannot be planned (no status, a release the
// catalog lacks, a downgrade) says why in its row; a target the catalog
// does not know, or facts of the cluster that cannot be read, are errors.
// It also returns each plan computed, by namespace, for the gauges.
func (r FleetPlanRequest) Run(ctx context.Context) (planner.FleetPlan, []gatemetrics.NamespacedPlan, error) {
	if err := r.readSources(); err != nil {
		return planner.FleetPlan{}, nil, err
	}
	req := r.Plan
	req.overlays = &overlayMemo{}
	factsNS := ""
	if req.Cluster != nil {
		facts := &onceFacts{src: req.Cluster}
		req.Cluster = facts
		factsNS = cmp.Or(r.FactsNamespace, status.DefaultNamespace)
		// The management cluster's facts are read while the releases
		// are: the plan of its release takes them from facts, read once
		// (a plan that asks before the read ends waits for it). Read and
		// not asked for (no release in factsNS), they are dropped, their
		// error with them; a read still running when Run returns is
		// cancelled.
		fctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, _ = facts.Facts(fctx)
		}()
		defer func() {
			cancel()
			<-done
		}()
	}
	entries, err := r.Source.Fleet(ctx)
	if err != nil {
		return planner.FleetPlan{}, nil, err
	}
	fleet := status.InterpretFleet(entries, r.Selection)
	mgmtNS := cmp.Or(r.FactsNamespace, status.DefaultNamespace)
	target := cmp.Or(skewShort(r.Plan.To), r.Plan.To)
	// Each release is planned on its own, at once on every CPU (planning
	// is pure); the rows are then put together in the fleet's order, and
	// the first error that stops the run, in that order, is returned.
	type planned struct {
		p   *planner.Plan
		err error
	}
	results := make([]planned, len(fleet.Releases))
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(fleet.Releases)) {
		wg.Go(func() {
			for i := range work {
				results[i].p, results[i].err = r.releaseRequest(req, fleet.Releases[i], factsNS, mgmtNS).Run(ctx)
			}
		})
	}
	for i, row := range fleet.Releases {
		if row.Error == "" {
			work <- i
		}
	}
	close(work)
	wg.Wait()

	rows := make([]planner.FleetPlanRow, 0, len(fleet.Releases))
	var plans []gatemetrics.NamespacedPlan
	for i, row := range fleet.Releases {
		detail := planDetail(r.selectionOf(row), r.FromFile)
		if row.Error != "" {
			rows = append(rows, planner.FleetPlanRowOf(row, nil, nil, detail))
			plans = appendGauges(plans, row, nil, target, mgmtNS)
			continue
		}
		p, err := results[i].p, results[i].err
		if unknownTarget(err) {
			return planner.FleetPlan{}, nil, err
		}
		if err != nil && !isReleaseError(err) {
			// Reading the cluster's facts failed: no plan of this run
			// would be complete.
			return planner.FleetPlan{}, nil, err
		}
		var ie *planner.InputError
		switch {
		case errors.As(err, &ie):
			// A release the target cannot be planned from: nothing
			// toward it comes next.
			row.NotPlaced(releaseErrorText(err, row.Release), errors.Is(err, planner.ErrDowngrade))
			err = errors.New(row.TransitionError)
		case err != nil:
			err = errors.New(releaseErrorText(err, row.Release))
		}
		rows = append(rows, planner.FleetPlanRowOf(row, p, err, detail))
		plans = appendGauges(plans, row, p, target, mgmtNS)
	}
	fp := planner.NewFleetPlan(cmp.Or(skewShort(r.Plan.To), r.Plan.To), rows)
	fp.FactsNamespace = factsNS
	fp.Order(r.Plan.Catalog, mgmtNS)
	fp.Metadata = envelope.NewMetadata(r.Plan.ToolVersion, r.Plan.Catalog.Version, r.Plan.AsOf)
	fp.Program = r.Selection.Program
	fp.Exit = fleetExit(fp)
	return fp, plans, nil
}

// selectionOf is the selection of row's release: the run's, in its
// namespace.
func (r FleetPlanRequest) selectionOf(row status.FleetRow) envelope.Selection {
	sel := r.Selection
	sel.Namespace = row.Namespace
	return sel
}

// releaseRequest is the request that plans the release of row, from its
// own status, as plan --live plans its namespace: req with row's status,
// selection and rerun command; a settled release outside the management
// cluster's namespace is planned as a workload cluster's.
func (r FleetPlanRequest) releaseRequest(req PlanRequest, row status.FleetRow, factsNS, mgmtNS string) PlanRequest {
	sel := r.selectionOf(row)
	one := req
	one.Status = fixedStatus{obs: row.Report().ConfigMap, input: r.Source.Input(), ns: row.Namespace, rep: row.Report()}
	one.Rerun = namespaceRerun(r.Rerun, row.Namespace)
	one.Selection = sel
	one.ClusterNamespace = factsNS
	if cm := row.Report().ConfigMap; row.Namespace != mgmtNS && one.ClusterFlags == (ClusterFlags{}) && !passPending(cm) {
		// A settled release outside the management cluster's namespace
		// is a workload cluster's: it keeps its minor inside each
		// window, the one its Cluster API objects say it runs. Mid-hop
		// the status is read as it is (planner.Compute says why).
		one.ClusterFlags.Cluster = string(planner.ClusterWorkload)
		if k := row.Kubernetes; k != nil && k.ControlPlane != "" {
			one.Kubernetes, one.KubernetesSource = k.ControlPlane, k.Source
			if one.Workers == "" {
				one.Workers = k.Workers
			}
		}
	}
	return one
}

// appendGauges adds the gauges of row's release to plans: its plan p; or,
// without one, the release that could not be planned (verdict unknown), as
// fleetOutcome counts it for exit 3; nothing for a release not installed
// or still installing.
func appendGauges(plans []gatemetrics.NamespacedPlan, row status.FleetRow, p *planner.Plan, target, mgmtNS string) []gatemetrics.NamespacedPlan {
	if p == nil && (row.State == status.StateNotInstalled || row.State == status.StateInstalling) {
		return plans
	}
	return append(plans, gatemetrics.NamespacedPlan{Namespace: row.Namespace, Plan: p, From: row.Release, To: target, Cluster: kindOfNamespace(row.Namespace, mgmtNS)})
}

// kindOfNamespace is the kind of cluster a release namespace holds: the
// management cluster's namespace, else a workload cluster's.
func kindOfNamespace(ns, mgmtNS string) planner.ClusterKind {
	if ns == mgmtNS {
		return planner.ClusterManagement
	}
	return planner.ClusterWorkload
}

// FleetOutcome is the outcome of plan -A: the worst gate outcome of the
// plans and of the fleet's order (fail, then held), and unevaluated when a
// release that has a status could not be planned.
func FleetOutcome(fp planner.FleetPlan) Outcome {
	o, _ := fleetOutcome(fp)
	return o
}

// fleetOutcome is FleetOutcome and the namespaces that make it ("fleet
// order" for the order's blockers).
func fleetOutcome(fp planner.FleetPlan) (Outcome, []string) {
	var failed, held, unplanned []string
	if slices.ContainsFunc(fp.Findings, func(f planner.Finding) bool { return f.Severity == planner.SeverityBlocker }) {
		failed = append(failed, "fleet order")
	}
	for _, r := range fp.Releases {
		switch {
		case r.Plan != nil && r.Plan.Gate.Outcome == planner.GateFail:
			failed = append(failed, r.Namespace)
		case r.Plan != nil && r.Plan.Gate.Outcome == planner.GateHeld:
			held = append(held, r.Namespace)
		case r.Plan == nil && r.Standing == planner.StandingUnplanned && r.State != status.StateNotInstalled && r.State != status.StateInstalling:
			unplanned = append(unplanned, r.Namespace)
		}
	}
	switch o := fp.Outcome(); {
	case o == planner.GateFail:
		return OutcomeFail, failed
	case o == planner.GateHeld:
		return OutcomeHeld, held
	case len(unplanned) > 0:
		return OutcomeUnevaluated, unplanned
	}
	return OutcomePass, nil
}

// fleetExit is what plan -A says of its exit code: the code, and which
// releases (or the fleet's order) make it.
func fleetExit(fp planner.FleetPlan) *planner.FleetExit {
	o, who := fleetOutcome(fp)
	e := &planner.FleetExit{Code: o.ExitCode(), Outcome: string(o), Namespaces: who}
	switch o {
	case OutcomeFail:
		e.Reason = "a plan, or the fleet's order, fails the gate"
	case OutcomeHeld:
		e.Reason = "a plan is held: every blocker waits on upstream or is pinned"
	case OutcomeUnevaluated:
		e.Reason = "a release that has a status could not be planned: the gate could not evaluate it (fail-safe)"
	case OutcomePass:
		e.Reason = "every plan passes the gate"
	}
	return e
}

// unknownTarget reports whether err says the catalog does not know the
// target (--to): no release of the fleet can be planned.
func unknownTarget(err error) bool {
	var ie *planner.InputError
	return errors.As(err, &ie) && ie.Field == "--to" && errors.Is(err, planner.ErrUnknownRelease)
}

// isReleaseError reports whether err is about one release's status (no
// ConfigMap, a release it does not name or the catalog lacks, a
// downgrade): that release is not planned, the others are.
func isReleaseError(err error) bool {
	var ie *planner.InputError
	var ne noReleaseError
	return errors.As(err, &ie) || errors.As(err, &ne)
}

// releaseErrorText says why the release whose status names release
// cannot be planned, in the words of a fleet row: the planner's errors
// name --from, which the fleet reads from each status.
func releaseErrorText(err error, release string) string {
	var ie *planner.InputError
	switch {
	case errors.Is(err, planner.ErrDowngrade):
		return fmt.Sprintf("the status names release %s, newer than the target: Sylva does not support downgrades", release)
	case errors.As(err, &ie) && ie.Field == "--from":
		return "the status names a release the catalog does not cover: " + strings.TrimPrefix(err.Error(), "--from: ")
	}
	return err.Error()
}

// noReleaseError is fixedStatus's refusal of a status that names no
// installed release.
type noReleaseError string

func (e noReleaseError) Error() string { return string(e) }

// fixedStatus is one namespace's status, already read with the fleet.
type fixedStatus struct {
	obs   *status.Status
	rep   status.Report
	input string
	ns    string
}

func (s fixedStatus) Observation(context.Context) (status.Observation, error) {
	if s.obs == nil {
		return status.Observation{}, noReleaseError("no sylva-units-status ConfigMap in " + s.ns + ": a fresh install has nothing to upgrade from")
	}
	if _, key, ok := s.obs.Release(); !ok {
		return status.Observation{}, noReleaseError(fmt.Sprintf("the sylva-units-status ConfigMap of %s does not say which release is installed (%s)", s.ns, key))
	}
	return status.Observation{Namespace: s.ns, ConfigMap: s.obs, Kustomization: s.rep.Kustomization, HelmRelease: s.rep.HelmRelease, FluxRead: true, HelmReleaseName: s.rep.HelmReleaseName}, nil
}

func (s fixedStatus) Input() string {
	return strings.Replace(s.input, "all namespaces", s.ns+"/"+status.ConfigMapName, 1)
}

// onceFacts reads the facts of its source once, for every plan.
type onceFacts struct {
	src   FactsSource
	mu    sync.Mutex
	read  bool
	facts *inventory.Facts
	err   error
}

func (o *onceFacts) Facts(ctx context.Context) (*inventory.Facts, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.read {
		o.facts, o.err = o.src.Facts(ctx)
		o.read = true
	}
	return o.facts, o.err
}

func (o *onceFacts) Input() string { return o.src.Input() }

// planDetail is the command that plans the release of row alone: live
// with -n NAMESPACE, or, when the fleet came from a file, plan --status
// of the same file with -n NAMESPACE, which reads that namespace's objects
// of the List (its pass in progress included).
func planDetail(sel envelope.Selection, fromFile bool) string {
	if !fromFile {
		return sel.Command("plan", "--live")
	}
	return sel.Command("plan")
}

// namespaceRerun is the plan -A command line rerun for one namespace:
// --all-namespaces becomes --namespace NS.
func namespaceRerun(rerun, ns string) string {
	return strings.Replace(rerun, " --all-namespaces", " --namespace "+envelope.ShellQuote(ns), 1)
}

// skewShort is the release v names ("1.6" for "1.6.0"), "" when it does
// not parse.
func skewShort(v string) string {
	r, err := semver.Parse(v)
	if err != nil {
		return ""
	}
	return r.MinorOnly().String()
}

// passPending reports whether the status cm asks for a further pass.
func passPending(cm *status.Status) bool {
	return cm != nil && cm.AdditionalReconciliationRequired != nil && *cm.AdditionalReconciliationRequired
}
