package availability

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"

	"gitlab.com/sylva-projects/sylva-planner/cell"
	"gitlab.com/sylva-projects/sylva-planner/planner"
)

// Stable finding codes.
const (
	// CodeDrainHang: a PodDisruptionBudget allows zero evictions of healthy
	// pods; every drain of a node running one of its pods hangs.
	CodeDrainHang = "drain-hang"
	// CodeOverlappingPDBs: two budgets select the same pod; the eviction API
	// refuses to evict it.
	CodeOverlappingPDBs = "drain-overlapping-pdbs"
	// CodeRolloutInProgress: a budget is at zero only because its workload
	// is rolling out; a drain waits until the rollout ends.
	CodeRolloutInProgress = "drain-rollout-in-progress"
	// CodePodsUnhealthy: a budget is at zero because some of its pods are
	// not ready; drains wait until they recover.
	CodePodsUnhealthy = "drain-pods-unhealthy"
	// CodePDBInvalid: the API server refuses the budget as written (both
	// minAvailable and maxUnavailable, or a value that is neither an
	// integer of 0 or more nor a percentage up to 100%), so no cluster
	// holds it: its drain behaviour is not judged.
	CodePDBInvalid = "pdb-invalid"

	CodeSingleReplica  = "availability-single-replica"
	CodeNoPDB          = "availability-no-pdb"
	CodeMinAvailable   = "availability-pdb-min-available"
	CodeNoPreStop      = "availability-no-prestop"
	CodeGracePeriod    = "availability-grace-period"
	CodeOneNode        = "availability-one-node"
	CodeOneZone        = "availability-one-zone"
	CodeNoSpread       = "availability-no-topology-spread"
	defaultGracePeriod = 30
)

// DefaultProdNamespaces is the namespace glob of production workloads.
const DefaultProdNamespaces = "*-prod"

// Options tune Check.
type Options struct {
	// ProdNamespaces are path.Match globs of production namespaces; nil
	// means DefaultProdNamespaces.
	ProdNamespaces []string
}

// Validate returns an error naming the first glob of ProdNamespaces that
// path.Match cannot parse (an unclosed "[", a trailing "\"): Check would
// take it as matching no namespace. The error wraps path.ErrBadPattern.
func (o Options) Validate() error {
	for _, g := range o.ProdNamespaces {
		if _, err := path.Match(g, ""); err != nil {
			return fmt.Errorf("namespace glob %q is malformed; write a path.Match glob such as %s (a [ needs its ], a literal [ is \\[): %w", g, DefaultProdNamespaces, err)
		}
	}
	return nil
}

// prod reports whether ns matches a production glob. A malformed glob
// matches nothing; Validate refuses it.
func (o Options) prod(ns string) bool {
	globs := o.ProdNamespaces
	if globs == nil {
		globs = []string{DefaultProdNamespaces}
	}
	for _, g := range globs {
		if ok, _ := path.Match(g, ns); ok {
			return true
		}
	}
	return false
}

// Item is a finding with the object it is about and the kubectl command
// that shows it.
type Item struct {
	planner.Finding
	Namespace string `json:"namespace"`
	// Object is "kind/name", as kubectl names it.
	Object string `json:"object"`
	// Inspect is the kubectl command that shows the object.
	Inspect string `json:"inspect"`
}

// Findings returns the plain findings of items, in the same order.
func Findings(items []Item) []planner.Finding {
	out := make([]planner.Finding, len(items))
	for i, it := range items {
		out[i] = it.Finding
	}
	return out
}

// Check applies the drain and availability rules to s and returns the items
// sorted by namespace, severity, object and code.
func Check(s Snapshot, opts Options) []Item {
	c := newChecker(s)
	var items []Item
	for _, b := range c.pdbs {
		items = append(items, c.checkPDB(b)...)
	}
	items = append(items, c.overlaps()...)
	for _, w := range c.workloads {
		items = append(items, c.checkWorkload(w, opts)...)
	}
	SortItems(items)
	return items
}

// SortItems sorts items by namespace, severity, object, code and message.
func SortItems(items []Item) {
	slices.SortFunc(items, func(a, b Item) int {
		return cmp.Or(
			cmp.Compare(a.Namespace, b.Namespace),
			cmp.Compare(a.Severity.Rank(), b.Severity.Rank()),
			cmp.Compare(a.Object, b.Object),
			cmp.Compare(a.Code, b.Code),
			cmp.Compare(a.Message, b.Message),
		)
	})
}

