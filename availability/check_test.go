package availability

import (
	"bytes"
	"errors"
	"path"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/planner"
)

func ptr[T any](v T) *T { return &v }

func intOr(s string) *intstr.IntOrString {
	v := intstr.Parse(s)
	return &v
}

// deploy is a healthy, settled deployment "web" in ns with preStop and the
// default grace period.
func deploy(ns string, replicas int32, opts ...func(*Workload)) Workload {
	w := Workload{
		Kind: "Deployment", Namespace: ns, Name: "web", Replicas: replicas,
		Selector:       &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
		TemplateLabels: map[string]string{"app": "web"},
		Containers:     []Container{{Name: "web", PreStop: true, PreStopSleepSeconds: 10}},
		SpreadKeys:     []string{HostnameLabel, ZoneLabel},
		Status: WorkloadStatus{
			Known: true, Generation: 1, ObservedGeneration: 1,
			UpdatedReplicas: replicas, ReadyReplicas: replicas,
		},
	}
	for _, o := range opts {
		o(&w)
	}
	return w
}

func pdb(ns, name string, opts ...func(*PDB)) PDB {
	b := PDB{
		Namespace: ns, Name: name, Generation: 1, MaxUnavailable: intOr("1"),
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
	}
	for _, o := range opts {
		o(&b)
	}
	return b
}

func minAvail(s string) func(*PDB) {
	return func(b *PDB) { b.MaxUnavailable, b.MinAvailable = nil, intOr(s) }
}

func maxUnavail(s string) func(*PDB) { return func(b *PDB) { b.MaxUnavailable = intOr(s) } }

func status(allowed, current, desired, expected int32) func(*PDB) {
	return func(b *PDB) {
		b.Status = &PDBStatus{ObservedGeneration: b.Generation, DisruptionsAllowed: allowed, CurrentHealthy: current, DesiredHealthy: desired, ExpectedPods: expected}
	}
}

// pods are n pods of "web" in ns on nodes n0, n1, … (or on the given
// nodes), the first `healthy` of them ready.
func pods(ns string, n, healthy int, nodes ...string) []Pod {
	var out []Pod
	for i := range n {
		node := "n" + string(rune('0'+i))
		if len(nodes) > 0 {
			node = nodes[i%len(nodes)]
		}
		out = append(out, Pod{Namespace: ns, Name: "web-" + string(rune('a'+i)), Labels: map[string]string{"app": "web"}, Node: node, Healthy: i < healthy})
	}
	return out
}

func codes(items []Item) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.Code)
	}
	slices.Sort(out)
	return out
}

