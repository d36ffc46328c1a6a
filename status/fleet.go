package status

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/cell"
	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/yamldoc"
)

// This file is the fleet view: every sylva-units release a management
// cluster holds (the management release and one per workload cluster, each
// in its own namespace), one row each, read from one observation per
// namespace.

// FleetKind is the kind of the fleet view's JSON and YAML document.
const FleetKind = "FleetStatus"

// FleetEntry is what was read of one release namespace: its Observation,
// or Err when one of its objects could not be decoded (a malformed value
// of its status ConfigMap, say). Err concerns that namespace only.
type FleetEntry struct {
	Namespace   string
	Observation Observation
	Err         error
	// Object is the object Err is about, as kubectl names it
	// (helmreleases.helm.toolkit.fluxcd.io/sylva-units); empty for the
	// status ConfigMap.
	Object string
}

// The objects of a release namespace, as kubectl names them.
const (
	kubectlConfigMap     = "configmap/" + ConfigMapName
	kubectlKustomization = "kustomizations.kustomize.toolkit.fluxcd.io/" + KustomizationName
	kubectlHelmReleases  = "helmreleases.helm.toolkit.fluxcd.io/"
)

// KubectlFluxName is how kubectl names the Kustomization (KindKustomization)
// or the HelmRelease named name, for FleetEntry.Object.
func KubectlFluxName(kind, name string) string {
	if kind == KindHelmRelease {
		return kubectlHelmReleases + name
	}
	return kubectlKustomization
}

// PassState is the state of a release's passes, in one word.
type PassState string

const (
	// StateDone means the last release finished and no pass is pending.
	StateDone PassState = "done"
	// StatePassPending means another pass is asked for and not yet passed
	// on to the HelmRelease.
	StatePassPending PassState = "pass-pending"
	// StateInProgress means a release or a requested pass is being applied.
	StateInProgress PassState = "in-progress"
	// StateInstalling means the first release is being applied.
	StateInstalling PassState = "installing"
	// StateNotInstalled means no status and nothing being applied.
	StateNotInstalled PassState = "not-installed"
	// StateUnknown means whether the last release finished is unknown (the
	// Kustomization is absent or carries no target annotation).
	StateUnknown PassState = "unknown"
	// StateUnreadable means the namespace's objects could not be decoded.
	StateUnreadable PassState = "unreadable"
	// StateFailed means the requested pass was passed on and failed
	// (PhaseFailed).
	StateFailed PassState = "failed"
)

// StateOf is the PassState of a Report: a pending pass first, then its
// Progress.
func StateOf(r Report) PassState {
	switch {
	case r.PassPending:
		return StatePassPending
	case r.Progress == PhaseDone:
		return StateDone
	case r.Progress == PhaseInProgress:
		return StateInProgress
	case r.Progress == PhaseInstalling:
		return StateInstalling
	case r.Progress == PhaseNotInstalled:
		return StateNotInstalled
	case r.Progress == PhaseFailed:
		return StateFailed
	}
	return StateUnknown
}

// FleetRow is one release of the fleet view.
type FleetRow struct {
	Namespace string `json:"namespace"`
	// Cluster is the kind of cluster the release is for (ClusterKindOf
	// its namespace).
	Cluster ClusterKind `json:"cluster"`
	// Kubernetes is what the namespace's Cluster API objects say of the
	// cluster's minors, and where it was read; nil when it holds none (or
	// the namespace is unreadable).
	Kubernetes *Kubernetes `json:"kubernetes,omitempty"`
	// Release is the installed release (Status.Release), "" when unknown;
	// ReleaseSource says where it was read.
	Release       string        `json:"release,omitempty"`
	ReleaseSource ReleaseSource `json:"releaseSource,omitempty"`
	// ChartVersion is the status ConfigMap's sylva-units-chart-version.
	ChartVersion string    `json:"chartVersion,omitempty"`
	State        PassState `json:"state"`
	// CanStartNow is true when a pass may start now (Assess); Reasons say
	// why not, in a fixed order.
	CanStartNow bool     `json:"canStartNow"`
	Reasons     []string `json:"reasons"`
	// Next is the command or action that follows, with the flags that
	// select the cluster and the row's namespace.
	Next string `json:"next"`
	// Error says why the namespace's objects could not be read; the other
	// fields but Namespace, State and Next are then zero.
	Error string `json:"error,omitempty"`
	// Transition is where the release stands in the plan to the target
	// (status --to); the caller fills it.
	Transition *Transition `json:"transition,omitempty"`
	// TransitionError says why the release cannot be placed in the plan to
	// the target (a status that names a release newer than the target,
	// say); the caller fills it.
	TransitionError string `json:"transitionError,omitempty"`

	// report is the interpretation the row was made from; zero for an
	// unreadable namespace.
	report Report
}

