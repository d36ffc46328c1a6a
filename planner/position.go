package planner

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"

	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

// TransitionState is what the sylva-units-status ConfigMap says about a
// transition in flight, as plain values.
type TransitionState struct {
	// Found is false when there is no status ConfigMap (a fresh install).
	Found bool
	// Installed is the release the status names; zero when it names none.
	Installed semver.Version
	// Pending is additional_reconciliation_required == "true".
	Pending bool
	// TransitionFrom and TransitionPass are the status keys of the same
	// names ("1.4", "1"); empty when absent.
	TransitionFrom string
	TransitionPass string
	// Applying says why a release is being applied now (the readiness
	// rule's progress, status.Assess: the status Kustomization targets
	// another release than the status describes, or a requested pass was
	// passed on and not yet picked up); empty when none is, or the Flux
	// objects were not read. The status then describes the release before
	// it.
	Applying string
	// Suspended names the Flux objects of the release that are suspended,
	// with the flux command that resumes each (status.Suspended, joined);
	// empty when none is, or they were not read. Nothing runs until they
	// are resumed.
	Suspended string
	// Cluster is the kind of cluster the status's namespace holds the
	// release of (status.ClusterKindOf); empty when the namespace is not
	// known. Kubernetes and Workers are the minors its Cluster API objects
	// say it runs, KubernetesSource where they were read; zero when none
	// were read. Compute plans from them when its input says nothing else.
	// Contradiction says how the status contradicts itself (its data and
	// additional-info disagree), empty when it does not: the plan is then
	// not placed, and blocked.
	Contradiction    string
	Cluster          ClusterKind
	Kubernetes       semver.Version
	Workers          semver.Version
	KubernetesSource string
	// Failed says why the last release helm-controller ran failed (the
	// pass requested, or the chart upgrade that started it:
	// status.Assess's Failed), and FailedFix what to do; empty when it did
	// not fail, or the Flux objects were not read.
	Failed, FailedFix string
	// inferred says how TransitionFrom and TransitionPass were inferred
	// from the catalog (inferPass) when the status records neither; why
	// says why they could not be, then. Both empty when the status was
	// read as it is.
	inferred, why string
	// contradicts are the keys of Contradiction, as the status names them.
	contradicts string
}

// TransitionStateOf reads the Progress of what a release namespace holds: its
// status ConfigMap (none is a fresh install) and, when they were read, the
// Flux objects that say whether a release is being applied. It is the one
// reading of the status that plan --status/--live, status --to, reconcile
// --to, verify and the controller's gate place a cluster from.
func TransitionStateOf(obs status.Observation) TransitionState {
	cm := obs.ConfigMap
	if cm == nil {
		return TransitionState{}
	}
	pr := TransitionState{Found: true, TransitionFrom: cm.TransitionFrom, TransitionPass: cm.TransitionPass}
	pr.Installed, _, _ = cm.Release()
	pr.Pending = cm.AdditionalReconciliationRequired != nil && *cm.AdditionalReconciliationRequired
	switch rd := status.Assess(obs); rd.Progress {
	case status.PhaseInProgress:
		pr.Applying = rd.ProgressWhy
	case status.PhaseFailed:
		pr.Failed, pr.FailedFix = rd.Failed, status.FailedPassFix(obs.HelmReleaseOf(), obs.Namespace)
	default:
	}
	pr.Suspended = strings.Join(status.Suspended(obs), " and ")
	if len(cm.Contradicts) > 0 {
		pr.Contradiction = status.ContradictionMessage(cm, cmp.Or(obs.Namespace, status.DefaultNamespace))
		pr.contradicts = strings.Join(cm.Contradicts, "; ")
	}
	if obs.Namespace != "" {
		pr.Cluster = ClusterKind(status.ClusterKindOf(obs.Namespace))
	}
	if cp, w, src, ok := obs.KubernetesMinors(); ok {
		if v, err := semver.Parse(cp); err == nil {
			pr.Kubernetes, pr.KubernetesSource = v.MinorOnly(), src
		}
		if v, err := semver.Parse(w); err == nil {
			pr.Workers = v.MinorOnly()
		}
	}
	return pr
}