// pod is a pod or, for a workload with no pod in the snapshot, the pod its
// template would create.
type pod struct {
	Pod
	template bool
}

type pdbState struct {
	PDB
	sel  labels.Selector // nil: selects nothing
	pods []int           // indexes into checker.pods
	work []*workloadState
}

type workloadState struct {
	Workload
	sel  labels.Selector
	pods []int
	pdbs []*pdbState
}

type checker struct {
	pods      []pod
	byNS      map[string][]int // pod indexes per namespace
	nodes     map[string]Node
	zones     int
	workloads []*workloadState
	pdbs      []*pdbState
}

func selectorOf(ls *metav1.LabelSelector) labels.Selector {
	if ls == nil {
		return nil
	}
	sel, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil {
		return nil
	}
	return sel
}

func newChecker(s Snapshot) *checker {
	c := &checker{byNS: map[string][]int{}, nodes: map[string]Node{}}
	zones := map[string]bool{}
	for _, n := range s.Nodes {
		c.nodes[n.Name] = n
		if n.Zone != "" {
			zones[n.Zone] = true
		}
	}
	c.zones = len(zones)
	for _, p := range s.Pods {
		if p.Terminating {
			continue
		}
		c.byNS[p.Namespace] = append(c.byNS[p.Namespace], len(c.pods))
		c.pods = append(c.pods, pod{Pod: p})
	}
	for _, w := range s.Workloads {
		ws := &workloadState{Workload: w, sel: selectorOf(w.Selector)}
		if ws.sel != nil {
			for _, i := range c.byNS[w.Namespace] {
				if !c.pods[i].template && ws.sel.Matches(labels.Set(c.pods[i].Labels)) {
					ws.pods = append(ws.pods, i)
				}
			}
		}
		if len(ws.pods) == 0 && w.Replicas > 0 {
			// No pod seen (manifests): judge the template's pod instead.
			i := len(c.pods)
			c.pods = append(c.pods, pod{Pod: Pod{Namespace: w.Namespace, Name: w.Name + " (template)", Labels: w.TemplateLabels, Healthy: true}, template: true})
			c.byNS[w.Namespace] = append(c.byNS[w.Namespace], i)
			ws.pods = []int{i}
		}
		c.workloads = append(c.workloads, ws)
	}
	slices.SortFunc(c.workloads, func(a, b *workloadState) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Name, b.Name))
	})
	for _, b := range s.PDBs {
		ps := &pdbState{PDB: b, sel: selectorOf(b.Selector)}
		if ps.sel != nil {
			for _, i := range c.byNS[b.Namespace] {
				if ps.sel.Matches(labels.Set(c.pods[i].Labels)) {
					ps.pods = append(ps.pods, i)
				}
			}
			for _, w := range c.workloads {
				if w.Namespace == b.Namespace && ps.sel.Matches(labels.Set(w.TemplateLabels)) {
					ps.work = append(ps.work, w)
					w.pdbs = append(w.pdbs, ps)
				}
			}
		}
		c.pdbs = append(c.pdbs, ps)
	}
	slices.SortFunc(c.pdbs, func(a, b *pdbState) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	return c
}

// kubectlIn is kubectl for objects of namespace ns; without -n when a
// manifest names no namespace (it lands in the namespace it is applied
// to).
func kubectlIn(ns string) string {
	if ns == "" {
		return "kubectl"
	}
	return "kubectl -n " + ns
}

func pdbItem(b *pdbState, f planner.Finding) Item {
	f.Subject = "pdb " + b.Namespace + "/" + b.Name
	return Item{
		Finding: f, Namespace: b.Namespace, Object: "pdb/" + b.Name,
		Inspect: fmt.Sprintf("%s get pdb %s -o yaml", kubectlIn(b.Namespace), b.Name),
	}
}