func TestCheck(t *testing.T) {
	const ns = "shop-prod"
	tests := []struct {
		name string
		snap Snapshot
		opts Options
		want []string
	}{
		{
			name: "maxUnavailable 1 on two healthy replicas is clean",
			snap: Snapshot{Workloads: []Workload{deploy(ns, 2)}, PDBs: []PDB{pdb(ns, "web", status(1, 2, 1, 2))}, Pods: pods(ns, 2, 2)},
		},
		{
			name: "maxUnavailable 0 hangs every drain",
			snap: Snapshot{Workloads: []Workload{deploy(ns, 3)}, PDBs: []PDB{pdb(ns, "web", maxUnavail("0"))}},
			want: []string{CodeDrainHang},
		},
		{
			name: "minAvailable 1 on a single replica hangs every drain",
			snap: Snapshot{Workloads: []Workload{deploy("shop-dev", 1)}, PDBs: []PDB{pdb("shop-dev", "web", minAvail("1"))}},
			want: []string{CodeDrainHang, CodeMinAvailable},
		},
		{
			name: "minAvailable equal to the replicas hangs every drain",
			snap: Snapshot{Workloads: []Workload{deploy(ns, 3)}, PDBs: []PDB{pdb(ns, "web", minAvail("3"))}},
			want: []string{CodeDrainHang, CodeMinAvailable},
		},
		{
			name: "minAvailable below the replicas only warns about minAvailable",
			snap: Snapshot{Workloads: []Workload{deploy(ns, 3)}, PDBs: []PDB{pdb(ns, "web", minAvail("2"))}},
			want: []string{CodeMinAvailable},
		},
		{
			name: "minAvailable 50 percent of one replica rounds up to one and hangs",
			snap: Snapshot{Workloads: []Workload{deploy("shop-dev", 1)}, PDBs: []PDB{pdb("shop-dev", "web", minAvail("50%"))}},
			want: []string{CodeDrainHang, CodeMinAvailable},
		},
		{
			name: "minAvailable 90 percent of five replicas rounds up to five and hangs",
			snap: Snapshot{Workloads: []Workload{deploy(ns, 5)}, PDBs: []PDB{pdb(ns, "web", minAvail("90%"))}},
			want: []string{CodeDrainHang, CodeMinAvailable},
		},
		{
			name: "maxUnavailable 10 percent of three replicas rounds up to one eviction",
			snap: Snapshot{Workloads: []Workload{deploy(ns, 3)}, PDBs: []PDB{pdb(ns, "web", maxUnavail("10%"))}},
		},
		{
			name: "maxUnavailable 0 percent hangs every drain",
			snap: Snapshot{Workloads: []Workload{deploy(ns, 3)}, PDBs: []PDB{pdb(ns, "web", maxUnavail("0%"))}},
			want: []string{CodeDrainHang},
		},
		{
			name: "status at zero with every pod healthy hangs every drain",
			snap: Snapshot{Workloads: []Workload{deploy(ns, 2)}, PDBs: []PDB{pdb(ns, "web", status(0, 2, 2, 2))}, Pods: pods(ns, 2, 2)},
			want: []string{CodeDrainHang},
		},
		{
			name: "status at zero during a rollout is a warning, not a hang",
			snap: Snapshot{
				Workloads: []Workload{deploy(ns, 2, func(w *Workload) { w.Status.UpdatedReplicas, w.Status.UnavailableReplicas = 1, 1 })},
				PDBs:      []PDB{pdb(ns, "web", status(0, 1, 1, 2))}, Pods: pods(ns, 2, 1),
			},
			want: []string{CodeRolloutInProgress},
		},
		{
			name: "status at zero with unobserved generation counts as a rollout",
			snap: Snapshot{
				Workloads: []Workload{deploy(ns, 2, func(w *Workload) { w.Status.Generation = 2 })},
				PDBs:      []PDB{pdb(ns, "web", status(0, 1, 1, 2))}, Pods: pods(ns, 2, 1),
			},
			want: []string{CodeRolloutInProgress},
		},
		{
			name: "unhealthy pods below the budget without a rollout hang with IfHealthyBudget",
			snap: Snapshot{Workloads: []Workload{deploy(ns, 3)}, PDBs: []PDB{pdb(ns, "web", status(0, 1, 2, 3))}, Pods: pods(ns, 3, 1)},
			want: []string{CodeDrainHang},
		},
		{
			name: "unhealthy pods below the budget only warn with AlwaysAllow",
			snap: Snapshot{
				Workloads: []Workload{deploy(ns, 3)}, Pods: pods(ns, 3, 1),
				PDBs: []PDB{pdb(ns, "web", status(0, 1, 2, 3), func(b *PDB) { b.UnhealthyPodEvictionPolicy = AlwaysAllow })},
			},
			want: []string{CodePodsUnhealthy},
		},
		{
			name: "a stale status is not judged",
			snap: Snapshot{
				Workloads: []Workload{deploy(ns, 2)}, Pods: pods(ns, 2, 2),
				PDBs: []PDB{pdb(ns, "web", status(0, 2, 2, 2), func(b *PDB) { b.Generation = 2 })},
			},
		},
		{
			name: "two budgets selecting the same pods block the eviction API",
			snap: Snapshot{
				Workloads: []Workload{deploy(ns, 2)}, Pods: pods(ns, 2, 2),
				PDBs: []PDB{pdb(ns, "web"), pdb(ns, "all", func(b *PDB) { b.Selector = &metav1.LabelSelector{} })},
			},
			want: []string{CodeOverlappingPDBs},
		},
		{
			name: "budgets in different namespaces never overlap",
			snap: Snapshot{
				Workloads: []Workload{deploy(ns, 2), deploy("other-prod", 2)}, Pods: append(pods(ns, 2, 2), pods("other-prod", 2, 2)...),
				PDBs: []PDB{pdb(ns, "web"), pdb("other-prod", "web")},
			},
		},
		{
			name: "overlapping budgets are found on manifests without pods",
			snap: Snapshot{Workloads: []Workload{deploy(ns, 2)}, PDBs: []PDB{pdb(ns, "a"), pdb(ns, "b")}},
			want: []string{CodeOverlappingPDBs},
		},
		{
			name: "a production workload with one replica is a warning",
			snap: Snapshot{Workloads: []Workload{deploy(ns, 1)}},
			want: []string{CodeSingleReplica},
		},
		{
			name: "a single replica outside production namespaces is fine",
			snap: Snapshot{Workloads: []Workload{deploy("shop-dev", 1)}},
		},
		{
			name: "production namespaces follow the configured globs",
			snap: Snapshot{Workloads: []Workload{deploy("prd-shop", 1)}},
			opts: Options{ProdNamespaces: []string{"prd-*"}},
			want: []string{CodeSingleReplica},
		},
		{
			name: "a multi-replica workload without a budget is a warning",
			snap: Snapshot{Workloads: []Workload{deploy(ns, 2)}, Pods: pods(ns, 2, 2)},
			want: []string{CodeNoPDB},
		},
		{
			name: "a container without preStop is a warning",
			snap: Snapshot{Workloads: []Workload{deploy("dev", 1, func(w *Workload) { w.Containers = append(w.Containers, Container{Name: "sidecar"}) })}},
			want: []string{CodeNoPreStop},
		},
		{
			name: "a grace period not longer than the preStop sleep is a warning",
			snap: Snapshot{Workloads: []Workload{deploy("dev", 1, func(w *Workload) { w.GracePeriodSeconds = ptr(int64(10)) })}},
			want: []string{CodeGracePeriod},
		},
		{
			name: "the default grace period covers a 10 second sleep",
			snap: Snapshot{Workloads: []Workload{deploy("dev", 1, func(w *Workload) { w.GracePeriodSeconds = nil })}},
		},
		{
			name: "all replicas on one node is a warning",
			snap: Snapshot{Workloads: []Workload{deploy(ns, 3)}, PDBs: []PDB{pdb(ns, "web")}, Pods: pods(ns, 3, 3, "n0")},
			want: []string{CodeOneNode},
		},
		{
			name: "all replicas in one zone of a multi-zone cluster is a warning",
			snap: Snapshot{
				Workloads: []Workload{deploy(ns, 2)}, PDBs: []PDB{pdb(ns, "web")}, Pods: pods(ns, 2, 2),
				Nodes: []Node{{Name: "n0", Zone: "a"}, {Name: "n1", Zone: "a"}, {Name: "n2", Zone: "b"}},
			},
			want: []string{CodeOneZone},
		},
		{
			name: "one zone is fine when the cluster has only one",
			snap: Snapshot{
				Workloads: []Workload{deploy(ns, 2)}, PDBs: []PDB{pdb(ns, "web")}, Pods: pods(ns, 2, 2),
				Nodes: []Node{{Name: "n0", Zone: "a"}, {Name: "n1", Zone: "a"}},
			},
		},
		{
			name: "a manifest without spread constraints is a warning",
			snap: Snapshot{Workloads: []Workload{deploy(ns, 2, func(w *Workload) { w.SpreadKeys = nil })}, PDBs: []PDB{pdb(ns, "web")}},
			want: []string{CodeNoSpread},
		},
		{
			name: "maxUnavailable 100 percent is a valid budget",
			snap: Snapshot{Workloads: []Workload{deploy(ns, 3)}, PDBs: []PDB{pdb(ns, "web", maxUnavail("100%"))}},
		},
		{
			name: "maxUnavailable that is neither an integer nor a percentage is invalid, not a hang",
			snap: Snapshot{Workloads: []Workload{deploy(ns, 3)}, PDBs: []PDB{pdb(ns, "web", maxUnavail("abc"))}},
			want: []string{CodePDBInvalid},
		},
		{
			name: "minAvailable that is neither an integer nor a percentage is invalid, not a hang",
			snap: Snapshot{Workloads: []Workload{deploy(ns, 3)}, PDBs: []PDB{pdb(ns, "web", minAvail("two"))}},
			want: []string{CodePDBInvalid},
		},
		{
			name: "a quoted integer is a string the API server refuses",
			snap: Snapshot{Workloads: []Workload{deploy(ns, 3)}, PDBs: []PDB{pdb(ns, "web", func(b *PDB) { v := intstr.FromString("1"); b.MaxUnavailable = &v })}},
			want: []string{CodePDBInvalid},
		},
		{
			name: "a negative maxUnavailable is invalid",
			snap: Snapshot{Workloads: []Workload{deploy(ns, 3)}, PDBs: []PDB{pdb(ns, "web", maxUnavail("-1"))}},
			want: []string{CodePDBInvalid},
		},
		{
			name: "a percentage above 100 is invalid",
			snap: Snapshot{Workloads: []Workload{deploy(ns, 3)}, PDBs: []PDB{pdb(ns, "web", minAvail("150%"))}},
			want: []string{CodePDBInvalid},
		},
		{
			name: "minAvailable and maxUnavailable both set is invalid",
			snap: Snapshot{Workloads: []Workload{deploy(ns, 3)}, PDBs: []PDB{pdb(ns, "web", func(b *PDB) { b.MinAvailable = intOr("1") })}},
			want: []string{CodePDBInvalid},
		},
		{
			name: "an invalid budget is reported even when it selects no pod",
			snap: Snapshot{PDBs: []PDB{pdb(ns, "web", maxUnavail("abc"))}},
			want: []string{CodePDBInvalid},
		},
		{
			name: "an invalid budget still overlaps the budgets selecting its pods",
			snap: Snapshot{Workloads: []Workload{deploy(ns, 2)}, PDBs: []PDB{pdb(ns, "a"), pdb(ns, "b", maxUnavail("abc"))}},
			want: []string{CodeOverlappingPDBs, CodePDBInvalid},
		},
		{
			name: "a workload scaled to zero is not judged",
			snap: Snapshot{Workloads: []Workload{deploy(ns, 0)}, PDBs: []PDB{pdb(ns, "web", maxUnavail("0"))}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := codes(Check(tt.snap, tt.opts))
			want := slices.Sorted(slices.Values(tt.want))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Check(%s) codes (-want +got):\n%s", tt.name, diff)
			}
		})
	}
}

