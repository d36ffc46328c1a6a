package planner

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/semver"
)

// Sentinel errors of Compute, wrapped in an *InputError naming the flag.
var (
	// ErrUnknownRelease: a release is not in the catalog.
	ErrUnknownRelease = errors.New("release is not in the catalog")
	// ErrDowngrade: the target is older than the source.
	ErrDowngrade = errors.New("downgrade")
)

// InputError is an input Compute cannot plan for. Field names the input
// ("--from", "--to") so the message tells the user what to fix.
type InputError struct {
	Field string
	Err   error
	msg   string
}

func (e *InputError) Error() string { return e.Field + ": " + e.msg }
func (e *InputError) Unwrap() error { return e.Err }

// checkPosition is the check that places the cluster in the plan from
// its status.
const checkPosition = "position"

// longhorn is the component whose minor-by-minor path the plan always
// reports, even when the catalog marks other stepped components.
const longhorn = "longhorn"

// Compute plans the transition described by in. It returns an error only
// when no plan can be computed (an unknown release, a downgrade); anything
// that blocks the upgrade itself is a Finding of the returned plan.
func Compute(in Input) (*Plan, error) {
	computations.Add(1)
	cat := in.Catalog
	if cat == nil || len(cat.Releases) == 0 {
		return nil, errors.New("no catalog")
	}
	in = asWorkloadFromStatus(in)
	in, placeable := startFromStatus(in)
	from, err := lookup(cat, "--from", in.From)
	if err != nil {
		return nil, err
	}
	if cat.IsPastNewest(in.To) {
		return pastHorizon(in, from), nil
	}
	to, err := lookup(cat, "--to", in.To)
	if err != nil {
		return nil, err
	}
	if err := downgradeError(in, from, to); err != nil {
		return nil, err
	}
	provider := in.Provider
	if provider == "" {
		provider = catalog.ProviderKubeadm
	}
	p := newPlan(in, cat, from, to, provider)
	kp, err := kubePathOf(in, from, to)
	if err != nil {
		return nil, err
	}
	p.Cluster = clusterOf(in, kp, from, to)
	p.From.Kubernetes, p.To.Kubernetes = p.Cluster.Kubernetes, p.Cluster.KubernetesTo
	workers := kp.startOf(from)
	if !in.Workers.IsZero() {
		workers = in.Workers.MinorOnly()
	}
	p.addPrereleaseFindings(in, from, to)
	p.routeFor(in, from, to, provider, workers, kp, placeable)
	if in.Progress != nil {
		p.place(*in.Progress, placeable)
	}
	p.summarize()
	p.addChecks(in, cat, provider)
	p.addOverlayFinding(in, to)
	p.finish(in)
	return p, nil
}

// asWorkloadFromStatus decides whether in is planned as a workload
// cluster because of its status: a settled release of a workload cluster's
// namespace is, from the minors its Cluster API objects say it runs (and
// its workers' minor), unless the input names a cluster or minors of its
// own. It returns in, completed.
func asWorkloadFromStatus(in Input) Input {
	pr := in.Progress
	if pr == nil || pr.Pending || in.Cluster != "" || pr.Cluster != ClusterWorkload {
		return in
	}
	// Mid-hop, the passes in flight are those of the helper values in
	// place, and the minors are where they left the cluster, not where
	// the plan starts: the status is read as it is.
	in.Cluster = ClusterWorkload
	if in.Kubernetes.IsZero() && !pr.Kubernetes.IsZero() {
		in.Kubernetes, in.KubernetesSource = pr.Kubernetes, pr.KubernetesSource
		if in.Workers.IsZero() {
			in.Workers = pr.Workers
		}
	}
	return in
}

// startFromStatus decides where the plan starts when in has a status: the
// release its transition started from (startOf), a pending pass the status
// does not name being inferred first (inferPass). It returns in with its
// own copy of the status and the source of its start, and whether the
// status places the cluster in the plan (true without a status).
func startFromStatus(in Input) (Input, bool) {
	if in.Progress == nil {
		return in, true
	}
	pr := *in.Progress
	if pr.Pending && pr.TransitionFrom == "" && pr.TransitionPass == "" && !pr.Installed.IsZero() {
		pr = inferPass(in, pr)
	}
	in.Progress = &pr
	var key string
	var placeable bool
	in.From, key, placeable = startOf(pr)
	if key != "" {
		in.FromSource = key
	}
	return in, placeable
}