func workloadItem(w *workloadState, f planner.Finding, inspect string) Item {
	kind := strings.ToLower(w.Kind)
	f.Subject = kind + " " + w.Namespace + "/" + w.Name
	if inspect == "" {
		inspect = fmt.Sprintf("%s get %s %s -o yaml", kubectlIn(w.Namespace), kind, w.Name)
	}
	return Item{Finding: f, Namespace: w.Namespace, Object: kind + "/" + w.Name, Inspect: inspect}
}

// expected is the number of pods the budget protects when everything is
// healthy: the replicas of the workloads it selects, or the pods it selects
// when no workload is known. The disruption controller counts the same way
// (controller scale for maxUnavailable and percentages, pods for an integer
// minAvailable).
func (b *pdbState) expected(c *checker) int32 {
	var n int32
	for _, w := range b.work {
		n += w.Replicas
	}
	if n == 0 {
		for _, i := range b.pods {
			if !c.pods[i].template {
				n++
			}
		}
	}
	return n
}

// DesiredHealthy is the number of healthy pods a budget requires out of
// expected pods. Percentages round up for both fields, as the disruption
// controller does (pkg/controller/disruption/disruption.go,
// intstr.GetScaledValueFromIntOrPercent with roundUp true; documented in
// https://kubernetes.io/docs/tasks/run-application/configure-pdb/#rounding-logic-when-specifying-percentages):
// maxUnavailable "10%" of 3 pods allows 1, minAvailable "50%" of 1 pod
// requires 1. The budget must be one the API server accepts: a value it
// cannot scale requires every pod (Check reports such a budget as
// CodePDBInvalid instead).
func DesiredHealthy(minAvailable, maxUnavailable *intstr.IntOrString, expected int32) int32 {
	switch {
	case maxUnavailable != nil:
		mu, err := intstr.GetScaledValueFromIntOrPercent(maxUnavailable, int(expected), true)
		if err != nil {
			return expected
		}
		return max(0, expected-int32(mu))
	case minAvailable != nil:
		ma, err := intstr.GetScaledValueFromIntOrPercent(minAvailable, int(expected), true)
		if err != nil {
			return expected
		}
		return int32(ma)
	}
	// Neither field: the API server defaults minAvailable to 1.
	return min(1, expected)
}

// budgetProblems returns why the API server refuses b's budget fields, in
// the order it checks them (ValidatePodDisruptionBudgetSpec in
// k8s.io/kubernetes pkg/apis/policy/validation): both fields set, a string
// that is not a percentage, a negative integer, a percentage above 100%.
// It is empty for a budget the API server accepts.
func budgetProblems(b PDB) []string {
	var out []string
	if b.MinAvailable != nil && b.MaxUnavailable != nil {
		out = append(out, fmt.Sprintf("minAvailable (%s) and maxUnavailable (%s) are both set", b.MinAvailable, b.MaxUnavailable))
	}
	for _, f := range []struct {
		name string
		v    *intstr.IntOrString
	}{{"minAvailable", b.MinAvailable}, {"maxUnavailable", b.MaxUnavailable}} {
		if f.v == nil {
			continue
		}
		v := *f.v
		switch {
		case v.Type == intstr.Int:
			if v.IntVal < 0 {
				out = append(out, fmt.Sprintf("%s %d is negative", f.name, v.IntVal))
			}
		case v.Type != intstr.String:
			out = append(out, fmt.Sprintf("%s is neither an integer nor a percentage", f.name))
		case len(validation.IsValidPercent(v.StrVal)) > 0:
			if _, err := strconv.Atoi(v.StrVal); err == nil {
				out = append(out, fmt.Sprintf("%s %q is a quoted string, not an integer", f.name, v.StrVal))
			} else {
				out = append(out, fmt.Sprintf("%s %q is neither an integer nor a percentage", f.name, v.StrVal))
			}
		default:
			// Digits and "%": the API server ignores what Atoi cannot
			// read here (an overflow), and so does this check.
			if pct, _ := strconv.Atoi(strings.TrimSuffix(v.StrVal, "%")); pct > 100 {
				out = append(out, fmt.Sprintf("%s %q is more than 100%%", f.name, v.StrVal))
			}
		}
	}
	return out
}

func budgetText(b PDB) string {
	switch {
	case b.MaxUnavailable != nil:
		return "maxUnavailable: " + b.MaxUnavailable.String()
	case b.MinAvailable != nil:
		return "minAvailable: " + b.MinAvailable.String()
	}
	return "minAvailable: 1 (default)"
}

