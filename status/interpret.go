package status

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/finding"
	"gitlab.com/sylva-projects/sylva-planner/semver"
)

// Observation is what was read of a cluster (or a file), as plain values.
type Observation struct {
	// Namespace is the release namespace that was read.
	Namespace string
	// ConfigMap is the decoded sylva-units-status ConfigMap; nil when absent.
	ConfigMap *Status
	// Kustomization is the sylva-units-status Kustomization and HelmRelease
	// the sylva-units HelmRelease; nil when absent or not read.
	Kustomization *FluxObject
	HelmRelease   *FluxObject
	// FluxRead is true when the Kustomization and HelmRelease were looked up
	// (live, or a List that holds Flux objects): nil then means absent.
	// When false (a ConfigMap file alone) nil means unknown.
	FluxRead bool
	// HelmReleaseName is the name of the HelmRelease looked up
	// (--helmrelease); DefaultHelmRelease when empty.
	HelmReleaseName string
	// ControlPlanes are the Cluster API control plane objects of the
	// namespace (of ControlPlaneKinds) and MachineDeployments its
	// MachineDeployments, in any order; nil when none or not read.
	// ControlPlaneObject, Kubernetes and KubernetesMinors interpret them.
	ControlPlanes      []CAPIObject
	MachineDeployments []CAPIObject
	// ClusterAPIUnread says why the Cluster API objects of the namespace
	// could not be read (the reader may not list them); empty when they
	// were read or not looked up.
	ClusterAPIUnread string
}

// HelmReleaseOf is the name of the HelmRelease obs looked up.
func (obs Observation) HelmReleaseOf() string {
	if obs.HelmReleaseName == "" {
		return DefaultHelmRelease
	}
	return obs.HelmReleaseName
}

// Severity ranks a Finding (finding.Severity); status reports warnings
// and information only.
type Severity = finding.Severity

// Severities of the status findings.
const (
	// SeverityWarning needs attention.
	SeverityWarning = finding.SeverityWarning
	// SeverityInfo is worth knowing.
	SeverityInfo = finding.SeverityInfo
)

// Finding is one remark about the observed state (finding.Finding): Code,
// Severity, Subject (omitted when the remark is about the namespace as a
// whole) and Message. Code is stable; tests and tools assert on it.
type Finding = finding.Finding

// Finding codes.
const (
	CodeUnknownKey          = "unknown-key"
	CodeConfigMapName       = "configmap-name"
	CodePrereleaseCompare   = "prerelease-semver-compare"
	CodeChartVersion        = "chart-version-not-a-release"
	CodeDigDefault          = "fresh-install-dig-default"
	CodeFluxNotRead         = "flux-objects-not-read"
	CodeKustomizationAbsent = "kustomization-absent"
	CodeHelmReleaseAbsent   = "helmrelease-absent"
	CodeNoTargets           = "no-target-annotations"
	CodeSuspended           = "helmrelease-suspended"
	CodeStaleReady          = "helmrelease-stale-ready"
	CodeRequestUnverified   = "pass-request-unverified"
	CodeRequestInvalid      = "pass-request-invalid"
	CodeRequestNotFromChart = "pass-request-not-from-chart"
	CodePassFailed          = "pass-failed"
	// CodeKubernetesNotRead: the namespace's Cluster API objects, which say
	// the cluster's Kubernetes minors, could not be read (no right to list
	// them).
	CodeKubernetesNotRead = "kubernetes-not-read"
	// CodeContradiction: the status's data and its additional-info give a
	// key different values.
	CodeContradiction = "status-contradiction"
	// CodeStatusDeleted: no status ConfigMap, though the release is past
	// its first install.
	CodeStatusDeleted = "status-deleted"
)