// Position is where a cluster stands in the plan to a target release.
type Position struct {
	Target string `json:"target"`
	// Route and Passes are those of the plan from the hop's source.
	Route  []string `json:"route"`
	Passes int      `json:"passes"`
	// PassesDone counts the passes that completed; PassKnown is false when
	// the status cannot tell which pass of the hop completed (it lacks
	// transition_from and transition_pass).
	PassesDone int  `json:"passesDone"`
	PassKnown  bool `json:"passKnown"`
	// PassPending is true when the status asks for a further pass of the
	// hop it is in (additional_reconciliation_required: "true"), placed or
	// not.
	PassPending bool `json:"passPending"`
	// Next is the pass to run next; nil when the transition is done or
	// cannot be placed.
	Next *Pass `json:"next,omitempty"`
	// Applying says why a release is being applied now (Progress.Applying):
	// the position is that of the status, which describes the release
	// before it. Empty when none is.
	Applying string `json:"applying,omitempty"`
	// Suspended names the Flux objects that are suspended, each with the
	// flux command that resumes it (Progress.Suspended); empty when none is.
	Suspended string `json:"suspended,omitempty"`
	// Failed says why the last release failed (Progress.Failed), and
	// FailedFix what to do; empty when it did not.
	Failed    string `json:"failed,omitempty"`
	FailedFix string `json:"failedFix,omitempty"`
	// Inferred says how the pass was placed when the status records no
	// transition_from and transition_pass (a transition the chart runs
	// itself): the only hop of the catalog into the installed release
	// that takes a further pass. Empty when the status placed it.
	Inferred string `json:"inferred,omitempty"`
	// Summary says it in one sentence.
	Summary string `json:"summary"`
}

// Transition is the position as the status package carries it (status
// --to, reconcile, the Event of a requested pass), without the next pass's
// values; nil for a nil position.
func (pos *Position) Transition() *status.Transition {
	if pos == nil {
		return nil
	}
	return &status.Transition{Target: pos.Target, Route: pos.Route, PassesDone: pos.PassesDone, Passes: pos.Passes, PassKnown: pos.PassKnown, Inferred: pos.Inferred, Summary: pos.Summary}
}

// Locate places a cluster in the plan to the target in.To: not started
// (the status names an older release), in the middle of a hop (the status
// names the hop's release, asks for another pass and records which pass
// completed), or done. It is Compute with in.Progress set to pr, so that
// plan --status, status --to, reconcile --to and the controller's gate
// read the same pass as next. It returns an error only when no plan can be
// computed, and a nil position when the plan places nothing: that of a
// target newer than the catalog, whose kb-stale finding says why.
func Locate(in Input, pr TransitionState) (*Position, error) {
	target := in.To
	switch {
	case !pr.Found:
		return &Position{Target: target.String(), Summary: fmt.Sprintf("fresh install: nothing to upgrade to %s from; a fresh install of %s takes no transition pass", target, target)}, nil
	case pr.Installed.IsZero():
		return &Position{Target: target.String(), Summary: "the status does not say which release is installed; give plan --from to see the passes"}, nil
	}
	in.Progress = &pr
	p, err := Compute(in)
	if err != nil {
		return nil, err
	}
	return p.Position, nil
}