// Report is the full interpretation of the row's namespace, as the status
// command shows it for that namespace alone; zero when the row is
// unreadable.
func (r FleetRow) Report() Report { return r.report }

// Place puts the row in the plan to the target: its Transition, and its
// Next as status --to says it for that namespace (none when the release is
// on the target with nothing pending).
func (r *FleetRow) Place(t *Transition) {
	r.Transition = t
	r.report.Place(t)
	r.Next = r.report.next()
}

// Suggest sets the release each readable row's Next plans to when the
// fleet was read without a target (Report.Newest): newest of the row's
// installed release (zero when none is named), and the row's Next again.
// Place, when the fleet has a target, comes after it.
func (f *Fleet) Suggest(newest func(installed semver.Version) semver.Version) {
	for i := range f.Releases {
		r := &f.Releases[i]
		if r.Error != "" {
			continue
		}
		r.report.Newest = newest(r.report.InstalledRelease)
		r.Next = r.report.next()
	}
}

// NotPlaced says why the row cannot be placed in the plan to the target
// (TransitionError), and that nothing toward the target comes next: the
// command the status would suggest for it would refuse the target too.
// past says the release the status names is newer than the target (a
// downgrade), where there is nothing to do; otherwise the fix is why's.
func (r *FleetRow) NotPlaced(why string, past bool) {
	r.TransitionError = why
	r.Next = "fix what keeps it out of the plan (" + why + "), then check again"
	if past {
		r.Next = "none: the release is on " + r.Release + ", past the target"
	}
}

// Fleet is every release of a cluster, sorted by namespace.
type Fleet struct {
	// Metadata is written at the head of JSON and YAML output; the caller
	// sets it.
	Metadata Metadata `json:"-"`
	// Target is the release the rows are placed against (status --to);
	// empty when none.
	Target   string     `json:"target,omitempty"`
	Releases []FleetRow `json:"releases"`
}

// InterpretFleet interprets each entry (Interpret) into a row, sorted by
// namespace. Each row's Next is the command the status command suggests
// for that namespace, with sel's selecting flags and -n NAMESPACE; an
// unreadable namespace suggests reading its status ConfigMap.
func InterpretFleet(entries []FleetEntry, sel envelope.Selection) Fleet {
	f := Fleet{Target: sel.To, Releases: make([]FleetRow, 0, len(entries))}
	for _, e := range entries {
		f.Releases = append(f.Releases, fleetRow(e, sel))
	}
	slices.SortFunc(f.Releases, func(a, b FleetRow) int { return cmp.Compare(a.Namespace, b.Namespace) })
	return f
}