// Report is the interpretation of an Observation.
type Report struct {
	// Metadata is written at the head of JSON and YAML output; the caller
	// sets it.
	Metadata Metadata `json:"-"`
	// Selection is what the report was read from (cluster, namespace,
	// catalog, target, file); the commands its Next suggests repeat it.
	// The caller sets it.
	Selection envelope.Selection `json:"-"`
	Namespace string             `json:"namespace,omitempty"`
	// Summary says the state in plain words, one sentence a line, in a
	// fixed order: release, progress, pending pass, whether it can start.
	Summary []string `json:"summary"`
	// StatusDeleted is the Helm release revision the status Kustomization
	// targets when there is no status ConfigMap although that revision is
	// past the first install (DeletedRevision): the status was deleted,
	// and FreshInstall is false. Empty otherwise.
	StatusDeleted string `json:"statusDeleted,omitempty"`
	// FreshInstall is true when there is no status ConfigMap: nothing has
	// completed yet. A ConfigMap without sylva_release is an old release,
	// not a fresh install.
	FreshInstall bool `json:"freshInstall"`
	// InstalledRelease is the release from Status.Release; zero when unknown.
	InstalledRelease semver.Version `json:"installedRelease,omitzero"`
	ReleaseSource    ReleaseSource  `json:"releaseSource"`
	// Release describes the installed release in words.
	Release  string `json:"release"`
	Progress Phase  `json:"progress"`
	// InProgress is Progress == PhaseInProgress or PhaseInstalling.
	InProgress bool `json:"inProgress"`
	// PassPending is true when another reconciliation pass is asked for
	// (RequestOf), it was not yet passed on to the HelmRelease and no
	// release is in progress.
	PassPending bool `json:"passPending"`
	// PassRequest is the value of the Kustomization's
	// additional-reconciliation-requested annotation, if any.
	PassRequest string `json:"passRequest,omitempty"`
	// PassFailed says why the requested pass failed, when it was passed
	// on and helm-controller ended it failed (Progress is then
	// PhaseFailed); empty otherwise.
	PassFailed string `json:"passFailed,omitempty"`
	// CanStartNow is true when a pass may start now, by the readiness rule
	// (Assess) that reconcile and the controller apply too. Reasons says
	// why not, in a fixed order.
	CanStartNow bool     `json:"canStartNow"`
	Reasons     []string `json:"reasons"`
	// Findings are sorted by severity, code, subject and message.
	Findings  []Finding `json:"findings"`
	ConfigMap *Status   `json:"configMap,omitempty"`
	// Kubernetes is what the namespace's Cluster API objects say of its
	// cluster's Kubernetes minors; nil when none was read.
	Kubernetes    *Kubernetes `json:"kubernetes,omitempty"`
	Kustomization *FluxObject `json:"kustomization,omitempty"`
	HelmRelease   *FluxObject `json:"helmRelease,omitempty"`
	// HelmReleaseName is the name of the HelmRelease looked up
	// (Observation.HelmReleaseOf).
	HelmReleaseName string `json:"-"`
	// Transition is where the cluster stands in the plan to a target
	// release; the caller fills it (status --to), nil otherwise.
	Transition *Transition `json:"transition,omitempty"`
	// Newest is the release the plan Next suggests goes to when the
	// status was given no target (--to): the newest release of the
	// catalog that supports upgrading from the installed one, the
	// installed release itself when none is newer; zero when the catalog
	// does not hold the installed release (Next then names what to fill
	// in). The caller fills it (Fleet.Suggest for a fleet's rows).
	Newest semver.Version `json:"-"`

	obs Observation
}

// Observation is what the report interprets.
func (r Report) Observation() Observation { return r.obs }

// Transition is the cluster's place in the plan to a target release, as
// plain values (this package does not plan).
type Transition struct {
	Target     string   `json:"target"`
	Route      []string `json:"route,omitempty"`
	PassesDone int      `json:"passesDone"`
	Passes     int      `json:"passes"`
	// PassKnown is false when the status cannot tell which pass completed.
	PassKnown bool `json:"passKnown"`
	// Inferred says how the pass was placed when the status records no
	// transition_from and transition_pass (planner.Position.Inferred);
	// empty when the status placed it.
	Inferred string `json:"inferred,omitempty"`
	Summary  string `json:"summary"`
	// NextValues are the helper values of the next pass, by value name.
	NextValues map[string]string `json:"nextValues,omitempty"`
	// Findings are the plan's findings that say why the cluster is not
	// placed although the plan was computed: the kb-stale warning of a
	// target newer than the catalog, whose plan cannot be judged
	// (PassKnown is then false and Route empty). Nil otherwise.
	Findings []Finding `json:"findings,omitempty"`
	// Failed says which pass failed and why, when the pass requested
	// after the passes done was passed on and helm-controller ended it
	// failed (MarkFailed): "pass 2 of 2 failed: HelmRelease sylva-units is
	// not Ready (UpgradeFailed: …)". Empty otherwise.
	Failed string `json:"failed,omitempty"`
}