func TestDesiredHealthy(t *testing.T) {
	tests := []struct {
		name             string
		minAv, maxUn     string
		expected, wanted int32
	}{
		{name: "maxUnavailable 1 of 3 wants 2", maxUn: "1", expected: 3, wanted: 2},
		{name: "maxUnavailable 10 percent of 3 rounds the eviction up to 1", maxUn: "10%", expected: 3, wanted: 2},
		{name: "maxUnavailable 50 percent of 3 rounds the evictions up to 2", maxUn: "50%", expected: 3, wanted: 1},
		{name: "minAvailable 50 percent of 7 rounds up to 4", minAv: "50%", expected: 7, wanted: 4},
		{name: "minAvailable 50 percent of 1 rounds up to 1", minAv: "50%", expected: 1, wanted: 1},
		{name: "neither field defaults to minAvailable 1", expected: 3, wanted: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var minAv, maxUn *intstr.IntOrString
			if tt.minAv != "" {
				minAv = intOr(tt.minAv)
			}
			if tt.maxUn != "" {
				maxUn = intOr(tt.maxUn)
			}
			if got := DesiredHealthy(minAv, maxUn, tt.expected); got != tt.wanted {
				t.Errorf("DesiredHealthy(%s) = %d, want %d", tt.name, got, tt.wanted)
			}
		})
	}
}