func fleetRow(e FleetEntry, sel envelope.Selection) FleetRow {
	// What follows is what the status command says of this namespace
	// alone: status -n NAMESPACE, or from a file of every namespace,
	// status -f FILE -n NAMESPACE (which reads that namespace's objects).
	sel.Namespace = e.Namespace
	fromFile := sel.HasState()
	if e.Err != nil {
		// A file holds no cluster to ask; the error names what to fix.
		object := cmp.Or(e.Object, kubectlConfigMap)
		next := "fix " + object + " of " + e.Namespace
		if !fromFile {
			next = "inspect it: " + sel.Kubectl() + " get " + object + " -n " + envelope.ShellQuote(e.Namespace) + " -o yaml"
		}
		return FleetRow{Namespace: e.Namespace, Cluster: ClusterKindOf(e.Namespace), State: StateUnreadable, Reasons: []string{}, Error: e.Err.Error(), Next: next}
	}
	obs := e.Observation
	obs.Namespace = e.Namespace
	rep := Interpret(obs)
	rep.Selection = sel
	row := FleetRow{
		Namespace:     e.Namespace,
		Cluster:       ClusterKindOf(e.Namespace),
		ReleaseSource: rep.ReleaseSource,
		State:         StateOf(rep),
		CanStartNow:   rep.CanStartNow,
		Reasons:       rep.Reasons,
		Next:          rep.next(),
		report:        rep,
	}
	if !rep.InstalledRelease.IsZero() {
		row.Release = rep.InstalledRelease.String()
	}
	if cm := obs.ConfigMap; cm != nil {
		row.ChartVersion = cm.ChartVersion
	}
	if k := obs.Kubernetes(); !k.IsZero() {
		row.Kubernetes = &k
	}
	return row
}

// Counts says how many rows are in each state, and how many can start a
// pass now, in one sentence without final period: "3 releases: 1 can
// start a pass now; 1 done, 1 pass-pending, 1 unreadable".
func (f Fleet) Counts() string {
	n := map[PassState]int{}
	start := 0
	for _, r := range f.Releases {
		n[r.State]++
		if r.CanStartNow {
			start++
		}
	}
	var parts []string
	for _, s := range []PassState{StateDone, StatePassPending, StateInProgress, StateInstalling, StateNotInstalled, StateFailed, StateUnknown, StateUnreadable} {
		if n[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[s], s))
		}
	}
	s := fmt.Sprintf("%d %s: %d can start a pass now", len(f.Releases), cell.Plural(len(f.Releases), "release", "releases"), start)
	if len(parts) > 0 {
		s += "; " + strings.Join(parts, ", ")
	}
	return s
}

// fleetDocument is the JSON and YAML form of a Fleet.
type fleetDocument struct {
	envelope.Header
	Fleet
}

// Document is the JSON and YAML form of f, with its apiVersion,
// kind and metadata (envelope.WriteJSON and WriteYAML write it).
func (f Fleet) Document() any { return fleetDocument{envelope.NewHeader(FleetKind, f.Metadata), f} }

// WriteTable writes f for a person: one line per release (namespace,
// cluster kind, release, chart version, Kubernetes minors, pass state,
// whether a pass may start now, where it stands in the plan to the target
// when there is one, and what is next), then where the minors were read,
// why each release that cannot start cannot, and why each unreadable one
// is.
func (f Fleet) WriteTable(w io.Writer) error {
	ew := &errWriter{w: w}
	ew.printf("Sylva releases (%s)\n\n", f.Counts())
	if len(f.Releases) == 0 {
		ew.printf("No sylva-units-status ConfigMap, sylva-units-status Kustomization or sylva-units HelmRelease in any namespace.\n")
		return ew.err
	}
	tw := tabwriter.NewWriter(ew, 0, 4, 2, ' ', 0)
	head := "NAMESPACE\tCLUSTER\tRELEASE\tCHART\tKUBERNETES\tSTATE\tREADY"
	if f.Target != "" {
		head += "\tTO " + f.Target
	}
	fmt.Fprintln(tw, head+"\tNEXT")
	for _, r := range f.Releases {
		line := fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t%s\t%s", r.Namespace, r.Cluster, cell.OrDash(r.Release), cell.OrDash(r.ChartVersion), r.kubernetesCell(), r.State, readyCell(r))
		if f.Target != "" {
			line += "\t" + r.transitionCell()
		}
		fmt.Fprintln(tw, line+"\t"+r.Next)
	}
	_ = tw.Flush()
	first := true
	for _, r := range f.Releases {
		if r.Kubernetes == nil {
			continue
		}
		if first {
			ew.printf("\nKubernetes read from (the Cluster API objects of each namespace):\n")
			first = false
		}
		ew.printf("  %s: %s\n", r.Namespace, r.Kubernetes.Source)
	}
	var notReady, unreadable []string
	for _, r := range f.Releases {
		switch {
		case r.Error != "":
			unreadable = append(unreadable, r.Namespace+": "+r.Error)
		case !r.CanStartNow:
			notReady = append(notReady, r.Namespace+": "+strings.Join(r.Reasons, "; "))
		}
	}
	if len(notReady) > 0 {
		ew.printf("\nCannot start a pass now:\n")
		for _, s := range notReady {
			ew.printf("  %s\n", s)
		}
	}
	if len(unreadable) > 0 {
		ew.printf("\nUnreadable:\n")
		for _, s := range unreadable {
			ew.printf("  %s\n", s)
		}
	}
	first = true
	for _, r := range f.Releases {
		if r.TransitionError == "" {
			continue
		}
		if first {
			ew.printf("\nNot placed in the plan to %s:\n", f.Target)
			first = false
		}
		ew.printf("  %s: %s\n", r.Namespace, r.TransitionError)
	}
	f.writeTransitionFindings(ew)
	return ew.err
}