// MarkFailed records on t, placed from obs, that the pass after those
// done failed, when obs shows that the last release failed
// (Readiness.Failed): the requested pass, or the chart upgrade that
// starts the transition.
// A nil t, or one that places no next pass, is left as it is.
func (t *Transition) MarkFailed(obs Observation) {
	if t == nil || !t.PassKnown || t.PassesDone >= t.Passes {
		return
	}
	if f := Assess(obs).Failed; f != "" {
		t.Failed = fmt.Sprintf("pass %d of %d failed: %s", t.PassesDone+1, t.Passes, f)
	}
}

// Unjudged reports whether the plan to the target was computed but cannot
// be judged, so that nothing is placed in it: Findings say why.
func (t *Transition) Unjudged() bool { return !t.PassKnown && len(t.Findings) > 0 }

// Done reports whether the release is placed at the end of the plan: every
// pass of it done (none, when it is on the target).
func (t *Transition) Done() bool { return t.PassKnown && t.PassesDone >= t.Passes }

// NextPass names the pass that comes next, "pass 2 of 3 of the transition
// to 1.7", as the Event of its request says it; "" when the status cannot
// tell which pass completed, or every pass is done.
func (t *Transition) NextPass() string {
	if t == nil || !t.PassKnown || t.PassesDone >= t.Passes {
		return ""
	}
	return fmt.Sprintf("pass %d of %d of the transition to %s", t.PassesDone+1, t.Passes, t.Target)
}

// Line is the transition in one line, as status and reconcile print it:
// "Transition to 1.6 (route 1.4 → 1.6): pass 1 of 2 done; next: …".
func (t *Transition) Line() string {
	s := "Transition to " + t.Target
	if len(t.Route) > 0 {
		s += " (route " + strings.Join(t.Route, " → ") + ")"
	}
	if t.Failed != "" {
		return fmt.Sprintf("%s: pass %d of %d done; %s", s, t.PassesDone, t.Passes, t.Failed)
	}
	return s + ": " + t.Summary
}

// Interpret decides what obs means. It never fails: what cannot be told is
// said in the Report (Progress unknown, Reasons, Findings).
func Interpret(obs Observation) Report {
	r := Report{
		Namespace:     obs.Namespace,
		ConfigMap:     obs.ConfigMap,
		Kustomization: obs.Kustomization,
		HelmRelease:   obs.HelmRelease,
		FreshInstall:  obs.ConfigMap == nil && DeletedRevision(obs) == "",
		StatusDeleted: DeletedRevision(obs),

		HelmReleaseName: obs.HelmReleaseOf(),
		obs:             obs,
	}
	if k := obs.Kubernetes(); !k.IsZero() {
		r.Kubernetes = &k
	}
	ns := obs.Namespace
	if ns == "" {
		ns = "the release namespace"
	}
	cm, ks, hr := obs.ConfigMap, obs.Kustomization, obs.HelmRelease

	r.judgeRelease(obs, ns)
	r.judgeFluxObjects(obs, ns)

	// Progress and whether a pass can start: the readiness rule, on the
	// request as RequestOf reads it (bound to the status write).
	req, reqErr := RequestOf(obs)
	rd := assess(obs, req, reqErr)
	r.Progress, r.InProgress = rd.Progress, rd.InProgress()
	progressWhy := rd.ProgressWhy
	if r.Progress == PhaseUnknown && ks != nil {
		r.add(CodeNoTargets, SeverityInfo, ks.Name, "the Kustomization carries no target-* annotation to compare with the status")
	}

	// Requested pass.
	pending, pendingWhy := r.judgeRequest(obs, req, reqErr)
	// While a pass runs, the status still shows the request that started it.
	r.PassPending = pending && !r.InProgress && req.Failed == ""
	r.judgeFailure(obs, rd, req)

	// Can a pass start now?
	r.Reasons = rd.Blockers
	r.CanStartNow = rd.MayStart()
	if r.Reasons == nil {
		r.Reasons = []string{}
	}
	if r.Findings == nil {
		r.Findings = []Finding{}
	}

	r.Summary = r.summary(cm, progressWhy, pendingWhy, ns)
	if reqErr == nil && req.Handled() && req.Failed == "" && hr != nil && hr.Suspended {
		// helm-controller records a request it sees while suspended, and
		// runs it only once resumed: the pass is neither pending nor done.
		r.Summary[2] = fmt.Sprintf("The pass asked for (%q) was passed on to HelmRelease %s, which is suspended: it runs once the HelmRelease is resumed.", req.Token, hr.Name)
	}
	sortFindings(r.Findings)
	return r
}