func (b *pdbState) workloadNames() string {
	if len(b.work) == 0 {
		return "no known workload"
	}
	names := make([]string, len(b.work))
	for i, w := range b.work {
		names[i] = strings.ToLower(w.Kind) + " " + w.Name
	}
	return strings.Join(names, ", ")
}

func (b *pdbState) rolling() (string, bool) {
	for _, w := range b.work {
		if why, ok := w.rolling(); ok {
			return strings.ToLower(w.Kind) + " " + w.Name + " " + why, true
		}
	}
	return "", false
}

// rolling reports whether the workload's status shows a rollout in
// progress, and how.
func (w *workloadState) rolling() (string, bool) {
	st := w.Status
	if !st.Known {
		return "", false
	}
	switch {
	case st.ObservedGeneration < st.Generation:
		return "has a spec change its controller has not observed yet", true
	case st.UpdatedReplicas < w.Replicas:
		return fmt.Sprintf("has %d of %d replicas updated", st.UpdatedReplicas, w.Replicas), true
	case st.UnavailableReplicas > 0:
		return fmt.Sprintf("has %d unavailable replicas", st.UnavailableReplicas), true
	case st.UpdateRevision != "" && st.CurrentRevision != st.UpdateRevision:
		return "is rolling to revision " + st.UpdateRevision, true
	}
	return "", false
}

func (c *checker) checkPDB(b *pdbState) []Item {
	if problems := budgetProblems(b.PDB); len(problems) > 0 {
		// Judged whatever it selects: applying it fails even with no pod.
		// Its numbers mean nothing, so no drain-hang or minAvailable
		// finding; its selector still counts for overlaps and for the
		// workloads it covers, as the fixed budget will.
		return []Item{pdbItem(b, planner.Finding{
			Code: CodePDBInvalid, Severity: planner.SeverityBlocker, Class: planner.ClassActionable,
			Message: fmt.Sprintf("the API server refuses this budget: %s; no cluster holds it as written, so its drain behaviour is not judged",
				strings.Join(problems, "; ")),
			Remediation: "give the budget only maxUnavailable: 1 (each field takes an integer of 0 or more or a percentage up to 100%, never both)",
		})}
	}
	expected := b.expected(c)
	if expected == 0 {
		return nil // nothing to evict, nothing to hang on
	}
	var out []Item
	if b.MinAvailable != nil && b.MaxUnavailable == nil {
		out = append(out, pdbItem(b, planner.Finding{
			Code: CodeMinAvailable, Severity: planner.SeverityWarning,
			Message:     fmt.Sprintf("budget uses %s: it blocks every eviction as soon as the workload scales down to it", budgetText(b.PDB)),
			Remediation: "use maxUnavailable: 1 instead of minAvailable",
		}))
	}
	desired := DesiredHealthy(b.MinAvailable, b.MaxUnavailable, expected)
	if expected-desired <= 0 {
		fix := "set maxUnavailable: 1 on the budget"
		if expected < 2 {
			// One pod evicted is the workload down: the budget alone
			// trades the hang for an outage.
			fix += " and run at least 2 replicas"
		}
		return append(out, pdbItem(b, planner.Finding{
			Code: CodeDrainHang, Severity: planner.SeverityBlocker, Class: planner.ClassActionable,
			Message: fmt.Sprintf("budget %s allows zero evictions: it requires %s out of %d (%s); every drain of a node running them hangs",
				budgetText(b.PDB), cell.Count(int(desired), "healthy pod", "healthy pods"), expected, b.workloadNames()),
			Remediation: fix,
		}))
	}
	st := b.Status
	if st == nil || st.ObservedGeneration < b.Generation || st.DisruptionsAllowed > 0 {
		return out
	}
	// The controller says zero although the spec allows evictions: find why.
	allHealthy := st.CurrentHealthy >= st.ExpectedPods
	why, rolling := b.rolling()
	switch {
	case allHealthy && !rolling:
		out = append(out, pdbItem(b, planner.Finding{
			Code: CodeDrainHang, Severity: planner.SeverityBlocker, Class: planner.ClassActionable,
			Message: fmt.Sprintf("status allows zero disruptions while all %d pods are healthy (desired %d, %s; %s); every drain of a node running them hangs",
				st.CurrentHealthy, st.DesiredHealthy, budgetText(b.PDB), b.workloadNames()),
			Remediation: "set maxUnavailable: 1 on the budget and check that its selector matches only the workload's pods",
		}))
	case rolling:
		out = append(out, pdbItem(b, planner.Finding{
			Code: CodeRolloutInProgress, Severity: planner.SeverityWarning,
			Message: fmt.Sprintf("status allows zero disruptions because %s (%d of %d pods healthy, %d desired); a drain waits until the rollout completes",
				why, st.CurrentHealthy, st.ExpectedPods, st.DesiredHealthy),
			Remediation: "let the rollout finish before draining nodes",
		}))
	case st.CurrentHealthy < st.DesiredHealthy && b.UnhealthyPodEvictionPolicy != AlwaysAllow:
		out = append(out, pdbItem(b, planner.Finding{
			Code: CodeDrainHang, Severity: planner.SeverityBlocker, Class: planner.ClassActionable,
			Message: fmt.Sprintf("%d of %d pods are not ready and no rollout is in progress: the budget needs %d healthy, so neither healthy nor unhealthy pods can be evicted (unhealthyPodEvictionPolicy IfHealthyBudget)",
				st.ExpectedPods-st.CurrentHealthy, st.ExpectedPods, st.DesiredHealthy),
			Remediation: "fix the failing pods, or set unhealthyPodEvictionPolicy: AlwaysAllow on the budget",
		}))
	default:
		out = append(out, pdbItem(b, planner.Finding{
			Code: CodePodsUnhealthy, Severity: planner.SeverityWarning,
			Message: fmt.Sprintf("status allows zero disruptions because %d of %d pods are not ready; unhealthy pods can still be evicted, healthy ones wait until the others recover",
				st.ExpectedPods-st.CurrentHealthy, st.ExpectedPods),
			Remediation: "fix the failing pods before draining nodes",
		}))
	}
	return out
}