// downgradeError decides whether going from from to to is a downgrade,
// which no plan is computed for: a target older than the source, or, with
// a hop in flight, older than the release whose chart the status says runs
// already.
func downgradeError(in Input, from, to *catalog.Release) error {
	if pr := in.Progress; pr != nil && pr.Pending && !pr.Installed.IsZero() && to.Release.CompareMinor(pr.Installed) < 0 {
		// A hop in flight starts from transition_from, but the chart of
		// the release the status names has run already: going back to an
		// older release is the downgrade a finished hop would be.
		return &InputError{
			Field: "--to", Err: ErrDowngrade,
			msg: fmt.Sprintf("release %s is older than %s, whose chart the status says runs (a pass of the hop from %s pending); Sylva does not support downgrades", to.Release, pr.Installed.Short(), from.Release),
		}
	}
	if to.Release.Compare(from.Release) < 0 {
		return &InputError{
			Field: "--to", Err: ErrDowngrade,
			msg: fmt.Sprintf("release %s is older than --from %s; Sylva does not support downgrades (swap --from and --to?)", to.Release, from.Release),
		}
	}
	return nil
}

// newPlan is the plan from from to to with the given bootstrap provider,
// before its route: no pass and no finding yet.
func newPlan(in Input, cat *catalog.Catalog, from, to *catalog.Release, provider catalog.Provider) *Plan {
	return &Plan{
		APIVersion:        APIVersion,
		Kind:              Kind,
		Metadata:          Metadata{Metadata: envelope.NewMetadata(in.ToolVersion, cat.Version, in.AsOf), FromSource: in.FromSource, Inputs: slices.Clone(in.Inputs)},
		From:              endpoint(from),
		To:                endpoint(to),
		BootstrapProvider: string(provider),
		Passes:            []Pass{},
		Findings:          []Finding{},
	}
}

// addPrereleaseFindings decides whether the source or the target is a
// development build planned as its release, and says so: a source as a
// warning (the cluster may not run what the release ships), a target as
// information.
func (p *Plan) addPrereleaseFindings(in Input, from, to *catalog.Release) {
	if in.From.IsPrerelease() {
		p.add(Finding{
			Code: CodePrereleaseSource, Severity: SeverityWarning, Subject: in.From.String(),
			Message:     fmt.Sprintf("source %s is a development build; it is planned as release %s", in.From, from.Release),
			Remediation: "check that the cluster really runs what release " + from.Release.String() + " ships",
		})
	}
	if in.To.IsPrerelease() {
		// Sylva's own CI upgrades to main's line (1.7-pre): planned as its
		// release, which the overlay's sylva_release also reads it as.
		p.add(Finding{
			Code: CodePrereleaseTarget, Severity: SeverityInfo, Subject: in.To.String(),
			Message: fmt.Sprintf("target %s is a development build; it is planned as release %s, with the Kubernetes versions and components the catalog gives %s",
				in.To, to.Release, to.Release),
			Remediation: "check the chart of " + in.To.String() + " against the plan, filling in its directory: `sylva-planner values generate --from " + in.From.String() + " --to " + in.To.String() + " --chart <the chart's directory>` refuses a Kubernetes minor that chart does not map",
		})
	}
}