// judgeRelease says which release is installed, and what the status
// ConfigMap (deleted, contradicting itself, absent) means for it.
func (r *Report) judgeRelease(obs Observation, ns string) {
	cm := obs.ConfigMap
	r.InstalledRelease, r.ReleaseSource, _ = cm.Release()
	r.Release = describeRelease(cm, r.InstalledRelease, r.ReleaseSource)
	if r.StatusDeleted != "" {
		r.Release = "unknown: the sylva-units-status ConfigMap was deleted (Kustomization " + KustomizationName + " targets Helm release revision " + r.StatusDeleted + ")"
		r.add(CodeStatusDeleted, SeverityWarning, ConfigMapName, DeletedMessage(obs.Namespace, r.StatusDeleted))
	}
	r.Findings = append(r.Findings, configMapFindings(cm, r.InstalledRelease, r.ReleaseSource)...)
	if cm != nil && len(cm.Contradicts) > 0 {
		r.add(CodeContradiction, SeverityWarning, ConfigMapName, ContradictionMessage(cm, ns))
	}
	if cm == nil && r.StatusDeleted == "" {
		r.add(CodeDigDefault, SeverityInfo, ConfigMapName,
			`no status ConfigMap: a template that reads sylva_release with a dig default ("1.4") would take this fresh install for an upgrade from 1.4 and run an extra pass`)
	}
}

// judgeFluxObjects says what is missing or wrong among the Flux objects
// read (or that they were not), and the Cluster API objects.
func (r *Report) judgeFluxObjects(obs Observation, ns string) {
	ks, hr := obs.Kustomization, obs.HelmRelease
	if !obs.FluxRead {
		r.add(CodeFluxNotRead, SeverityInfo, "",
			"the sylva-units-status Kustomization and the HelmRelease were not read (offline input): progress and whether a pass can start are unknown")
	} else {
		if ks == nil {
			r.add(CodeKustomizationAbsent, SeverityWarning, KustomizationName, fmt.Sprintf("Kustomization %s not found in %s", KustomizationName, ns))
		}
		if hr == nil {
			r.add(CodeHelmReleaseAbsent, SeverityWarning, "", fmt.Sprintf("HelmRelease %s was not found in %s", obs.HelmReleaseOf(), ns))
		}
	}
	if obs.ClusterAPIUnread != "" {
		r.add(CodeKubernetesNotRead, SeverityWarning, "", obs.ClusterAPIUnread+"; without them the plan takes the minors from --kubernetes and --workers, else from the catalog")
	}
	if hr != nil && hr.Suspended {
		r.add(CodeSuspended, SeverityWarning, hr.Name, fmt.Sprintf("HelmRelease %s is suspended: no pass runs until it is resumed (flux resume hr %s -n %s)", hr.Name, hr.Name, hr.Namespace))
	}
	if hr != nil && hr.Ready.IsTrue() && !hr.ReadyAtGeneration() {
		r.add(CodeStaleReady, SeverityWarning, hr.Name, fmt.Sprintf("HelmRelease %s shows Ready=True for an older generation (generation %d, observed %d)", hr.Name, hr.Generation, readyGen(hr)))
	}
}

// judgeRequest says whether a pass is pending on the request req (reqErr
// when it does not read), and why, and what is wrong with the request.
func (r *Report) judgeRequest(obs Observation, req Request, reqErr error) (pending bool, pendingWhy string) {
	ks, hr := obs.Kustomization, obs.HelmRelease
	if ks != nil {
		r.PassRequest = ks.Annotations[AnnotationReconciliationRequested]
	}
	switch {
	case reqErr != nil:
		pending, pendingWhy = true, KeyAdditionalReconciliationRequired+` is "true" in the status`
		r.add(CodeRequestInvalid, SeverityWarning, KeyAdditionalReconciliationRequired, reqErr.Error()+": reconcile refuses to pass it on")
	case req.Foreign != "":
		r.add(CodeRequestNotFromChart, SeverityWarning, KeyAdditionalReconciliationRequired,
			fmt.Sprintf("the status asks for a pass, but not as the chart wrote it: %s written by another field manager than %s (which applies the chart's sylva-units-status unit); no pass is requested: reconcile and the controller pass nothing on", req.Foreign, ChartWriter))
	case req.Value == "":
	case hr == nil && req.Source == SourceAnnotation:
		r.add(CodeRequestUnverified, SeverityInfo, KustomizationName,
			fmt.Sprintf("a pass is requested (%q) but the HelmRelease was not read, so whether it was handled is unknown", req.Value))
	case req.Failed != "":
		pendingWhy = fmt.Sprintf("the requested pass %q failed", req.Token)
	case req.Handled():
		// Not pending; while it runs the summary says it is the pass in progress.
		pendingWhy = "the requested pass was passed on (" + req.HandledBy + ")"
	case req.Source == SourceAnnotation:
		pending = true
		pendingWhy = fmt.Sprintf("the Kustomization requests a pass (%q) not yet passed on to HelmRelease %s", req.Value, hr.Name)
	default:
		pending, pendingWhy = true, KeyAdditionalReconciliationRequired+` is "true" in the status`
	}
	return pending, pendingWhy
}