// overlaps reports each pair of budgets that select a common pod: the
// eviction API answers "This pod has more than one PodDisruptionBudget,
// which the eviction subresource does not support" (pkg/registry/core/pod/
// storage/eviction.go) and the drain never gets past that pod.
func (c *checker) overlaps() []Item {
	byPod := map[int][]*pdbState{}
	for _, b := range c.pdbs {
		for _, i := range b.pods {
			byPod[i] = append(byPod[i], b)
		}
	}
	type pair struct{ a, b *pdbState }
	count := map[pair]int{}
	example := map[pair]string{}
	var pairs []pair
	for _, i := range slices.Sorted(mapsKeys(byPod)) {
		bs := byPod[i]
		for x := 0; x < len(bs); x++ {
			for y := x + 1; y < len(bs); y++ {
				p := pair{bs[x], bs[y]}
				if count[p] == 0 {
					pairs = append(pairs, p)
					example[p] = c.pods[i].Name
				}
				count[p]++
			}
		}
	}
	var out []Item
	for _, p := range pairs {
		out = append(out, pdbItem(p.a, planner.Finding{
			Code: CodeOverlappingPDBs, Severity: planner.SeverityBlocker, Class: planner.ClassActionable,
			Message: fmt.Sprintf("budgets %s and %s both select %d pods (for example %s): the eviction API refuses to evict a pod with more than one budget",
				p.a.Name, p.b.Name, count[p], example[p]),
			Remediation: fmt.Sprintf("delete one of the budgets or narrow its selector (%s get pdb %s %s -o yaml)", kubectlIn(p.a.Namespace), p.a.Name, p.b.Name),
		}))
	}
	return out
}