// routeFor decides the plan's route and passes from from to to: within
// one release, none when a pass is pending that cannot be placed, the
// minor steps of a workload cluster changing minor inside its release, or
// none and a note that the cluster is there already; across releases,
// routeOrBlocker, the route going on through the hop in flight when the
// status places the cluster in one.
func (p *Plan) routeFor(in Input, from, to *catalog.Release, provider catalog.Provider, workers semver.Version, kp kubePath, placeable bool) {
	pending := in.Progress != nil && in.Progress.Pending
	switch {
	case to.Release.Equal(from.Release) && pending:
		// A pass is pending that cannot be placed (startOf): the release
		// is the target's, the transition is not done.
		p.Route = []string{from.Release.String()}
	case to.Release.Equal(from.Release) && kp.workload && kp.startOf(from).CompareMinor(kp.final) < 0:
		// A workload cluster asked to change minor inside its release.
		c := minorSteps(in.Catalog, from, provider, workers, in.Observed.versions(), kp)
		p.Route, p.Passes = c.route, c.passes
		for _, f := range c.findings {
			p.add(f)
		}
	case to.Release.Equal(from.Release):
		p.Route = []string{from.Release.String()}
		p.add(Finding{
			Code: CodeSameRelease, Severity: SeverityInfo, Subject: to.Release.String(),
			Message: fmt.Sprintf("the cluster is already on release %s; no pass is needed", to.Release),
		})
	default:
		// A cluster in the middle of a hop goes on with that hop: the
		// route's first release is the one its status names.
		var via semver.Version
		if pending && placeable {
			via = in.Progress.Installed
		}
		best := bestRoute(in.Catalog, from, to, via, provider, workers, in.Observed.versions(), kp)
		p.routeOrBlocker(best, from, to, via)
	}
}

// routeOrBlocker decides the route of a plan across releases from the best
// candidate bestRoute found (via the release of the hop in flight, if
// any): its route, passes, findings and Kubernetes ranges, with a warning
// when workers roll more than once or the route takes more than one chart
// upgrade; or, without a candidate, no route (an empty one, never read as
// a direct hop) and a no-route blocker saying why.
func (p *Plan) routeOrBlocker(best *candidate, from, to *catalog.Release, via semver.Version) {
	if best == nil {
		p.Route = []string{}
		p.add(noRouteFinding(from, to, via))
		return
	}
	p.Route = best.route
	p.Passes = best.passes
	for _, f := range best.findings {
		p.add(f)
	}
	for msg, m := range best.ranges {
		if p.ranges == nil {
			p.ranges = rangeIndex{}
		}
		p.ranges[msg] = m
	}
	if best.workerRollouts > 1 && !slices.ContainsFunc(best.findings, func(f Finding) bool { return f.Code == CodeWorkerExtraRollout }) {
		p.add(Finding{
			Code: CodeWorkerExtraRollout, Severity: SeverityWarning, Subject: to.Release.String(),
			Message:     fmt.Sprintf("workers roll %d times, once per chart upgrade of the route: every release a hop ends on sets the workers' Kubernetes version", best.workerRollouts),
			Remediation: "plan fewer hops where the catalog allows it; each worker rollout drains every node",
		})
	}
	if len(best.route) > 2 {
		p.add(Finding{
			Code: CodeMultiHopRoute, Severity: SeverityWarning, Subject: to.Release.String(),
			Message: fmt.Sprintf("%s does not support upgrades from %s (it supports %s): the route takes %d chart upgrades, %s",
				to.Release, from.Release, orNone(versionList(to.UpgradeFrom)), len(best.route)-1, strings.Join(best.route, " → ")),
			Remediation: fmt.Sprintf("upgrade to %s first and let it finish, then continue", best.route[1]),
		})
	}
}

// noRouteFinding is the blocker of a plan no chain of supported upgrades
// leads through from from to to: the catalog's upgrade sources of the
// target decide, unless the cluster is in the hop to via, which then
// decides.
func noRouteFinding(from, to *catalog.Release, via semver.Version) Finding {
	f := Finding{
		Code: CodeNoRoute, Severity: SeverityBlocker, Class: ClassActionable, Subject: to.Release.String(),
		Message:     fmt.Sprintf("no chain of supported upgrades leads from %s to %s (%s supports upgrades from %s)", from.Release, to.Release, to.Release, orNone(versionList(to.UpgradeFrom))),
		Remediation: "add the missing release or upgrade source to the catalog, or plan to an intermediate release first",
	}
	if !via.IsZero() {
		// The hop the cluster is in decides the route, not the
		// catalog's upgrade sources of the target.
		f.Message = fmt.Sprintf("the status says the cluster is in the hop from %s to %s with a further pass pending, so the route goes on through %s, and no chain of supported upgrades leads from %s to %s", from.Release, via.Short(), via.Short(), via.Short(), to.Release)
		f.Remediation = fmt.Sprintf("finish the hop to %s first (plan --to %s), then plan again", via.Short(), via.Short())
	}
	return f
}