// writeTransitionFindings lists, once each, the findings that keep the
// plan to the target from being judged (Transition.Findings), as plan
// lists them: the same for every release, such as a target newer than the
// catalog.
func (f Fleet) writeTransitionFindings(ew *errWriter) {
	var seen []Finding
	for _, r := range f.Releases {
		if r.Transition == nil {
			continue
		}
		for _, fd := range r.Transition.Findings {
			if slices.Contains(seen, fd) {
				continue
			}
			if len(seen) == 0 {
				ew.printf("\nThe plan to %s cannot be judged:\n", f.Target)
			}
			seen = append(seen, fd)
			ew.printf("  %s %s (%s): %s\n", strings.ToUpper(string(fd.Severity)), fd.Code, fd.Subject, fd.Message)
			if fd.Remediation != "" {
				ew.printf("      fix: %s\n", fd.Remediation)
			}
		}
	}
}

// kubernetesCell is the row's Kubernetes minors in a table cell: "1.29"
// when the control plane and the workers run it (or there are no
// workers), "1.29 (workers 1.28)" when they differ, "-" when unknown.
func (r FleetRow) kubernetesCell() string {
	k := r.Kubernetes
	switch {
	case k == nil:
		return "-"
	case k.Workers == "" || k.Workers == k.ControlPlane:
		return cell.OrDash(k.ControlPlane)
	}
	return cell.OrDash(k.ControlPlane) + " (workers " + k.Workers + ")"
}

func readyCell(r FleetRow) string {
	switch {
	case r.Error != "":
		return "-"
	case r.CanStartNow:
		return "yes"
	}
	return "no"
}

// transitionCell is where the row stands in the plan to the target, in a
// table cell: "1 of 2 passes done", "done", "fresh install", "not placed"
// when the status cannot tell which pass completed, "unknown (kb-stale)"
// when the plan cannot be judged (the codes of its findings, listed under
// the table), "error" when no plan could be computed (TransitionError says
// why), "-" for none.
func (r FleetRow) transitionCell() string {
	t := r.Transition
	switch {
	case r.TransitionError != "":
		return "error"
	case t == nil:
		return "-"
	case t.Unjudged():
		codes := make([]string, 0, len(t.Findings))
		for _, f := range t.Findings {
			if !slices.Contains(codes, f.Code) {
				codes = append(codes, f.Code)
			}
		}
		return "unknown (" + strings.Join(codes, ", ") + ")"
	case !t.PassKnown && r.report.FreshInstall:
		return "fresh install"
	case !t.PassKnown:
		return "not placed"
	case t.Done():
		return "done"
	}
	return fmt.Sprintf("%d of %d passes done", t.PassesDone, t.Passes)
}