// judgeFailure says the last pass, or the requested one, failed, and how
// to have helm-controller run it again.
func (r *Report) judgeFailure(obs Observation, rd Readiness, req Request) {
	hr := obs.HelmRelease
	if rd.Failed != "" {
		r.PassFailed = rd.Failed
		what := "the last release"
		if req.Failed != "" {
			what = fmt.Sprintf("the requested pass %q", req.Token)
		}
		r.add(CodePassFailed, SeverityWarning, hr.Name,
			fmt.Sprintf("%s failed: %s; helm-controller does not run it again until the HelmRelease changes: %s", what, rd.Failed, FailedPassFix(hr.Name, cmp.Or(hr.Namespace, obs.Namespace))))
	}
}

// Place puts the report in the plan to a target (status --to): its
// Transition, and the transition's findings among its own, in their
// order, so that a target the plan cannot judge is a finding of the
// report as it is of the plan. A nil t places nothing.
func (r *Report) Place(t *Transition) {
	r.Transition = t
	if t != nil && r.PassFailed != "" {
		t.MarkFailed(r.obs)
		if t.Failed != "" {
			r.Summary[2] = fmt.Sprintf("Pass %d of %d of the transition to %s failed, and helm-controller does not run it again until the HelmRelease changes.", t.PassesDone+1, t.Passes, t.Target)
		}
	}
	if t == nil || len(t.Findings) == 0 {
		return
	}
	r.Findings = append(slices.Clip(r.Findings), t.Findings...)
	sortFindings(r.Findings)
}

// sortFindings sorts fs by severity, code, subject and message.
func sortFindings(fs []Finding) {
	slices.SortFunc(fs, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.Severity.Rank(), b.Severity.Rank()), cmp.Compare(a.Code, b.Code),
			cmp.Compare(a.Subject, b.Subject), cmp.Compare(a.Message, b.Message))
	})
}

// DeletedRevision is the Helm release revision the status Kustomization
// of obs targets when obs has no status ConfigMap and that revision is
// past the first install (above 1): the ConfigMap was written, and is
// gone. Empty otherwise, or when the ConfigMap is there.
func DeletedRevision(obs Observation) string {
	ks := obs.Kustomization
	if obs.ConfigMap != nil || ks == nil {
		return ""
	}
	rev := ks.Annotations[AnnotationTargetReleaseRevision]
	if n, err := strconv.Atoi(rev); err != nil || n < 2 {
		return ""
	}
	return rev
}

// DeletedMessage says that the status ConfigMap of namespace ns was
// deleted after the first install (the Kustomization targets revision rev)
// and what to do.
func DeletedMessage(ns, rev string) string {
	return fmt.Sprintf("no sylva-units-status ConfigMap in namespace %s, although Kustomization %s targets Helm release revision %s (not a first install): the status was deleted, so where the transition stands is unknown; let the sylva-units-status unit write it back (flux reconcile kustomization %s -n %s), then run again",
		ns, KustomizationName, rev, KustomizationName, ns)
}

// ContradictionMessage says how the status cm of namespace ns contradicts
// itself and what to do: a key of its data (a hand edit, usually) and the
// additional-info the chart writes disagree, so where the transition
// stands cannot be told.
func ContradictionMessage(cm *Status, ns string) string {
	return fmt.Sprintf("the status contradicts itself (%s): where the transition stands cannot be told from it; remove the keys from its data (kubectl edit configmap %s -n %s) so that what the chart wrote in %s is read, then check again",
		strings.Join(cm.Contradicts, "; "), ConfigMapName, ns, KeyAdditionalInfo)
}

func (r *Report) add(code string, sev Severity, subject, msg string) {
	r.Findings = append(r.Findings, Finding{Code: code, Severity: sev, Subject: subject, Message: msg})
}