// startOf is the release the plan of a cluster whose status says pr starts
// from: transition_from while a further pass of a hop is pending (the hop's
// first pass has already run, so the plan must count it), else the
// installed release. placeable is false when a pass is pending and the
// status lacks the keys that place it.
func startOf(pr TransitionState) (from semver.Version, key string, placeable bool) {
	if !pr.Pending {
		return pr.Installed, "", true
	}
	v, ok := parseOK(pr.TransitionFrom)
	if !ok || pr.TransitionPass == "" || v.CompareMinor(pr.Installed) >= 0 {
		// Without the keys, or with a transition_from no older than the
		// release installed (no hop goes from a release to itself or
		// back), the pass cannot be placed.
		return pr.Installed, "", false
	}
	if pr.inferred != "" {
		return v, status.KeySylvaRelease + ", its hop inferred from the catalog", true
	}
	return v, status.KeyTransitionFrom, true
}

// Unkeyed is where a pass pending in a release stands when its status
// records neither transition_from nor transition_pass, as a chart that
// runs its own transition writes it (sylva_release and
// additional_reconciliation_required only): UnkeyedOf.
type Unkeyed struct {
	// From is the source of the one hop of the catalog into the release
	// that takes a further pass, after exactly one of its passes (a hop of
	// two passes): pass 1 from From is done, and the pass pending is the
	// hop's last. Zero when no such hop is the only one.
	From semver.Version
	// Ambiguous is true when several hops, or several passes of one hop,
	// could be in flight.
	Ambiguous bool
	// Why says, when From is zero, why the pass cannot be placed.
	Why string
}

// UnkeyedOf is the one rule that places a pass pending in release to
// whose status records no transition_from and transition_pass, from the
// hops of the catalog into to (each from a release to supports upgrading
// from, planned with the provider of in): the plan, status, reconcile,
// verify and the controller place it with it (Compute), and values
// generate's overlay renders the same pass.
func UnkeyedOf(in Input, to semver.Version) Unkeyed {
	return UnkeyedOfPlans(in, to, nil)
}

// UnkeyedOfPlans is UnkeyedOf with the plans of some hops into to
// already computed, by source minor ("1.4"), each with in's catalog,
// provider and date and no other option: they are not computed again.
func UnkeyedOfPlans(in Input, to semver.Version, plans map[string]*Plan) Unkeyed {
	rel, ok := in.Catalog.Release(to)
	if !ok {
		return Unkeyed{Why: fmt.Sprintf("the catalog does not have release %s", to.Short())}
	}
	type hop struct {
		from   semver.Version
		passes int
	}
	var hops []hop
	for _, from := range rel.UpgradeFrom {
		p := plans[from.Short()]
		if p == nil {
			var err error
			if p, err = Compute(Input{Catalog: in.Catalog, From: from, To: rel.Release, Provider: in.Provider, AsOf: in.AsOf}); err != nil {
				continue
			}
		}
		if len(p.Route) != 2 || len(p.Passes) < 2 {
			continue
		}
		hops = append(hops, hop{from, len(p.Passes)})
	}
	switch {
	case len(hops) == 1 && hops[0].passes == 2:
		return Unkeyed{From: hops[0].from}
	case len(hops) == 0:
		return Unkeyed{Why: fmt.Sprintf("no hop of the catalog into %s takes more than one pass", rel.Release.Short())}
	}
	var may []string
	for _, h := range hops {
		done := "1"
		if h.passes > 2 {
			done = fmt.Sprintf("1 to %d", h.passes-1)
		}
		may = append(may, fmt.Sprintf("after pass %s of %d from %s", done, h.passes, h.from.Short()))
	}
	return Unkeyed{Ambiguous: true, Why: "the catalog leaves several passes possible: " + strings.Join(may, "; ")}
}

// inferPass is pr with the pass UnkeyedOf places, its transition_from and
// transition_pass set and how they were inferred said; or pr with why it
// cannot be placed.
func inferPass(in Input, pr TransitionState) TransitionState {
	u := UnkeyedOf(in, pr.Installed)
	if u.From.IsZero() {
		pr.why = u.Why
		return pr
	}
	to := pr.Installed.Short()
	pr.TransitionFrom, pr.TransitionPass = u.From.Short(), "1"
	pr.inferred = fmt.Sprintf("the status records no %s/%s; the only hop of the catalog into %s that takes a further pass is %s → %s (2 passes), so pass 1 is done",
		status.KeyTransitionFrom, status.KeyTransitionPass, to, u.From.Short(), to)
	return pr
}