// DecodeFleet decodes the objects of every release namespace from a List,
// as `kubectl get configmaps,kustomizations,helmreleases -A -o yaml` prints
// it: per namespace, the sylva-units-status ConfigMap, the
// sylva-units-status Kustomization and the HelmRelease named helmRelease,
// and the Cluster API control planes and MachineDeployments
// (CAPIObjectFromMap) when the List holds them (objects of other kinds or
// names are ignored). A namespace holding any of the first three is a
// release namespace (Cluster API objects alone make none); entries are
// sorted by namespace. An object
// that does not decode is its namespace's Err, not an error of the whole
// input. The Flux objects count as read (absent, not unknown) when the List
// holds any Kustomization or HelmRelease. A single ConfigMap is a fleet of
// one.
func DecodeFleet(data []byte, helmRelease string) ([]FleetEntry, error) {
	if len(yamldoc.Split(data)) > 1 {
		return nil, errors.New("input holds several YAML documents; give one List (kubectl get configmaps,kustomizations,helmreleases -A -o yaml prints one)")
	}
	tagged := taggedData(data)
	obj, err := fleetInputObject(data)
	if err != nil {
		return nil, err
	}
	if kind, _ := obj["kind"].(string); kind == "ConfigMap" {
		obs, err := DecodeObservation(data, helmRelease)
		if err != nil {
			return nil, err
		}
		return []FleetEntry{{Namespace: obs.Namespace, Observation: obs}}, nil
	}
	items, err := listItemsOf(obj)
	if err != nil {
		return nil, err
	}
	if items == nil {
		return []FleetEntry{}, nil
	}
	f := fleetObjects{helmRelease: helmRelease, byNS: map[string]*releaseObjects{}, capi: map[string][]CAPIObject{}}
	for i, it := range items {
		if err := f.add(i, it); err != nil {
			return nil, err
		}
	}
	out := make([]FleetEntry, 0, len(f.byNS))
	for _, ns := range slices.Sorted(maps.Keys(f.byNS)) {
		out = append(out, f.entryOf(ns, tagged))
	}
	return out, nil
}

// fleetInputObject decodes the input of DecodeFleet as one object: YAML
// or JSON with each key once, holding a mapping.
func fleetInputObject(data []byte) (map[string]any, error) {
	j, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return nil, fmt.Errorf("input is not YAML or JSON with each key once: %w", err)
	}
	var top any
	if err := json.Unmarshal(j, &top); err != nil {
		return nil, fmt.Errorf("input is not YAML or JSON: %w", err)
	}
	obj, ok := top.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("input is not a Kubernetes object (got %s)", kindOf(top))
	}
	return obj, nil
}

// listItemsOf decides whether obj is a List (its kind List or ending in
// List) and returns its items: nil when it has none, an error when it is
// not a List or its items are not a list.
func listItemsOf(obj map[string]any) ([]any, error) {
	kind, _ := obj["kind"].(string)
	if kind != "List" && !strings.HasSuffix(kind, "List") {
		if kind == "" {
			return nil, errors.New("input is not a List: no kind")
		}
		return nil, fmt.Errorf("input is a %s, not a List (kubectl get configmaps,kustomizations,helmreleases -A -o yaml prints one)", kind)
	}
	raw := obj["items"]
	if raw == nil {
		return nil, nil
	}
	items, ok := raw.([]any)
	if !ok {
		return nil, fmt.Errorf("list items: want a list, got %s", kindOf(raw))
	}
	return items, nil
}

// releaseObjects are the objects of one release namespace a List holds.
type releaseObjects struct {
	cm, ks, hr map[string]any
	// twice names an object the List holds twice in the namespace.
	twice string
}

