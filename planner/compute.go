package planner

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/skew"
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
	cat := in.Catalog
	if cat == nil || len(cat.Releases) == 0 {
		return nil, errors.New("no catalog")
	}
	placeable := true
	if pr := in.Progress; pr != nil {
		var key string
		in.From, key, placeable = startOf(*pr)
		if key != "" {
			in.FromSource = key
		}
	}
	from, err := lookup(cat, "--from", in.From)
	if err != nil {
		return nil, err
	}
	if in.To.Compare(cat.Newest()) > 0 && !in.To.IsZero() && !looksLikeYAMLNumber(cat, in.To) {
		return pastHorizon(in, from), nil
	}
	to, err := lookup(cat, "--to", in.To)
	if err != nil {
		return nil, err
	}
	if to.Release.Compare(from.Release) < 0 {
		return nil, &InputError{
			Field: "--to", Err: ErrDowngrade,
			msg: fmt.Sprintf("release %s is older than --from %s; Sylva does not support downgrades (swap --from and --to?)", to.Release, from.Release),
		}
	}
	provider := in.Provider
	if provider == "" {
		provider = catalog.ProviderKubeadm
	}
	p := &Plan{
		APIVersion:        APIVersion,
		Kind:              Kind,
		Metadata:          Metadata{Metadata: envelope.NewMetadata(in.ToolVersion, cat.Version, in.AsOf), FromSource: in.FromSource, Inputs: slices.Clone(in.Inputs)},
		From:              endpoint(from),
		To:                endpoint(to),
		BootstrapProvider: string(provider),
		Passes:            []Pass{},
		Findings:          []Finding{},
	}
	workers := from.Kubernetes.Management
	if !in.Workers.IsZero() {
		workers = in.Workers.MinorOnly()
		p.From.Kubernetes = from.Kubernetes.Management.Short()
	}
	if in.From.IsPrerelease() {
		p.add(Finding{
			Code: CodePrereleaseSource, Severity: SeverityWarning, Subject: in.From.String(),
			Message:     fmt.Sprintf("source %s is a development build; it is planned as release %s", in.From, from.Release),
			Remediation: "check that the cluster really runs what release " + from.Release.String() + " ships",
		})
	}

	pending := in.Progress != nil && in.Progress.Pending
	switch {
	case to.Release.Equal(from.Release) && pending:
		// A pass is pending that cannot be placed (startOf): the release
		// is the target's, the transition is not done.
		p.Route = []string{from.Release.String()}
	case to.Release.Equal(from.Release):
		p.Route = []string{from.Release.String()}
		p.add(Finding{
			Code: CodeSameRelease, Severity: SeverityInfo, Subject: to.Release.String(),
			Message: fmt.Sprintf("the cluster is already on release %s; no pass is needed", to.Release),
		})
	default:
		// A cluster in the middle of a hop goes on with that hop: the
		// route's first release is the one its status names.
		var via skew.Version
		if pending && placeable {
			via = in.Progress.Installed
		}
		best := bestRoute(cat, from, to, via, provider, workers, in.Observed.versions())
		if best == nil {
			p.Route = []string{from.Release.String(), to.Release.String()}
			p.add(Finding{
				Code: CodeNoRoute, Severity: SeverityBlocker, Class: ClassActionable, Subject: to.Release.String(),
				Message:     fmt.Sprintf("no chain of supported upgrades leads from %s to %s (%s supports upgrades from %s)", from.Release, to.Release, to.Release, orNone(versionList(to.UpgradeFrom))),
				Remediation: "add the missing release or upgrade source to the catalog, or plan to an intermediate release first",
			})
			break
		}
		p.Route = best.route
		p.Passes = best.passes
		for _, f := range best.findings {
			p.add(f)
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
	if in.Progress != nil {
		p.place(*in.Progress, placeable)
	}
	p.summarize()
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
	p.finish(in)
	return p, nil
}

// finish merges, applies suppressions and the baseline, then judges and
// sorts.
func (p *Plan) finish(in Input) {
	p.Findings = mergeRanges(p.Findings)
	p.applySuppressions(in.Suppressions, in.AsOf)
	p.markBaseline(in.Baseline)
	p.judge()
	p.Gate = p.decideGate(in.Gate, in.Baseline != nil)
	p.Next = next(p, in.Rerun, in.Selection)
	slices.SortStableFunc(p.Findings, CompareFindings)
	slices.SortStableFunc(p.Suppressed, func(a, b SuppressedFinding) int { return CompareFindings(a.Finding, b.Finding) })
}

// looksLikeYAMLNumber reports a release such as 1.40 that YAML would have
// read as 1.4, a release of the catalog: more likely a typo than a future
// release.
func looksLikeYAMLNumber(cat *catalog.Catalog, v skew.Version) bool {
	if v.Minor < 10 || v.Minor%10 != 0 {
		return false
	}
	_, ok := cat.Release(skew.Version{Major: v.Major, Minor: v.Minor / 10})
	return ok
}

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
		Message:     fmt.Sprintf("catalog %s (updated %s) ends at release %s; release %s cannot be judged", cat.Version, cat.Updated.Format("2006-01-02"), cat.Newest(), in.To),
		Remediation: "update sylva-planner or pass a newer catalog with --catalog",
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

func lookup(cat *catalog.Catalog, field string, v skew.Version) (*catalog.Release, error) {
	if v.IsZero() {
		return nil, &InputError{Field: field, Err: ErrUnknownRelease, msg: "a release is required, for example " + field + " " + cat.Newest().String()}
	}
	r, ok := cat.Release(v)
	if !ok {
		msg := fmt.Sprintf("release %s is not in the catalog (known: %s … %s)", v, cat.Oldest(), cat.Newest())
		switch {
		case looksLikeYAMLNumber(cat, v):
			msg += fmt.Sprintf("; if it came from YAML, quote it: %d.%d written as a number reads as %d.%d", v.Major, v.Minor, v.Major, v.Minor/10)
		case v.Compare(cat.Oldest()) < 0:
			msg += fmt.Sprintf("; releases before %s are not covered. A release read from YAML must be quoted: 1.40 written as a number reads as 1.4", cat.Oldest())
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

// candidate is one route with its passes, kept while choosing the best.
type candidate struct {
	route          []string
	passes         []Pass
	findings       []Finding
	blockers       int
	workerRollouts int
}

// bestRoute enumerates the chains of supported upgrades from from to to and
// keeps the one with the fewest hops (when via is set, only routes whose
// first hop ends on via), then the fewest blockers, passes and
// worker rollouts, then the smallest longest hop (in passes), then the
// newest intermediate releases (better supported); a total order, so the
// choice is deterministic.
func bestRoute(cat *catalog.Catalog, from, to *catalog.Release, via skew.Version, provider catalog.Provider, workers skew.Version, running map[string]skew.Version) *candidate {
	var best *candidate
	var walk func(path []*catalog.Release)
	walk = func(path []*catalog.Release) {
		last := path[len(path)-1]
		if best != nil && len(path)-1 > len(best.route)-1 {
			return
		}
		if last == to {
			c := planRoute(cat, path, provider, workers, running)
			if best == nil || better(c, best) {
				best = c
			}
			return
		}
		for i := range cat.Releases {
			next := &cat.Releases[i]
			if len(path) == 1 && !via.IsZero() && next.Release.CompareMinor(via) != 0 {
				continue
			}
			if next.Release.Compare(last.Release) > 0 && next.Release.Compare(to.Release) <= 0 && next.Supports(last.Release) {
				walk(append(slices.Clip(path), next))
			}
		}
	}
	walk([]*catalog.Release{from})
	return best
}

func better(a, b *candidate) bool {
	if c := cmp.Or(
		cmp.Compare(len(a.route), len(b.route)),
		cmp.Compare(a.blockers, b.blockers),
		cmp.Compare(len(a.passes), len(b.passes)),
		cmp.Compare(a.workerRollouts, b.workerRollouts),
		cmp.Compare(a.longestHop(), b.longestHop()),
	); c != 0 {
		return c < 0
	}
	return slices.CompareFunc(a.route, b.route, func(x, y string) int {
		return skew.MustParse(x).Compare(skew.MustParse(y))
	}) > 0
}

func (c *candidate) longestHop() int {
	n := 0
	for _, ps := range c.passes {
		n = max(n, ps.HopPasses)
	}
	return n
}

// state is the cluster as the passes leave it.
type state struct {
	release    skew.Version
	cp         skew.Version
	workers    skew.Version
	components map[string]skew.Version
}

// planRoute plans the passes along path. running holds the component
// versions an inventory saw; they replace what the source release ships.
func planRoute(cat *catalog.Catalog, path []*catalog.Release, provider catalog.Provider, workers skew.Version, running map[string]skew.Version) *candidate {
	c := &candidate{}
	st := state{release: path[0].Release, cp: path[0].Kubernetes.Management, workers: workers, components: map[string]skew.Version{}}
	for _, rc := range path[0].Components {
		st.components[rc.Name] = rc.Version
	}
	for name, v := range running {
		st.components[name] = v
	}
	for i, r := range path {
		c.route = append(c.route, r.Release.String())
		if i == 0 {
			continue
		}
		planHop(cat, c, &st, r, provider)
	}
	for _, f := range c.findings {
		if f.Severity == SeverityBlocker {
			c.blockers++
		}
	}
	for _, ps := range c.passes {
		if ps.Workers.Rolls {
			c.workerRollouts++
		}
	}
	return c
}

// planHop appends the passes of one chart upgrade to release to, in five
// named steps: how many control-plane minors the hop climbs, which
// components step and which jump, how many passes the hop needs and in which
// pass each component step goes, then each pass (control plane, components,
// workers, values and expected status).
func planHop(cat *catalog.Catalog, c *candidate, st *state, to *catalog.Release, provider catalog.Provider) {
	h := &hop{cat: cat, c: c, to: to, provider: provider, rel: to.Release.String(), from: st.release, cpFrom: st.cp, cpTo: to.Kubernetes.Management}
	st.release = to.Release
	h.countMinors()
	h.splitComponents(st)
	h.placeSteps(st)
	for i := 1; i <= h.n; i++ {
		h.planPass(st, i)
	}
	h.workerRollouts()
}

// workerRollouts warns when the workers roll more than once in the hop
// because its chart cannot hold them, naming the passes.
func (h *hop) workerRollouts() {
	if h.to.HoldsWorkers() {
		return
	}
	var passes, minors []string
	for _, ps := range h.c.passes[len(h.c.passes)-h.n:] {
		if ps.Workers.Rolls {
			if len(minors) == 0 {
				minors = append(minors, ps.Workers.From)
			}
			passes = append(passes, fmt.Sprint(ps.Index))
			minors = append(minors, ps.Workers.To)
		}
	}
	if len(passes) < 2 {
		return
	}
	why := fmt.Sprintf("the %s chart is not known to hold the MachineDeployments back (catalog capability hold_workers unknown: assumed absent)", h.rel)
	if c := h.to.Capabilities; c != nil && c.HoldWorkers != nil {
		why = fmt.Sprintf("the %s chart cannot hold the MachineDeployments back (catalog capability hold_workers false, from %s)", h.rel, c.HoldWorkers.Source)
	}
	h.add(Finding{
		Code: CodeWorkerExtraRollout, Severity: SeverityWarning, Subject: h.rel,
		Message: fmt.Sprintf("%s: the workers follow cluster.k8s_version and roll in passes %s (%s), %d drains of every node instead of one",
			why, strings.Join(passes, ", "), strings.Join(minors, " → "), len(passes)),
		Remediation: fmt.Sprintf("plan for %d worker rollouts: spare capacity and PodDisruptionBudgets that let every node drain, once per rollout", len(passes)),
	})
}

// hop is the plan of one chart upgrade while it is built.
type hop struct {
	cat      *catalog.Catalog
	c        *candidate
	to       *catalog.Release
	provider catalog.Provider
	rel      string
	// from is the release the hop starts from; cpFrom and cpTo the
	// control-plane minors before and after it.
	from, cpFrom, cpTo skew.Version
	// minors is how many control-plane minors the hop climbs.
	minors int
	// stepped are the components that go minor by minor, with their steps;
	// jumps the others, with the version they jump to in the first pass.
	stepped []steppedComponent
	jumps   map[string]skew.Version
	// n is the number of passes; stepAt the pass of each step of each
	// stepped component.
	n      int
	stepAt map[string][]int
}

type steppedComponent struct {
	name  string
	steps []skew.Version
}

func (h *hop) add(f ...Finding) { h.c.findings = append(h.c.findings, f...) }

// countMinors counts the control-plane minors of the hop; a downgrade or an
// unplannable change is a blocker and counts as none.
func (h *hop) countMinors() {
	minors, err := h.cpFrom.MinorsTo(h.cpTo)
	if err != nil || minors < 0 {
		h.add(Finding{
			Code: CodeControlPlaneSkip, Severity: SeverityBlocker, Class: ClassActionable, Subject: h.rel,
			Message: fmt.Sprintf("control plane %s → %s cannot be planned minor by minor", h.cpFrom.Short(), h.cpTo.Short()),
		})
		minors = 0
	}
	h.minors = minors
}

// splitComponents sorts the target's components into stepped ones (with
// the versions each passes through, one minor per pass) and jumps.
func (h *hop) splitComponents(st *state) {
	h.jumps = map[string]skew.Version{}
	for _, rc := range h.to.Components {
		comp, _ := h.cat.Component(rc.Name)
		cur, had := st.components[rc.Name]
		if comp == nil || comp.Stepping != catalog.SteppingMinor || !had {
			h.jumps[rc.Name] = rc.Version
			continue
		}
		steps, fs := componentSteps(h.cat, h.to, comp, cur, rc.Version)
		h.add(fs...)
		h.stepped = append(h.stepped, steppedComponent{rc.Name, steps})
	}
}

// cpAt is the control plane after pass i of the hop.
func (h *hop) cpAt(i int) skew.Version {
	if h.minors == 0 {
		return h.cpTo.MinorOnly()
	}
	return h.cpFrom.AddMinor(min(i, h.minors))
}

// placeSteps decides the number of passes and the pass of each component
// step. The hop needs a pass per control-plane minor and per component
// step; a step goes in the earliest pass where both its versions support
// both control-plane minors of the pass, adding passes (the control plane
// staying put) when no placement fits.
func (h *hop) placeSteps(st *state) {
	n := max(h.minors, 1)
	for _, s := range h.stepped {
		n = max(n, len(s.steps))
	}
	h.stepAt = map[string][]int{}
	for extra := 0; ; extra++ {
		ok := true
		for _, s := range h.stepped {
			cps := make([]skew.Version, n+extra+1)
			for i := range cps {
				cps[i] = h.cpAt(i)
			}
			at, fits := placeSteps(h.cat, s.name, st.components[s.name], s.steps, cps)
			h.stepAt[s.name] = at
			ok = ok && fits
		}
		if ok || extra == len(h.stepped)+2 {
			if ok {
				n += extra
			} else {
				for _, s := range h.stepped {
					h.stepAt[s.name] = defaultPlacement(len(s.steps))
				}
			}
			break
		}
	}
	h.n = n
	if n > 1 {
		h.add(Finding{
			Code: CodeExtraReconciliations, Severity: SeverityInfo, Subject: h.rel,
			Message:     fmt.Sprintf("the hop to %s reconciles sylva-units %d times; each pass after the first starts when the status ConfigMap says additional_reconciliation_required: \"true\"", h.rel, n),
			Remediation: "make sure something requests the extra reconciliations: sylva-units-operator, or `sylva-planner reconcile`/`controller`",
		})
	}
}

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
func (h *hop) passControlPlane(st *state, ps *Pass, subject string, i int) skew.Version {
	cpBefore := st.cp
	cpAfter := h.cpAt(i)
	if v := skew.ControlPlaneStep(cpBefore, cpAfter); v != nil {
		h.add(Finding{Code: CodeControlPlaneSkip, Severity: SeverityBlocker, Class: ClassActionable, Subject: subject, Message: v.Message})
	}
	ps.ControlPlane = VersionChange{From: cpBefore.Short(), To: cpAfter.Short()}
	if kv, ok := h.to.KubeVersion(cpAfter); ok {
		ps.ControlPlane.Version = kv.For(h.provider).String()
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
func (h *hop) passComponents(st *state, ps *Pass, subject string, i int, cpBefore, cpAfter skew.Version) {
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
		h.add(rangeFindings(h.cat, subject, name, before, after, cpBefore, cpAfter)...)
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
func (h *hop) passWorkers(st *state, ps *Pass, subject string, i int, cpAfter skew.Version) {
	last := i == h.n
	ps.Workers = WorkerChange{From: st.workers.Short(), To: st.workers.Short()}
	if v := skew.KubeletSkew(cpAfter, st.workers); v != nil && v.Code != skew.CodeKubeletNewer {
		h.add(Finding{
			Code: CodeKubeletSkew, Severity: SeverityBlocker, Class: ClassActionable, Subject: subject,
			Message:     fmt.Sprintf("workers on %s when the control plane reaches %s: %s", st.workers.Short(), cpAfter.Short(), v.Message),
			Remediation: "upgrade the workers to a newer Kubernetes minor before this transition",
		})
	}
	if !h.to.HoldsWorkers() {
		if !st.workers.Equal(cpAfter.MinorOnly()) {
			ps.Workers.To = cpAfter.Short()
			ps.Workers.Rolls = true
			st.workers = cpAfter.MinorOnly()
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
	if roll && !st.workers.Equal(cpAfter.MinorOnly()) {
		ps.Workers.To = cpAfter.Short()
		ps.Workers.Rolls = true
		st.workers = cpAfter.MinorOnly()
	}
	ps.Workers.Paused = !roll
}

// passValues sets the helper values the pass writes and the status it
// must leave.
func (h *hop) passValues(ps *Pass, i int, cpAfter skew.Version) {
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

// componentSteps returns the versions a minor-stepped component goes
// through from cur to target, one minor per step, the target last. An
// intermediate minor takes the version the target release passes through,
// else the newest version of that minor a release of the catalog ships,
// else the newest the component catalog knows.
func componentSteps(cat *catalog.Catalog, to *catalog.Release, comp *catalog.Component, cur, target skew.Version) ([]skew.Version, []Finding) {
	if target.Compare(cur) <= 0 {
		return nil, nil
	}
	var steps []skew.Version
	var findings []Finding
	for m := cur.Minor + 1; m < target.Minor && cur.Major == target.Major; m++ {
		minor := skew.Version{Major: cur.Major, Minor: m}
		v, ok := intermediate(cat, to, comp, minor)
		if !ok {
			findings = append(findings, Finding{
				Code: CodeMissingStepVersion, Severity: SeverityBlocker, Class: ClassActionable, Subject: to.Release.String(),
				Message:     fmt.Sprintf("%s must pass through %s on its way from %s to %s, and the catalog knows no %s version", comp.Name, minor.Short(), cur, target, minor.Short()),
				Remediation: fmt.Sprintf("add a pass_through entry for %s %s to release %s in the catalog", comp.Name, minor.Short(), to.Release),
			})
			continue
		}
		steps = append(steps, v)
	}
	return append(steps, target), findings
}

func intermediate(cat *catalog.Catalog, to *catalog.Release, comp *catalog.Component, minor skew.Version) (skew.Version, bool) {
	for _, pt := range to.PassThrough {
		if pt.Name == comp.Name && pt.Version.CompareMinor(minor) == 0 {
			return pt.Version, true
		}
	}
	var best skew.Version
	for _, r := range cat.Releases {
		if rc, ok := r.Component(comp.Name); ok && rc.Version.CompareMinor(minor) == 0 && rc.Version.Compare(best) > 0 {
			best = rc.Version
		}
	}
	if !best.IsZero() {
		return best, true
	}
	for _, cv := range comp.Versions {
		if cv.Version.CompareMinor(minor) == 0 {
			best = cv.Version
		}
	}
	return best, !best.IsZero()
}

// rangeFindings checks that both versions of a component live during a pass
// support both control-plane minors of the pass.
func rangeFindings(cat *catalog.Catalog, subject, name string, before, after, cpBefore, cpAfter skew.Version) []Finding {
	comp, ok := cat.Component(name)
	if !ok {
		return nil
	}
	var out []Finding
	for _, v := range uniqueVersions(before, after) {
		cv, ok := comp.Version(v)
		if !ok {
			continue
		}
		r := cv.Kubernetes()
		for _, k := range uniqueVersions(cpBefore, cpAfter) {
			if !r.Contains(k) {
				out = append(out, incompatible(comp, v, r, k, subject))
			}
		}
	}
	return out
}

func uniqueVersions(a, b skew.Version) []skew.Version {
	if a.IsZero() {
		return []skew.Version{b}
	}
	if a.Equal(b) {
		return []skew.Version{a}
	}
	return []skew.Version{a, b}
}

func versionList(vs []skew.Version) string {
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

// placeSteps places the steps of a minor-stepped component in passes
// 1..len(cps)-1, in order, at most one per pass, so that every version live
// during a pass supports the control-plane minors before and after it
// (cps[i] is the minor after pass i, cps[0] the one before the hop). It
// returns the earliest placement, or false when none fits.
func placeSteps(cat *catalog.Catalog, name string, cur skew.Version, steps []skew.Version, cps []skew.Version) ([]int, bool) {
	comp, _ := cat.Component(name)
	supports := func(v skew.Version, pass int) bool {
		cv, ok := comp.Version(v)
		if !ok {
			return true // unknown versions are reported elsewhere
		}
		r := cv.Kubernetes()
		return r.Contains(cps[pass-1]) && r.Contains(cps[pass])
	}
	passes := len(cps) - 1
	at := make([]int, len(steps))
	var place func(k, from int, live skew.Version) bool
	place = func(k, from int, live skew.Version) bool {
		if k == len(steps) {
			for p := from; p <= passes; p++ {
				if !supports(live, p) {
					return false
				}
			}
			return true
		}
		for p := from; p <= passes-(len(steps)-k-1); p++ {
			if supports(live, p) && supports(steps[k], p) {
				at[k] = p
				if place(k+1, p+1, steps[k]) {
					return true
				}
			}
			if !supports(live, p) {
				return false // the old version cannot stay any longer
			}
		}
		return false
	}
	if len(steps) == 0 {
		return nil, true
	}
	return at, place(0, 1, cur)
}

// defaultPlacement puts step k in pass k+1, used when no placement fits so
// that the range findings show what breaks.
func defaultPlacement(steps int) []int {
	at := make([]int, steps)
	for k := range at {
		at[k] = k + 1
	}
	return at
}