func describeRelease(cm *Status, v semver.Version, src ReleaseSource) string {
	switch {
	case cm == nil:
		return "none: fresh install (no sylva-units-status ConfigMap)"
	case src == SourceSylvaRelease && v.IsPrerelease():
		return fmt.Sprintf("%s development cycle (sylva_release %s)", v.Short(), v)
	case src == SourceSylvaRelease:
		return fmt.Sprintf("%s (sylva_release)", v)
	case src == SourceChartVersion:
		return fmt.Sprintf("%s (sylva-units chart %s)", v, cm.ChartVersion)
	case src == SourceBranch && !v.IsZero():
		return fmt.Sprintf("%s (branch %s)", v, cm.SylvaBranch)
	case src == SourceBranch:
		return fmt.Sprintf("development (branch %s, no release number)", cm.SylvaBranch)
	case cm.ChartVersion != "":
		return fmt.Sprintf("unknown: development chart %s and no sylva_release", cm.ChartVersion)
	}
	return "predates status tracking (≤ 1.5): no sylva_release, chart version or branch"
}

func configMapFindings(cm *Status, v semver.Version, src ReleaseSource) []Finding {
	if cm == nil {
		return nil
	}
	var out []Finding
	if cm.Name != "" && cm.Name != ConfigMapName {
		out = append(out, Finding{
			Code: CodeConfigMapName, Severity: SeverityWarning, Subject: cm.Name,
			Message: fmt.Sprintf("the ConfigMap is named %s, not %s", cm.Name, ConfigMapName),
		})
	}
	for _, k := range slices.Sorted(maps.Keys(cm.Unknown)) {
		out = append(out, Finding{
			Code: CodeUnknownKey, Severity: SeverityInfo, Subject: k,
			Message: fmt.Sprintf("unknown key %s kept as written", k),
		})
	}
	if src == SourceSylvaRelease && v.IsPrerelease() {
		out = append(out, Finding{
			Code: CodePrereleaseCompare, Severity: SeverityWarning, Subject: KeySylvaRelease,
			Message: fmt.Sprintf(`sylva_release %s is a pre-release: semverCompare "<%d.%d" is false for it; compare with a "-0" constraint or strip the pre-release`, v, v.Major, v.Minor+1),
		})
	}
	if cm.ChartVersion != "" && src != SourceChartVersion && src != SourceSylvaRelease {
		if _, ok := chartRelease(cm.ChartVersion); !ok {
			out = append(out, Finding{
				Code: CodeChartVersion, Severity: SeverityInfo, Subject: KeyChartVersion,
				Message: fmt.Sprintf("chart version %s is not a release version", cm.ChartVersion),
			})
		}
	}
	return out
}

func (r *Report) summary(cm *Status, progressWhy, pendingWhy, ns string) []string {
	var out []string
	switch {
	case cm == nil && r.StatusDeleted != "":
		out = append(out, "Status deleted: "+DeletedMessage(ns, r.StatusDeleted)+".")
	case cm == nil:
		out = append(out, fmt.Sprintf("Fresh install: no sylva-units-status ConfigMap in %s, so no release has completed yet.", ns))
	default:
		out = append(out, "Installed release: "+r.Release+".")
	}
	switch r.Progress {
	case PhaseDone:
		out = append(out, "The last release finished: "+progressWhy+".")
	case PhaseInProgress:
		out = append(out, "A release is in progress: "+progressWhy+".")
	case PhaseInstalling:
		out = append(out, "The first installation is in progress: "+progressWhy+".")
	case PhaseNotInstalled:
		out = append(out, "Nothing is installed: "+progressWhy+".")
	case PhaseUnknown:
		out = append(out, "Whether the last release finished is unknown: "+progressWhy+".")
	case PhaseFailed:
		out = append(out, "The last release failed: "+progressWhy+".")
	}
	switch {
	case r.PassFailed != "" && !r.PassPending:
		out = append(out, "No pass runs: the last one failed, and helm-controller does not run it again until the HelmRelease changes.")
	case r.PassPending:
		out = append(out, "Another pass is pending: "+pendingWhy+".")
	case r.InProgress && pendingWhy != "":
		out = append(out, "The pass asked for is the one in progress.")
	default:
		out = append(out, "No further pass is pending.")
	}
	switch {
	case r.CanStartNow && r.PassPending:
		out = append(out, "It can start now.")
	case r.CanStartNow:
		out = append(out, "A pass could start now.")
	case r.PassPending:
		out = append(out, "It cannot start now: "+strings.Join(r.Reasons, "; ")+".")
	default:
		out = append(out, "A pass could not start now: "+strings.Join(r.Reasons, "; ")+".")
	}
	return out
}