// fleetObjects are the objects of a List DecodeFleet reads, by namespace.
type fleetObjects struct {
	// helmRelease is the name of the HelmRelease read.
	helmRelease string
	byNS        map[string]*releaseObjects
	// capi holds the Cluster API objects of each namespace; only those of
	// release namespaces are kept.
	capi map[string][]CAPIObject
	// fluxRead is true when the List holds any Kustomization or
	// HelmRelease.
	fluxRead bool
}

// add decides what item i of the List is: a Cluster API object of its
// namespace, the status ConfigMap, the status Kustomization or the
// HelmRelease of a release namespace (noting one held twice), or none of
// them, ignored. An item that is not an object is an error.
func (f *fleetObjects) add(i int, it any) error {
	o, ok := it.(map[string]any)
	if !ok {
		return fmt.Errorf("list item %d: want an object, got %s", i, kindOf(it))
	}
	kind, _ := o["kind"].(string)
	name, _ := nested(o, "metadata", "name").(string)
	ns, _ := nested(o, "metadata", "namespace").(string)
	isKs := kind == KindKustomization && strings.HasPrefix(apiVersion(o), "kustomize.toolkit.fluxcd.io/")
	isHr := kind == KindHelmRelease && strings.HasPrefix(apiVersion(o), "helm.toolkit.fluxcd.io/")
	f.fluxRead = f.fluxRead || isKs || isHr
	if c, ok := CAPIObjectFromMap(o); ok {
		f.capi[ns] = append(f.capi[ns], c)
		return nil
	}
	switch {
	case kind == "ConfigMap" && name == ConfigMapName:
		r := f.release(ns)
		r.keep(&r.cm, o, "ConfigMap "+name)
	case isKs && name == KustomizationName:
		r := f.release(ns)
		r.keep(&r.ks, o, KindKustomization+" "+name)
	case isHr && name == f.helmRelease:
		r := f.release(ns)
		r.keep(&r.hr, o, KindHelmRelease+" "+name)
	}
	return nil
}

// release is the objects of release namespace ns, which it makes one.
func (f *fleetObjects) release(ns string) *releaseObjects {
	r := f.byNS[ns]
	if r == nil {
		r = &releaseObjects{}
		f.byNS[ns] = r
	}
	return r
}

// keep puts o in slot, one of r's; what names o should the slot hold an
// object already.
func (r *releaseObjects) keep(slot *map[string]any, o map[string]any, what string) {
	if *slot != nil {
		r.twice = what
	}
	*slot = o
}

// entryOf decides the entry of release namespace ns: its observation, or,
// the first that fails, the error of an object held twice, of its status
// ConfigMap, or of its Kustomization or HelmRelease (then named Object).
func (f *fleetObjects) entryOf(ns string, tagged map[string]error) FleetEntry {
	objs := f.byNS[ns]
	obs := Observation{Namespace: ns, FluxRead: f.fluxRead, HelmReleaseName: f.helmRelease}
	for _, c := range f.capi[ns] {
		obs.Add(c)
	}
	var err error
	var object string
	if objs.twice != "" {
		// Either could be the one the cluster holds: neither is read.
		err = fmt.Errorf("the list holds %s twice in namespace %s, which a cluster cannot; give the List kubectl get prints", objs.twice, ns)
	}
	if err == nil && objs.cm != nil {
		if obs.ConfigMap, err = statusOf(objs.cm, tagged); err != nil {
			err = fmt.Errorf("ConfigMap %s/%s: %w", ns, ConfigMapName, err)
		}
	}
	if err == nil && objs.ks != nil {
		if obs.Kustomization, err = FluxObjectFromMap(objs.ks); err != nil {
			object = KubectlFluxName(KindKustomization, KustomizationName)
		}
	}
	if err == nil && objs.hr != nil {
		if obs.HelmRelease, err = FluxObjectFromMap(objs.hr); err != nil {
			object = KubectlFluxName(KindHelmRelease, f.helmRelease)
		}
	}
	if err != nil {
		return FleetEntry{Namespace: ns, Err: err, Object: object}
	}
	return FleetEntry{Namespace: ns, Observation: obs}
}