// addChecks decides the plan's checks once its route is placed: the
// gate's compatibility check after those of the plan itself, the position
// check when the status places the cluster (not assessed when it cannot),
// then what was observed running, with its findings and its judgement of
// the plan's targets.
func (p *Plan) addChecks(in Input, cat *catalog.Catalog, provider catalog.Provider) {
	compat := p.gate(in, cat, provider)
	p.Checks = append(checks(p), compat)
	if p.Position != nil {
		c := Check{Name: checkPosition, Required: true, Status: CheckAssessed, Detail: p.Position.Summary}
		if p.unplaced() {
			c.Status = CheckNotAssessed
		}
		p.Checks = append(p.Checks, c)
	}
	if in.Observed != nil {
		p.Checks = append(p.Checks, in.Observed.Checks...)
		p.Findings = append(p.Findings, in.Observed.Findings...)
		if judge := in.Observed.JudgePasses; judge != nil {
			findings, checks := judge(p.Targets())
			p.Findings = append(p.Findings, findings...)
			p.Checks = append(p.Checks, checks...)
		}
	}
}

// addOverlayFinding decides whether the helper values of a plan with
// passes can be generated (in.Overlay asked) and, when they cannot, says
// so: a blocker before the transition starts (its first step cannot run),
// a warning once it has (the helper values in place were written).
func (p *Plan) addOverlayFinding(in Input, to *catalog.Release) {
	if in.Overlay == nil || len(p.Passes) == 0 {
		return
	}
	// The helper values are generated for the plan's own input, from
	// where it starts (in.From is transition_from mid-hop).
	sub := in
	sub.Overlay, sub.Progress, sub.Observed, sub.Suppressions, sub.Baseline = nil, nil, nil, nil, nil
	// The plan is sub's own when nothing but sub was read: what runs
	// (Observed) and a transition in flight (Progress) may change its
	// route and passes, and the overlay then plans sub again.
	var own *Plan
	if in.Progress == nil && in.Observed == nil {
		own = p
	}
	err := in.Overlay(sub, own)
	if err == nil {
		return
	}
	f := Finding{
		Code: CodeOverlayUnavailable, Severity: SeverityWarning, Subject: to.Release.String(),
		Message:     "values generate cannot write the helper values of this plan: " + err.Error(),
		Remediation: "give values generate what it names (a catalog of your own with the chart versions, passed with --catalog, or the chart with --chart), then write the helper values",
	}
	if pos := p.Position; pos == nil || (pos.PassesDone == 0 && !pos.PassPending) {
		f.Severity, f.Class = SeverityBlocker, ClassActionable
		f.Message = "the transition cannot be prepared yet: " + f.Message
	}
	p.add(f)
}

// computations counts the calls of Compute in this process.
var computations atomic.Int64

// Computations is the number of plans Compute computed in this process: a
// diagnostic for tests and benchmarks that check a command computes each
// plan once.
func Computations() int64 { return computations.Load() }

// CodeOverlayUnavailable is the finding of a plan whose helper values
// values generate cannot write (Input.Overlay).
const CodeOverlayUnavailable = "overlay-unavailable"

// finish merges, applies suppressions and the baseline, then judges and
// sorts.
func (p *Plan) finish(in Input) {
	p.Findings = p.dropDone(p.Findings)
	p.Findings = mergeRanges(p.Findings, p.ranges)
	p.applySuppressions(in.Suppressions, in.AsOf)
	p.markBaseline(in.Baseline)
	p.judge()
	p.Gate = p.decideGate(in.Gate, in.Baseline != nil)
	p.Next = next(p, in.Rerun, in.Selection)
	slices.SortStableFunc(p.Findings, CompareFindings)
	slices.SortStableFunc(p.Suppressed, func(a, b SuppressedFinding) int { return CompareFindings(a.Finding, b.Finding) })
}