// place sets p.Position from what the status says, pr, on the plan computed
// from startOf(pr); while a release is being applied, the summary says so.
func (p *Plan) place(pr TransitionState, placeable bool) {
	p.placeStatus(pr, placeable)
	if pos := p.Position; pr.inferred != "" && pos.PassKnown {
		pos.Inferred = pr.inferred
		pos.Summary += " (" + pr.inferred + ")"
	}
	p.Position.Suspended = pr.Suspended
	if pos := p.Position; pr.Contradiction != "" {
		// Never "done": the pass the cluster runs is not known.
		pos.PassKnown, pos.Next = false, nil
		pos.Summary = pr.Contradiction
		p.add(Finding{
			Code: CodeStatusContradiction, Severity: SeverityBlocker, Class: ClassActionable, Subject: status.ConfigMapName,
			Message:     "the sylva-units-status ConfigMap contradicts itself: " + pr.contradicts,
			Remediation: pr.Contradiction,
		})
	}
	if pos := p.Position; pr.Failed != "" {
		pos.Failed, pos.FailedFix = pr.Failed, pr.FailedFix
		pos.Summary += "; the last release failed (" + pr.Failed + "): helm-controller does not run it again until the HelmRelease changes"
		p.add(Finding{
			Code: CodePassFailed, Severity: SeverityBlocker, Class: ClassActionable, Subject: "pass " + failedPass(pos),
			Message:     "the last release of sylva-units failed: " + pr.Failed,
			Remediation: pr.FailedFix,
		})
	}
	if pos := p.Position; pr.Applying != "" {
		pos.Applying = pr.Applying
		pos.Summary += "; a release is being applied now (" + pr.Applying + "), so the status still describes the one before it"
	}
}

