package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"gitlab.com/sylva-projects/sylva-planner/action"
	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/fileio"
	"gitlab.com/sylva-projects/sylva-planner/inventory"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/reconciler"
	"gitlab.com/sylva-projects/sylva-planner/skew"
	"gitlab.com/sylva-projects/sylva-planner/status"
	"gitlab.com/sylva-projects/sylva-planner/status/kube"
	"gitlab.com/sylva-projects/sylva-planner/values"
)

// This file is the fleet view: status -A and plan -A read every
// sylva-units release of a management cluster (each kind listed once
// across the cluster) and show one line per release.

// allNamespacesFlag is -A/--all-namespaces, spelled as kubectl's.
func allNamespacesFlag(usage string) *cli.BoolFlag {
	return &cli.BoolFlag{Name: "all-namespaces", Aliases: []string{"A"}, Usage: usage}
}

// statusAllNamespacesFlag is status's -A.
func statusAllNamespacesFlag() *cli.BoolFlag {
	return allNamespacesFlag("list every sylva-units release of the cluster, one line each (namespace, release, chart, pass state, whether a pass may start, what is next), reading each kind once across all namespaces; with --file, from a List of every namespace's objects")
}

// planAllNamespacesFlag is plan's -A.
func planAllNamespacesFlag() *cli.BoolFlag {
	return allNamespacesFlag("plan every sylva-units release of the cluster to --to (live, or from the List of --status), one line each, those that can start now first")
}

// fleetSource reads the objects of every release namespace.
type fleetSource interface {
	Fleet(ctx context.Context) ([]status.FleetEntry, error)
	// Input names what was read, as action.StatusSource.Input.
	Input() string
}

// fleetFile is a List of every namespace's objects in a file named by flag.
type fleetFile struct {
	e           *env
	flag, name  string
	helmRelease string
}

func (s fleetFile) Fleet(context.Context) ([]status.FleetEntry, error) {
	data, err := s.e.readFile(s.flag, s.name)
	if err != nil {
		return nil, err
	}
	entries, err := status.DecodeFleet(data, s.helmRelease)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w; give the List `kubectl get configmaps,kustomizations,helmreleases -A -o yaml` prints", s.flag, s.name, err)
	}
	return entries, nil
}

func (s fleetFile) Input() string { return "status " + filepath.ToSlash(s.name) }

// fleetLive lists the objects of every namespace of a cluster.
type fleetLive struct {
	e                   *env
	kubeconfig, context string
	helmRelease         string
	contextName         string
}

func (s *fleetLive) Fleet(ctx context.Context) ([]status.FleetEntry, error) {
	cfg, ctxName, err := s.e.restConfig(s.kubeconfig, s.context)
	if err != nil {
		return nil, err
	}
	s.contextName = ctxName
	r, err := kube.NewReader(cfg, kube.Options{HelmRelease: s.helmRelease, Context: ctxName})
	if err != nil {
		return nil, err
	}
	entries, err := r.ReadAll(ctx)
	if apierrors.IsNotFound(err) {
		// ConfigMaps are always served by a Kubernetes API server.
		if e := checkAPIServer(ctx, cfg, ctxName); e != nil {
			return nil, e
		}
	}
	return entries, err
}

func (s *fleetLive) Input() string {
	return fmt.Sprintf("status live all namespaces (context %s)", s.contextName)
}

