package status

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"gitlab.com/sylva-projects/sylva-planner/cell"
	"gitlab.com/sylva-projects/sylva-planner/envelope"
)

// APIVersion and Kind head the JSON and YAML output.
const (
	APIVersion = envelope.APIVersion
	Kind       = "ClusterStatus"
)

// Metadata heads the JSON and YAML output, as in every document.
type Metadata = envelope.Metadata

// document is the JSON and YAML form of a Report: the Report's fields,
// inline, after apiVersion, kind and metadata.
type document struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Metadata   Metadata `json:"metadata"`
	Report
}

func (r Report) document() document {
	return document{APIVersion: APIVersion, Kind: Kind, Metadata: r.Metadata, Report: r}
}

// Document is the JSON and YAML form of r, with its apiVersion,
// kind and metadata (envelope.WriteJSON and WriteYAML write it).
func (r Report) Document() any { return r.document() }

// WriteTable writes r for a person: the summary, the decoded ConfigMap, the
// Flux objects, the findings and the next command.
func (r Report) WriteTable(w io.Writer) error {
	ew := &errWriter{w: w}
	ns := r.Namespace
	if ns == "" {
		ns = "-"
	}
	ew.printf("Cluster status (namespace %s)\n\n", ns)
	for _, s := range r.Summary {
		ew.printf("  %s\n", s)
	}
	ew.printf("\n")
	tw := tabwriter.NewWriter(ew, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "Installed release:\t%s\n", r.Release)
	if k := r.Kubernetes; k != nil {
		fmt.Fprintf(tw, "Kubernetes:\t%s cluster; %s\n", ClusterKindOf(r.Namespace), k.Describe())
	}
	fmt.Fprintf(tw, "Progress:\t%s\n", r.Progress)
	fmt.Fprintf(tw, "Pass pending:\t%s\n", yesNo(r.PassPending))
	if r.PassRequest != "" {
		fmt.Fprintf(tw, "Pass requested:\t%s\n", r.PassRequest)
	}
	fmt.Fprintf(tw, "Can start now:\t%s\n", yesNo(r.CanStartNow))
	_ = tw.Flush()
	for _, reason := range r.Reasons {
		ew.printf("  - %s\n", reason)
	}

	if t := r.Transition; t != nil {
		ew.printf("\n%s\n", t.Line())
		keys := make([]string, 0, len(t.NextValues))
		for k := range t.NextValues {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			ew.printf("  %s: %s\n", k, t.NextValues[k])
		}
	}
	if cm := r.ConfigMap; cm != nil {
		ew.printf("\nConfigMap %s\n", qualified(cm.Namespace, cm.Name))
		tw = tabwriter.NewWriter(ew, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  KEY\tVALUE")
		for _, kv := range cm.rows() {
			fmt.Fprintf(tw, "  %s\t%s\n", kv[0], escapedLine(kv[1]))
		}
		_ = tw.Flush()
	}
	if r.Kustomization != nil || r.HelmRelease != nil {
		ew.printf("\n")
		tw = tabwriter.NewWriter(ew, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "OBJECT\tGENERATION\tREADY\tSUSPENDED\tLAST HANDLED")
		for _, f := range []*FluxObject{r.Kustomization, r.HelmRelease} {
			if f == nil {
				continue
			}
			fmt.Fprintf(tw, "%s/%s\t%d/%d\t%s\t%s\t%s\n", f.Kind, f.Name, f.ObservedGeneration, f.Generation,
				readyText(f), yesNo(f.Suspended), cell.OrDash(f.LastHandledReconcileAt))
		}
		_ = tw.Flush()
		// The annotations the readiness rule reads, under the object that
		// carries them: the targets and the request on the Kustomization,
		// the request passed on and its tracking on the HelmRelease.
		for _, o := range []struct {
			f    *FluxObject
			keys []string
		}{
			{r.Kustomization, []string{AnnotationTargetReleaseRevision, AnnotationTargetChartVersion, AnnotationTargetValuesChecksum, AnnotationReconciliationRequested}},
			{r.HelmRelease, []string{AnnotationReconcileRequestedAt, AnnotationHandledRequest, AnnotationOperatorHandled}},
		} {
			if o.f == nil || !slices.ContainsFunc(o.keys, func(k string) bool { _, ok := o.f.Annotations[k]; return ok }) {
				continue
			}
			ew.printf("%s/%s annotations:\n", o.f.Kind, o.f.Name)
			for _, k := range o.keys {
				if v, ok := o.f.Annotations[k]; ok {
					ew.printf("  %s: %s\n", k, v)
				}
			}
		}
	}
	if len(r.Findings) > 0 {
		ew.printf("\n")
		tw = tabwriter.NewWriter(ew, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "SEVERITY\tCODE\tMESSAGE")
		for _, f := range r.Findings {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", f.Severity, f.Code, f.Message)
		}
		_ = tw.Flush()
	}
	ew.printf("\nNext: %s\n", r.next())
	return ew.err
}

// next is the command or action that follows from r: each command with
// the selecting flags of r.Selection, so that it reads the same cluster,
// namespace, catalog and target. Without a target (--to), a plan goes to
// r.Newest, or says in words what to fill in when it is unknown.
func (r Report) next() string {
	if then, ok := r.nextWhileMoving(); ok {
		return then
	}
	if then, ok := r.nextAtRest(); ok {
		return then
	}
	return r.nextPlan()
}

// nextWhileMoving is what follows while a release is failed, suspended,
// without its status, or passing on: what to fix, resume or wait for.
func (r Report) nextWhileMoving() (string, bool) {
	sel, suspended := r.Selection, Suspended(r.obs)
	switch {
	case r.PassFailed != "":
		// helm-controller will not run the failed pass again by itself.
		ns := cmp.Or(r.Namespace, DefaultNamespace)
		return fmt.Sprintf("the last release failed (%s): %s; then: %s", r.PassFailed, FailedPassFix(r.HelmReleaseName, ns), sel.Live().Command("status")), true
	case len(suspended) > 0 && r.midTransition():
		// Nothing runs until it is resumed, not even a pass already
		// passed on: waiting or planning would not help.
		then := sel.Live().Command("status")
		if r.PassPending {
			then = sel.Command("reconcile")
		}
		return "resume " + strings.Join(suspended, " and ") + ", then: " + then, true
	case r.StatusDeleted != "":
		// Where the transition stands is unknown until the status is
		// written back (the Kustomization, targeting a revision the
		// status does not record, reads as a release being applied).
		return fmt.Sprintf("let the sylva-units-status unit write the status back (flux reconcile kustomization %s -n %s), then check again: %s", KustomizationName, cmp.Or(r.Namespace, DefaultNamespace), sel.Live().Command("status")), true
	case r.PassPending && r.CanStartNow:
		// reconcile acts on a cluster: a status file is not repeated.
		return sel.Command("reconcile"), true
	case (r.PassPending || r.InProgress) && sel.HasState():
		// A file read once does not change while the cluster moves on.
		return "wait, then read the cluster: " + sel.Live().Command("status"), true
	case r.PassPending || r.InProgress:
		return "wait, then check again: " + sel.Command("status"), true
	}
	return "", false
}

// nextAtRest is what follows from a release at rest that there is
// nothing to plan from: at the end of its transition, freshly installed,
// or with a status that names no release.
func (r Report) nextAtRest() (string, bool) {
	sel := r.Selection
	switch {
	case r.Transition != nil && r.Transition.Done() && StateOf(r) == StateDone:
		// At the end of the plan to --to, and the last release finished:
		// as plan -A says of such a release.
		return "none: the release is on " + r.Transition.Target, true
	case r.Transition != nil && r.Transition.Done() && StateOf(r) == StateUnknown && slices.ContainsFunc(r.Findings, func(f Finding) bool { return f.Code == CodeFluxNotRead }):
		// A ConfigMap alone: plan would only say there is nothing to do.
		return "none: the release is on " + r.Transition.Target + " (whether its last release finished is unknown: read the Kustomization and the HelmRelease too)", true
	case r.FreshInstall:
		// No release to plan from, in the file or the cluster, until the
		// first install completes and writes the status.
		return "nothing to plan from yet: no release has completed its install (no sylva-units-status ConfigMap); once one has, check again: " + sel.Live().Command("status"), true
	case r.InstalledRelease.IsZero():
		// A status that names no release: plan --status would refuse it.
		sel.State = ""
		if sel.To != "" {
			return "plan from the release the cluster runs, which the status does not name (fill it in): " + sel.Command("plan", "--from", "<the release installed>", "--to", sel.To), true
		}
		return "plan from the release the cluster runs, which the status does not name, to the release to go to (fill both in): " + sel.Command("plan", "--from", "<the release installed>", "--to", "<the release to go to>"), true
	}
	return "", false
}

// nextPlan is the plan command from the installed release to --to, or to
// the newest release of the catalog.
func (r Report) nextPlan() string {
	sel := r.Selection
	from := []string{"--from", r.InstalledRelease.String()}
	if sel.HasState() {
		// plan reads the installed release from the same file.
		from = nil
	}
	switch to := sel.To; {
	case to == "" && r.Newest.IsZero():
		return "plan to the release to go to (fill it in; the catalog does not hold " + r.InstalledRelease.String() + "): " + sel.Command("plan", append(from, "--to", "<the release to go to>")...)
	case to == "" && r.Newest.CompareMinor(r.InstalledRelease) <= 0:
		return "none: the release is on " + r.InstalledRelease.String() + ", and the catalog has no newer release it can go to"
	default:
		return sel.Command("plan", append(from, "--to", cmp.Or(to, r.Newest.String()))...)
	}
}

// midTransition reports whether r is in the middle of a transition: a
// pass pending, passed on or being applied, a status that asks for a
// further pass, or a place in the plan to --to short of its end.
func (r Report) midTransition() bool {
	cm := r.obs.ConfigMap
	return r.PassPending || r.InProgress ||
		(cm != nil && cm.AdditionalReconciliationRequired != nil && *cm.AdditionalReconciliationRequired) ||
		(r.Transition != nil && r.Transition.PassKnown && !r.Transition.Done())
}

// rows returns the ConfigMap's keys and values: known keys in a fixed
// order, then unknown keys sorted.
func (s *Status) rows() [][2]string {
	var out [][2]string
	add := func(k, v string) {
		if v == "" {
			return
		}
		if slices.Contains(s.FromAdditionalInfo, k) {
			k += " (additional-info)"
		}
		out = append(out, [2]string{k, v})
	}
	if !s.SylvaRelease.IsZero() {
		add(KeySylvaRelease, s.SylvaRelease.String())
	}
	if s.AdditionalReconciliationRequired != nil {
		add(KeyAdditionalReconciliationRequired, fmt.Sprint(*s.AdditionalReconciliationRequired))
	}
	add(KeySylvaBranch, s.SylvaBranch)
	add(KeyChartVersion, s.ChartVersion)
	add(KeyReleaseRevision, s.ReleaseRevision)
	add(KeyReleaseTime, s.ReleaseTime)
	add(KeyValuesChecksum, s.ValuesChecksum)
	if len(s.OneShotUnits) > 0 {
		parts := make([]string, 0, len(s.OneShotUnits))
		for _, u := range slices.Sorted(maps.Keys(s.OneShotUnits)) {
			parts = append(parts, u+"="+s.OneShotUnits[u])
		}
		add(KeyOneShotUnits, strings.Join(parts, ", "))
	}
	if len(s.EnabledUnits) > 0 {
		add(KeyEnabledUnits, fmt.Sprintf("%d units: %s", len(s.EnabledUnits), strings.Join(s.EnabledUnits, ", ")))
	}
	add(KeyAdditionalInfo, s.AdditionalInfo)
	add(KeyTransitionFrom, s.TransitionFrom)
	add(KeyTransitionPass, s.TransitionPass)
	for _, k := range slices.Sorted(maps.Keys(s.Unknown)) {
		out = append(out, [2]string{k + " (unknown)", s.Unknown[k]})
	}
	return out
}

func readyText(f *FluxObject) string {
	if f.Ready == nil {
		return "-"
	}
	s := f.Ready.Status
	if f.Ready.Reason != "" {
		s += " (" + f.Ready.Reason + ")"
	}
	return s
}

func qualified(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}

// escapedLine shows a multi-line value on one line: its line breaks
// written as \n (a final one dropped), cut to 120 runes.
func escapedLine(s string) string {
	s = strings.TrimRight(s, "\n")
	s = strings.ReplaceAll(s, "\n", `\n`)
	return truncate(s, 120)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// errWriter keeps the first write error so that the table code stays linear.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func (e *errWriter) printf(format string, args ...any) { fmt.Fprintf(e, format, args...) }

// Suspended names the Flux objects of obs that are suspended, each with the
// flux command that resumes it: nothing of sylva-units runs until they are
// resumed.
func Suspended(obs Observation) []string {
	var out []string
	for _, o := range []struct {
		f     *FluxObject
		short string
	}{{obs.Kustomization, "ks"}, {obs.HelmRelease, "hr"}} {
		if o.f == nil || !o.f.Suspended {
			continue
		}
		ns := cmp.Or(o.f.Namespace, obs.Namespace, DefaultNamespace)
		out = append(out, fmt.Sprintf("%s %s (flux resume %s %s -n %s)", o.f.Kind, o.f.Name, o.short, o.f.Name, ns))
	}
	return out
}