// dropDone leaves out the findings about passes the status says are done
// (Position.PassesDone): what ran then cannot block what is left. A
// finding is about done passes when its subject is one ("pass 1"), or, for
// a component-k8s-range finding, when every pass it names is.
func (p *Plan) dropDone(fs []Finding) []Finding {
	pos := p.Position
	if pos == nil || !pos.PassKnown || pos.PassesDone == 0 {
		return fs
	}
	done := func(subject string) bool {
		var n int
		if _, err := fmt.Sscanf(subject, "pass %d", &n); err != nil || fmt.Sprintf("pass %d", n) != subject {
			return false
		}
		return n <= pos.PassesDone
	}
	return slices.DeleteFunc(fs, func(f Finding) bool {
		if r := p.ranges[f.Message]; f.Code == CodeComponentK8sRange && r != nil {
			return !slices.ContainsFunc(r.passes, func(s string) bool { return !done(s) })
		}
		return done(f.Subject)
	})
}

// CodeKBStale is the finding for a target release newer than the catalog:
// the plan cannot be judged.
const CodeKBStale = "kb-stale"

// pastHorizon is the plan for a target newer than the catalog's newest
// release: nothing can be judged, so the verdict is unknown.
func pastHorizon(in Input, from *catalog.Release) *Plan {
	cat := in.Catalog
	p := &Plan{
		APIVersion: APIVersion, Kind: Kind,
		Metadata: Metadata{Metadata: envelope.NewMetadata(in.ToolVersion, cat.Version, in.AsOf), FromSource: in.FromSource, Inputs: slices.Clone(in.Inputs)},
		From:     endpoint(from), To: Endpoint{Release: in.To.String()},
		BootstrapProvider: string(cmp.Or(in.Provider, catalog.ProviderKubeadm)),
		Route:             []string{from.Release.String(), in.To.String()},
		Passes:            []Pass{}, Findings: []Finding{},
	}
	p.add(Finding{
		Code: CodeKBStale, Severity: SeverityWarning, Subject: in.To.String(),
		Message:     cat.PastNewest(in.To),
		Remediation: catalog.PastNewestFix,
	})
	p.summarize()
	p.Checks = []Check{
		{Name: "catalog-coverage", Required: true, Status: CheckNotAssessed, Detail: fmt.Sprintf("catalog %s ends at %s", cat.Version, cat.Newest())},
		{Name: "route", Required: true, Status: CheckNotAssessed, Detail: "the target is not in the catalog"},
		{Name: componentCompatibility, Required: true, Status: CheckNotAssessed, Detail: "the target's components are unknown"},
	}
	p.finish(in)
	return p
}

func lookup(cat *catalog.Catalog, field string, v semver.Version) (*catalog.Release, error) {
	if v.IsZero() {
		return nil, &InputError{Field: field, Err: ErrUnknownRelease, msg: "a release is required, for example " + field + " " + cat.Newest().String()}
	}
	r, ok := cat.Release(v)
	if !ok {
		msg := cat.Unknown(v)
		switch {
		case v.Compare(cat.Oldest()) < 0:
			msg += fmt.Sprintf("; releases before %s are not covered", cat.Oldest())
		case field == "--from" && v.Compare(cat.Newest()) > 0:
			// A cluster on a release newer than the catalog: the tool
			// is older than what it plans from.
			msg += fmt.Sprintf("; catalog %s predates it: update sylva-planner, or give a newer catalog with --catalog", cat.Version)
		}
		return nil, &InputError{Field: field, Err: ErrUnknownRelease, msg: msg}
	}
	return r, nil
}

func endpoint(r *catalog.Release) Endpoint {
	e := Endpoint{Release: r.Release.String(), Kubernetes: r.Kubernetes.Management.Short()}
	if lh, ok := r.Component(longhorn); ok {
		e.Longhorn = lh.Version.String()
	}
	return e
}

func (p *Plan) add(f Finding) { p.Findings = append(p.Findings, f) }

func versionList(vs []semver.Version) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = v.String()
	}
	return strings.Join(s, ", ")
}

func orNone(s string) string {
	if s == "" {
		return "no release"
	}
	return s
}