func mapsKeys(m map[int][]*pdbState) func(func(int) bool) {
	return func(yield func(int) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func (c *checker) checkWorkload(w *workloadState, opts Options) []Item {
	var out []Item
	add := func(f planner.Finding, inspect string) { out = append(out, workloadItem(w, f, inspect)) }
	warn := func(code, msg, fix string) planner.Finding {
		return planner.Finding{Code: code, Severity: planner.SeverityWarning, Message: msg, Remediation: fix}
	}
	if w.Replicas == 0 {
		return nil
	}
	if w.Replicas == 1 && opts.prod(w.Namespace) {
		add(warn(CodeSingleReplica, "production workload runs 1 replica: every drain of its node interrupts it",
			"run at least 2 replicas (spec.replicas: 2)"), "")
	}
	if w.Replicas >= 2 && len(w.pdbs) == 0 {
		add(warn(CodeNoPDB, fmt.Sprintf("%d replicas and no PodDisruptionBudget: a drain may evict every replica at once", w.Replicas),
			"add a PodDisruptionBudget with maxUnavailable: 1 and the workload's selector"), "")
	}
	var noHook []string
	var sleep int64
	for _, ct := range w.Containers {
		if !ct.PreStop {
			noHook = append(noHook, ct.Name)
		}
		sleep = max(sleep, ct.PreStopSleepSeconds)
	}
	if len(noHook) > 0 {
		add(warn(CodeNoPreStop, fmt.Sprintf("containers without a preStop hook: %s; endpoints may still route to a pod that already got SIGTERM", strings.Join(noHook, ", ")),
			"add lifecycle.preStop.sleep.seconds: 10 to each container"), "")
	}
	grace := int64(defaultGracePeriod)
	if w.GracePeriodSeconds != nil {
		grace = *w.GracePeriodSeconds
	}
	if sleep > 0 && grace <= sleep {
		add(warn(CodeGracePeriod, fmt.Sprintf("terminationGracePeriodSeconds %d is not longer than the preStop sleep of %d s: the container is killed before it drains", grace, sleep),
			fmt.Sprintf("set terminationGracePeriodSeconds above %d (30 with a 10 s sleep)", sleep)), "")
	}
	out = append(out, c.placement(w)...)
	return out
}

// placement warns when every replica runs on one node or in one zone, or,
// without pods to look at, when nothing spreads them.
func (c *checker) placement(w *workloadState) []Item {
	if w.Replicas < 2 {
		return nil
	}
	warn := func(code, msg, fix string) []Item {
		sel := ""
		if w.sel != nil {
			sel = w.sel.String()
		}
		return []Item{workloadItem(w, planner.Finding{Code: code, Severity: planner.SeverityWarning, Message: msg, Remediation: fix},
			fmt.Sprintf("%s get pods -l '%s' -o wide", kubectlIn(w.Namespace), sel))}
	}
	nodes, zones := map[string]bool{}, map[string]bool{}
	scheduled := 0
	for _, i := range w.pods {
		p := c.pods[i]
		if p.template || p.Node == "" {
			continue
		}
		scheduled++
		nodes[p.Node] = true
		if z := c.nodes[p.Node].Zone; z != "" {
			zones[z] = true
		}
	}
	const fix = "add topologySpreadConstraints on kubernetes.io/hostname and topology.kubernetes.io/zone (maxSkew: 1)"
	switch {
	case scheduled == 0:
		if !slices.Contains(w.SpreadKeys, HostnameLabel) && !slices.Contains(w.SpreadKeys, ZoneLabel) {
			return warn(CodeNoSpread, fmt.Sprintf("%d replicas and no topology spread or anti-affinity: they may all land on one node", w.Replicas), fix)
		}
	case scheduled >= 2 && len(nodes) == 1:
		return warn(CodeOneNode, fmt.Sprintf("all %d running replicas are on node %s: draining it evicts them all", scheduled, onlyKey(nodes)), fix)
	case scheduled >= 2 && c.zones >= 2 && len(zones) == 1:
		return warn(CodeOneZone, fmt.Sprintf("all %d running replicas are in zone %s while the cluster has %d zones", scheduled, onlyKey(zones), c.zones), fix)
	}
	return nil
}

func onlyKey(m map[string]bool) string {
	for k := range m {
		return k
	}
	return ""
}

// ParseProdNamespaces reads the comma-separated globs of
// --prod-namespaces (blanks around each ignored, empty ones dropped) and
// refuses a malformed one (Validate).
func ParseProdNamespaces(list string) ([]string, error) {
	var out []string
	for _, g := range strings.Split(list, ",") {
		if g = strings.TrimSpace(g); g != "" {
			out = append(out, g)
		}
	}
	return out, Options{ProdNamespaces: out}.Validate()
}