func TestFindingsNameTheObjectAndTheCommand(t *testing.T) {
	items := Check(Snapshot{Workloads: []Workload{deploy("shop-prod", 1)}, PDBs: []PDB{pdb("shop-prod", "web", minAvail("1"))}}, Options{})
	for _, it := range items {
		if it.Code != CodeDrainHang {
			continue
		}
		if it.Subject != "pdb shop-prod/web" || it.Inspect != "kubectl -n shop-prod get pdb web -o yaml" || it.Class != planner.ClassActionable {
			t.Errorf("drain-hang item = %+v", it)
		}
		if !strings.Contains(it.Message, "deployment web") {
			t.Errorf("drain-hang message does not name the workload: %s", it.Message)
		}
		return
	}
	t.Fatalf("no drain-hang in %v", codes(items))
}

// The fix of a budget that hangs drains asks for more replicas only where
// one pod is all there is: with 2 or more, maxUnavailable: 1 is enough.
func TestDrainHangFixAsksForReplicasOnlyWhereOneRuns(t *testing.T) {
	for _, tt := range []struct {
		replicas int32
		want     string
	}{
		{1, "set maxUnavailable: 1 on the budget and run at least 2 replicas"},
		{2, "set maxUnavailable: 1 on the budget"},
		{3, "set maxUnavailable: 1 on the budget"},
	} {
		items := Check(Snapshot{Workloads: []Workload{deploy("shop-prod", tt.replicas)}, PDBs: []PDB{pdb("shop-prod", "web", minAvail(strconv.Itoa(int(tt.replicas))))}}, Options{})
		i := slices.IndexFunc(items, func(it Item) bool { return it.Code == CodeDrainHang })
		if i < 0 {
			t.Fatalf("%d replicas: no drain-hang in %v", tt.replicas, codes(items))
		}
		if got := items[i].Remediation; got != tt.want {
			t.Errorf("%d replicas: fix %q, want %q", tt.replicas, got, tt.want)
		}
	}
}