func fleetSourceOf(e *env, o statusOptions) fleetSource {
	if o.file != "" {
		return fleetFile{e: e, flag: cmpOr(o.fileFlag, "--file"), name: o.file, helmRelease: o.helmRelease}
	}
	return &fleetLive{e: e, kubeconfig: o.kubeconfig, context: o.context, helmRelease: o.helmRelease}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// refuseNamespace refuses -n beside -A: one reads a namespace, the other
// all of them.
func refuseNamespace(c *cli.Context) error {
	if c.IsSet("namespace") {
		return usageError(c, errors.New("give --all-namespaces or --namespace, not both"), true)
	}
	return nil
}

// statusFleetAction is status -A.
func statusFleetAction(c *cli.Context) error {
	if c.Args().Len() > 0 {
		return usageError(c, fmt.Errorf("status takes no argument, got %q", c.Args().First()), true)
	}
	if err := refuseNamespace(c); err != nil {
		return err
	}
	o, err := statusOptionsOf(c)
	if err != nil {
		return usageError(c, err, true)
	}
	to := c.String("to")
	var target skew.Version
	if to != "" {
		if target, err = skew.Parse(to); err != nil {
			return withCode(exitError, fmt.Errorf("--to: %w; give a Sylva release such as 1.6", err))
		}
	}
	cat, err := loadCatalog(c)
	if err != nil {
		return withCode(exitError, err)
	}
	md, err := metadataOf(c, cat)
	if err != nil {
		return withCode(exitError, err)
	}
	entries, err := fleetSourceOf(envOf(c), o).Fleet(c.Context)
	if err != nil {
		return withCode(exitError, err)
	}
	fleet := status.InterpretFleet(entries, selectionOf(c))
	fleet.Metadata = md
	if to != "" {
		asOf, err := asOfOf(c)
		if err != nil {
			return withCode(exitError, err)
		}
		if err := placeFleet(&fleet, planner.Input{Catalog: cat, To: target, AsOf: asOf, ToolVersion: version}); err != nil {
			return withCode(exitError, err)
		}
	}
	return writeOutput(c, writers{formatTable: fleet.WriteTable, formatJSON: fleet.WriteJSON, formatYAML: fleet.WriteYAML})
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
	seen := map[planner.Progress]placed{}
	for i := range f.Releases {
		row := &f.Releases[i]
		if row.Error != "" {
			continue
		}
		pr := planner.ProgressOf(row.Report().ConfigMap)
		p, ok := seen[pr]
		if !ok {
			p.t, p.err = transitionOf(in, pr)
			seen[pr] = p
		}
		var ie *planner.InputError
		switch {
		case errors.As(p.err, &ie) && ie.Field == "--to" && errors.Is(p.err, planner.ErrUnknownRelease):
			return fmt.Errorf("--to %s: %w", in.To, p.err)
		case p.err != nil:
			row.TransitionError = releaseErrorText(p.err, row.Release)
		default:
			row.Transition = p.t
		}
	}
	return nil
}

// transitionOf is where a release whose status says pr stands in the plan
// to in.To, with the helper values of its next pass.
func transitionOf(in planner.Input, pr planner.Progress) (*status.Transition, error) {
	pos, err := planner.Locate(in, pr)
	if err != nil {
		return nil, err
	}
	t := &status.Transition{Target: pos.Target, Route: pos.Route, PassesDone: pos.PassesDone, Passes: pos.Passes, PassKnown: pos.PassKnown, Summary: pos.Summary}
	if pos.Next != nil {
		if t.NextValues, err = values.PassValues(pos.Next.Values); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// planFleetAction is plan -A: each release found planned as plan --live
// plans one namespace, the cluster's facts read once for all.
func planFleetAction(c *cli.Context) error {
	if c.Args().Len() > 0 {
		return usageError(c, fmt.Errorf("plan takes no argument, got %q (use --to)", c.Args().First()), true)
	}
	if err := refuseNamespace(c); err != nil {
		return err
	}
	for _, name := range []string{"from", "workers"} {
		if c.IsSet(name) {
			return usageError(c, fmt.Errorf("--%s does not go with --all-namespaces: each release is planned from its own status", name), true)
		}
	}
	e := envOf(c)
	opts := gateOptionsOf(c)
	if opts.output != formatTable && opts.output != formatJSON && opts.output != formatYAML {
		return usageError(c, fmt.Errorf("--output %s does not go with --all-namespaces: give table, json or yaml", opts.output), true)
	}
	if opts.to == "" {
		return usageError(c, errors.New("--to is required with --all-namespaces, for example: plan --all-namespaces --to 1.6"), true)
	}
	if opts.metricsFile != "" {
		if err := fileio.CheckOutput(e.path(opts.metricsFile)); err != nil {
			return withCode(exitError, fmt.Errorf("--metrics-file: %w", err))
		}
	}
	asOf, err := asOfOf(c)
	if err != nil {
		return withCode(exitError, err)
	}
	cat, err := loadCatalog(c)
	if err != nil {
		return withCode(exitError, err)
	}
	if _, err := action.Input(cat, opts.to, opts.to, "", opts.provider); err != nil {
		return withCode(exitError, err)
	}
	// The status of every namespace comes from the fleet; the rest of the
	// request (inventory, suppressions, baseline) is read once.
	base := opts
	base.statusFile, base.live.kubeconfig, base.live.context = "", "", ""
	req, err := planRequest(c, e, cat, base)
	if err != nil {
		return withCode(exitError, err)
	}
	src := statusOptions{kubeconfig: opts.live.kubeconfig, context: opts.live.context, helmRelease: status.DefaultHelmRelease}
	if opts.statusFile != "" {
		src.file, src.fileFlag = opts.statusFile, "--status"
	} else {
		// -A reads the cluster: plan --live for every namespace.
		req.Cluster = &onceFacts{src: &clusterFacts{e: e, kubeconfig: opts.live.kubeconfig, context: opts.live.context}}
	}
	fs := fleetSourceOf(e, src)
	entries, err := fs.Fleet(c.Context)
	if err != nil {
		return withCode(exitError, err)
	}
	sel := selectionOf(c)
	fleet := status.InterpretFleet(entries, sel)
	req.AsOf = asOf
	req.Gate = planner.GateOptions{FailOn: planner.FailOn(opts.failOn), AllowIncomplete: opts.allowIncomplete}
	rerun := rerunCommand(c)
	rows := make([]planner.FleetPlanRow, 0, len(fleet.Releases))
	var plans []reconciler.NamespacedPlan
	for _, row := range fleet.Releases {
		nsSel := sel
		nsSel.Namespace = row.Namespace
		detail := planDetail(nsSel, row, opts.statusFile != "")
		if row.Error != "" {
			rows = append(rows, planner.FleetPlanRowOf(row, nil, nil, detail))
			continue
		}
		r := req
		r.Status = fixedStatus{obs: row.Report().ConfigMap, input: fs.Input(), ns: row.Namespace, rep: row.Report()}
		r.Rerun = namespaceRerun(rerun, row.Namespace)
		r.Selection = nsSel
		p, err := r.Run(c.Context)
		var ie *planner.InputError
		if errors.As(err, &ie) && ie.Field == "--to" && errors.Is(err, planner.ErrUnknownRelease) {
			return withCode(exitError, err)
		}
		if err != nil && !isReleaseError(err) {
			// Reading the cluster's facts failed: no plan of this run
			// would be complete.
			return withCode(exitError, err)
		}
		if err != nil {
			err = errors.New(releaseErrorText(err, row.Release))
		}
		rows = append(rows, planner.FleetPlanRowOf(row, p, err, detail))
		plans = append(plans, reconciler.NamespacedPlan{Namespace: row.Namespace, Plan: p})
	}
	fp := planner.NewFleetPlan(cmpOr(skewShort(opts.to), opts.to), rows)
	fp.Metadata = envelope.NewMetadata(version, cat.Version, asOf)
	if err := writeAs(c, opts.output, writers{formatTable: fp.WriteTable, formatJSON: fp.WriteJSON, formatYAML: fp.WriteYAML}); err != nil {
		return err
	}
	if opts.metricsFile != "" {
		var buf bytes.Buffer
		if err := reconciler.WriteFleetGateMetrics(&buf, plans); err != nil {
			return withCode(exitError, fmt.Errorf("--metrics-file: %w", err))
		}
		if err := fileio.WriteFile(e.path(opts.metricsFile), buf.Bytes(), 0o644); err != nil {
			return withCode(exitError, fmt.Errorf("--metrics-file: %w", err))
		}
	}
	return outcomeExit(fleetOutcome(fp))
}

// fleetOutcome is the outcome of plan -A: the worst gate outcome of the
// plans (fail, then held), and unevaluated when a release that has a
// status could not be planned.
func fleetOutcome(fp planner.FleetPlan) action.Outcome {
	if o := fp.Outcome(); o != planner.GatePass {
		return action.Outcome(o)
	}
	for _, r := range fp.Releases {
		if r.Standing == planner.StandingUnplanned && r.State != status.StateNotInstalled && r.State != status.StateInstalling {
			return action.OutcomeUnevaluated
		}
	}
	return action.OutcomePass
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
	return status.Observation{Namespace: s.ns, ConfigMap: s.obs, Kustomization: s.rep.Kustomization, HelmRelease: s.rep.HelmRelease, FluxRead: true}, nil
}

func (s fixedStatus) Input() string {
	return strings.Replace(s.input, "all namespaces", s.ns+"/"+status.ConfigMapName, 1)
}

// onceFacts reads the facts of its source once, for every plan.
type onceFacts struct {
	src   action.FactsSource
	read  bool
	facts *inventory.Facts
	err   error
}

func (o *onceFacts) Facts(ctx context.Context) (*inventory.Facts, error) {
	if !o.read {
		o.facts, o.err = o.src.Facts(ctx)
		o.read = true
	}
	return o.facts, o.err
}

func (o *onceFacts) Input() string { return o.src.Input() }

// planDetail is the command that plans the release of row alone: live
// with -n NAMESPACE, or, when the fleet came from a file, offline from the
// release its status names (a file of every namespace is no one release's
// status).
func planDetail(sel envelope.Selection, row status.FleetRow, fromFile bool) string {
	if !fromFile {
		return sel.Command("plan", "--live")
	}
	sel.State, sel.Namespace = "", ""
	return sel.Command("plan", "--from", cmpOr(row.Release, "RELEASE"))
}

// namespaceRerun is the plan -A command line rerun for one namespace:
// --all-namespaces becomes --namespace NS.
func namespaceRerun(rerun, ns string) string {
	return strings.Replace(rerun, " --all-namespaces", " --namespace "+envelope.ShellQuote(ns), 1)
}

// skewShort is the release v names ("1.6" for "1.6.0"), "" when it does
// not parse.
func skewShort(v string) string {
	r, err := skew.Parse(v)
	if err != nil {
		return ""
	}
	return r.MinorOnly().String()
}