// placeStatus is place from the status ConfigMap's keys.
func (p *Plan) placeStatus(pr TransitionState, placeable bool) {
	target := p.To.Release
	pos := &Position{Target: target, Route: p.Route, Passes: len(p.Passes), PassKnown: true, PassPending: pr.Pending}
	p.Position = pos
	onTarget := pr.Installed.CompareMinor(semver.MustParse(target)) == 0
	switch {
	case !placeable:
		pos.PassKnown, pos.Route, pos.Passes = false, nil, 0
		pos.Summary = fmt.Sprintf("a further pass of the hop to %s is pending, but the status records no %s/%s: the pass cannot be placed", pr.Installed.Short(), status.KeyTransitionFrom, status.KeyTransitionPass)
		if pr.why != "" {
			pos.Summary = fmt.Sprintf("a further pass of the hop to %s is pending, but the status records no %s/%s and %s: the pass cannot be placed", pr.Installed.Short(), status.KeyTransitionFrom, status.KeyTransitionPass, pr.why)
		}
		if v, ok := parseOK(pr.TransitionFrom); ok && pr.TransitionPass != "" {
			pos.Summary = fmt.Sprintf("the status is inconsistent: it asks for a further pass of a hop from %s to %s (%s %s, %s %s), and no hop goes from a release to itself or back: the pass cannot be placed",
				v.Short(), pr.Installed.Short(), status.KeyTransitionFrom, pr.TransitionFrom, status.KeyTransitionPass, pr.TransitionPass)
		}
		return
	case !pr.Pending && onTarget:
		pos.PassesDone = pos.Passes
		pos.Summary = fmt.Sprintf("done: the cluster is on %s and no pass is pending", target)
		if pos.Passes == 0 {
			pos.Summary = fmt.Sprintf("done: the cluster is on %s", target)
		}
		return
	case pr.Pending:
		// The plan starts at transition_from: its first hop is the one the
		// cluster is in, and transition_pass of its passes are done.
		k, ok := atoiOK(pr.TransitionPass)
		hopPasses := 0
		if len(p.Passes) > 0 {
			hopPasses = p.Passes[0].HopPasses
		}
		switch {
		case len(p.Route) < 2 || semver.MustParse(p.Route[1]).CompareMinor(pr.Installed) != 0:
			pos.PassKnown = false
			pos.Summary = fmt.Sprintf("the status says the cluster is in the hop from %s to %s, which the plan to %s (route %s) does not take: finish that hop first (plan --to %s)", pr.TransitionFrom, pr.Installed.Short(), target, routeText(p.Route), pr.Installed.Short())
			return
		case !ok:
			pos.PassKnown = false
			pos.Summary = fmt.Sprintf("the status asks for a further pass of the hop from %s to %s, but its %s %q is not a pass number: the status is malformed, and the pass cannot be placed",
				pr.TransitionFrom, pr.Installed.Short(), status.KeyTransitionPass, pr.TransitionPass)
			return
		case k < 1 || k >= hopPasses:
			pos.PassKnown = false
			pos.Summary = fmt.Sprintf("the status asks for a further pass after pass %q of the hop from %s to %s, which takes %d pass(es) in the plan to %s: the status and the plan disagree (was the status written with another catalog?), and the pass cannot be placed",
				pr.TransitionPass, pr.TransitionFrom, pr.Installed.Short(), hopPasses, target)
			return
		}
		pos.PassesDone = k
	}
	if pos.PassesDone >= len(p.Passes) {
		pos.PassKnown = false
		pos.Summary = fmt.Sprintf("no pass is planned from %s to %s (see the findings)", pr.Installed.Short(), target)
		return
	}
	next := p.Passes[pos.PassesDone]
	pos.Next = &next
	how := "upgrade the sylva-units HelmRelease to Sylva " + next.Release
	if next.Trigger == TriggerReconciliation {
		how = "an additional reconciliation of sylva-units"
	}
	pos.Summary = fmt.Sprintf("pass %d of %d done; next: pass %d, %s: control plane %s → %s, k8s_version_short %s", pos.PassesDone, pos.Passes, next.Index, how, next.ControlPlane.From, next.ControlPlane.To, next.Values.K8sVersionShort)
}

// midway reports a plan whose cluster has run some of its passes and has
// one pending.
func (p *Plan) midway() bool {
	return p.Position != nil && p.Position.Next != nil && p.Position.PassesDone > 0
}

// applying reports a plan whose cluster is applying a release now.
func (p *Plan) applying() bool {
	return p.Position != nil && p.Position.Applying != ""
}

// unplaced reports a plan whose status asks for a pass it cannot place.
func (p *Plan) unplaced() bool {
	return p.Position != nil && !p.Position.PassKnown
}

func routeText(route []string) string {
	s := ""
	for i, r := range route {
		if i > 0 {
			s += " → "
		}
		s += r
	}
	return s
}

// parseOK and atoiOK read status values whose being malformed is an
// answer (the pass cannot be placed), not an error.
func parseOK(s string) (semver.Version, bool) {
	v, err := semver.Parse(s)
	return v, err == nil
}

func atoiOK(s string) (int, bool) {
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// CodePassFailed is the finding of a plan whose cluster's last release
// failed: the pass it ran does not run again by itself.
const CodePassFailed = "pass-failed"

// failedPass names the pass that failed: the one after those done.
func failedPass(pos *Position) string {
	if !pos.PassKnown || pos.Passes == 0 {
		return "of the last release"
	}
	return fmt.Sprintf("%d of %d", min(pos.PassesDone+1, pos.Passes), pos.Passes)
}

// CodeStatusContradiction is the finding of a plan placed from a status
// whose data and additional-info disagree.
const CodeStatusContradiction = "status-contradiction"