func TestInvalidBudgetSaysWhatTheAPIServerRefuses(t *testing.T) {
	tests := []struct {
		name string
		opt  func(*PDB)
		want string
	}{
		{name: "a word", opt: maxUnavail("abc"), want: `maxUnavailable "abc" is neither an integer nor a percentage`},
		{name: "a quoted integer", opt: func(b *PDB) { v := intstr.FromString("1"); b.MaxUnavailable = &v }, want: `maxUnavailable "1" is a quoted string, not an integer`},
		{name: "a negative integer", opt: maxUnavail("-1"), want: "maxUnavailable -1 is negative"},
		{name: "a percentage above 100", opt: minAvail("150%"), want: `minAvailable "150%" is more than 100%`},
		{name: "both fields", opt: func(b *PDB) { b.MinAvailable = intOr("2") }, want: "minAvailable (2) and maxUnavailable (1) are both set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items := Check(Snapshot{Workloads: []Workload{deploy("shop-prod", 3)}, PDBs: []PDB{pdb("shop-prod", "web", tt.opt)}}, Options{})
			if len(items) != 1 || items[0].Code != CodePDBInvalid {
				t.Fatalf("Check(%s) codes = %v, want [%s]", tt.name, codes(items), CodePDBInvalid)
			}
			it := items[0]
			if it.Severity != planner.SeverityBlocker || it.Class != planner.ClassActionable || it.Subject != "pdb shop-prod/web" {
				t.Errorf("Check(%s) item = %+v, want an actionable blocker on pdb shop-prod/web", tt.name, it)
			}
			if !strings.Contains(it.Message, "the API server refuses this budget: "+tt.want+";") {
				t.Errorf("Check(%s) message = %q, want it to say %q", tt.name, it.Message, tt.want)
			}
			if !strings.Contains(it.Remediation, "maxUnavailable: 1") {
				t.Errorf("Check(%s) remediation = %q, want the fix", tt.name, it.Remediation)
			}
		})
	}
}

func TestOptionsValidate(t *testing.T) {
	tests := []struct {
		name  string
		globs []string
		bad   string // the glob the error names; empty: no error
	}{
		{name: "no globs are valid"},
		{name: "the default and prefix globs are valid", globs: []string{DefaultProdNamespaces, "prd-*", "[a-c]-prod", `\[x\]`}},
		{name: "an unclosed bracket is refused", globs: []string{"*-prod", "["}, bad: "["},
		{name: "a trailing backslash is refused", globs: []string{`prod\`}, bad: `prod\`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Options{ProdNamespaces: tt.globs}.Validate()
			if tt.bad == "" {
				if err != nil {
					t.Fatalf("Validate(%s) = %v, want nil", tt.name, err)
				}
				return
			}
			if !errors.Is(err, path.ErrBadPattern) || !strings.Contains(err.Error(), strconv.Quote(tt.bad)) {
				t.Fatalf("Validate(%s) = %v, want an error naming %q and wrapping path.ErrBadPattern", tt.name, err, tt.bad)
			}
		})
	}
}

func TestReportIsDeterministicAndGroupedByNamespace(t *testing.T) {
	snap := Snapshot{
		Workloads: []Workload{deploy("b-prod", 1), deploy("a-prod", 2)},
		PDBs:      []PDB{pdb("b-prod", "web", minAvail("1"))},
	}
	render := func() string {
		r := NewReport("manifests in testdata", []planner.Check{{Name: "inventory-pdbs", Required: true, Status: planner.CheckAssessed}}, Check(snap, Options{}))
		var b bytes.Buffer
		if err := r.WriteTable(&b); err != nil {
			t.Fatal(err)
		}
		if err := envelope.WriteJSON(&b, r.Document()); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	first := render()
	if second := render(); first != second {
		t.Fatalf("two renderings differ:\n%s\n---\n%s", first, second)
	}
	if a, b := strings.Index(first, "namespace a-prod"), strings.Index(first, "namespace b-prod"); a < 0 || b < a {
		t.Errorf("namespaces not grouped in order:\n%s", first)
	}
	if !strings.Contains(first, "verdict: blocked") {
		t.Errorf("verdict missing:\n%s", first)
	}
}

func TestVerdictIsUnknownWhenARequiredCheckIsPartial(t *testing.T) {
	got := Verdict([]planner.Check{{Name: "inventory-pdbs", Required: true, Status: planner.CheckPartial}}, nil)
	if got != planner.VerdictUnknown {
		t.Errorf("Verdict = %s, want unknown", got)
	}
}

func TestParseProdNamespaces(t *testing.T) {
	got, err := ParseProdNamespaces(" *-prod , ,prod-*,")
	if err != nil || len(got) != 2 || got[0] != "*-prod" || got[1] != "prod-*" {
		t.Errorf("ParseProdNamespaces = %q, %v; want [*-prod prod-*]", got, err)
	}
	if _, err := ParseProdNamespaces("prod-[a"); !errors.Is(err, path.ErrBadPattern) {
		t.Errorf("ParseProdNamespaces of an unclosed [: %v, want path.ErrBadPattern", err)
	}
}
