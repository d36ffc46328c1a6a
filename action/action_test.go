package action_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"gitlab.com/sylva-projects/sylva-planner/action"
	"gitlab.com/sylva-projects/sylva-planner/availability"
	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/internal/catalogtest"
	"gitlab.com/sylva-projects/sylva-planner/inventory"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/removedapis"
	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

var asOf = time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)

// fakeStatus serves a status ConfigMap from bytes and counts its reads.
type fakeStatus struct {
	yaml  string
	err   error
	reads int
}

func (s *fakeStatus) Observation(context.Context) (status.Observation, error) {
	s.reads++
	if s.err != nil {
		return status.Observation{}, s.err
	}
	return status.DecodeObservation([]byte(s.yaml), status.DefaultHelmRelease)
}

func (s *fakeStatus) Input() string { return "status fake" }

// fakeFacts serves facts and counts its reads.
type fakeFacts struct {
	facts *inventory.Facts
	reads int
}

func (f *fakeFacts) Facts(context.Context) (*inventory.Facts, error) {
	f.reads++
	return f.facts, nil
}

func (f *fakeFacts) Input() string { return "cluster fake" }

// countingFS counts the files read from an fs.FS. The inventory reads
// files from several goroutines, so the count is guarded.
type countingFS struct {
	fstest.MapFS
	mu    sync.Mutex
	opens map[string]int
}

func (c *countingFS) ReadFile(name string) ([]byte, error) {
	c.mu.Lock()
	c.opens[name]++
	c.mu.Unlock()
	return c.MapFS.ReadFile(name)
}

const status14 = `apiVersion: v1
kind: ConfigMap
metadata: {name: sylva-units-status, namespace: sylva-system}
data: {sylva_release: "1.4.3"}
`

// An RKE2 node on 1.29 and a FlowSchema written with an API version the
// route's control-plane targets no longer serve.
var manifestFS = fstest.MapFS{
	"nodes.yaml": {Data: []byte(`apiVersion: v1
kind: Node
metadata: {name: w1, labels: {node-role.kubernetes.io/worker: "true"}}
status: {nodeInfo: {kubeletVersion: v1.29.9+rke2r1}}
`)},
	"flow.yaml": {Data: []byte(`apiVersion: flowcontrol.apiserver.k8s.io/v1beta3
kind: FlowSchema
metadata: {name: old}
`)},
}

func codes(p *planner.Plan) []string {
	var out []string
	for _, f := range p.Findings {
		out = append(out, f.Code)
	}
	return out
}

func checkNames(p *planner.Plan) []string {
	var out []string
	for _, c := range p.Checks {
		out = append(out, c.Name)
	}
	return out
}

func TestPlanFromFlagsReadsOnlyTheCatalog(t *testing.T) {
	cat := catalogtest.Default(t)
	st := &fakeStatus{yaml: status14}
	p, err := action.PlanRequest{Releases: action.Releases{Catalog: cat, From: "1.4", To: "1.6", AsOf: asOf}, CatalogInput: "catalog embedded", Status: st}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.reads != 0 {
		t.Errorf("status read %d times with --from given, want 0", st.reads)
	}
	if diff := cmp.Diff([]string{"catalog embedded " + cat.Version}, p.Metadata.Inputs); diff != "" {
		t.Errorf("Inputs (-want +got):\n%s", diff)
	}
	if p.Metadata.FromSource != "flag" {
		t.Errorf("FromSource = %q, want flag", p.Metadata.FromSource)
	}
}

func TestPlanReadsTheInstalledReleaseFromTheStatusOnce(t *testing.T) {
	st := &fakeStatus{yaml: status14}
	p, err := action.PlanRequest{Releases: action.Releases{Catalog: catalogtest.Default(t), To: "1.6", AsOf: asOf}, Status: st}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.reads != 1 || p.From.Release != "1.4" || p.Metadata.FromSource != "sylva_release" {
		t.Errorf("reads %d, from %s (%s); want 1 read, from 1.4 (sylva_release)", st.reads, p.From.Release, p.Metadata.FromSource)
	}
	if !slices.Contains(p.Metadata.Inputs, "status fake") {
		t.Errorf("Inputs %v lack the status", p.Metadata.Inputs)
	}
}

func TestPlanRefusesWhatItCannotReadWithTheFlagToFix(t *testing.T) {
	cat := catalogtest.Default(t)
	tests := []struct {
		name string
		req  action.PlanRequest
		want string
	}{
		{"no target", action.PlanRequest{Releases: action.Releases{From: "1.4"}}, "--to is required"},
		{"no source release and no status", action.PlanRequest{Releases: action.Releases{To: "1.6"}}, "--from is required"},
		{"a fresh install", action.PlanRequest{Releases: action.Releases{To: "1.6"}, Status: &fakeStatus{yaml: "apiVersion: v1\nkind: List\nitems: []\n"}}, "fresh install"},
		{"an unreadable status", action.PlanRequest{Releases: action.Releases{To: "1.6"}, Status: &fakeStatus{err: errors.New("connection refused")}}, "connection refused"},
		{"a bad worker minor", action.PlanRequest{Releases: action.Releases{From: "1.4", To: "1.6", Workers: "x"}}, "--workers"},
		{"a bad provider", action.PlanRequest{Releases: action.Releases{From: "1.4", To: "1.6", Provider: "talos"}}, "--bootstrap-provider"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.req.Catalog, tt.req.AsOf = cat, asOf
			_, err := tt.req.Run(context.Background())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Plan() error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestPlanWalksTheInventoryOnceAndJudgesItsAPIsPerPass(t *testing.T) {
	fsys := &countingFS{MapFS: manifestFS, opens: map[string]int{}}
	p, err := action.PlanRequest{
		Releases:     action.Releases{Catalog: catalogtest.Default(t), From: "1.4", To: "1.6", AsOf: asOf},
		CatalogInput: "catalog embedded",
		Inventory:    action.Manifests{FS: fsys, Dir: "inv", Flag: "--inventory"},
	}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for name, n := range fsys.opens {
		if n != 1 {
			t.Errorf("%s read %d times, want once", name, n)
		}
	}
	if len(fsys.opens) != len(manifestFS) {
		t.Errorf("read %d files, want %d", len(fsys.opens), len(manifestFS))
	}
	if p.BootstrapProvider != string(catalog.ProviderRKE2) || p.Passes[0].Workers.From != "1.29" {
		t.Errorf("provider %s, workers from %s; want rke2 and 1.29 from the inventory's node", p.BootstrapProvider, p.Passes[0].Workers.From)
	}
	if !slices.Contains(codes(p), removedapis.CodeRemoved) {
		t.Errorf("codes %v lack %s for the FlowSchema", codes(p), removedapis.CodeRemoved)
	}
	names := checkNames(p)
	if i, j := slices.Index(names, action.CheckInventory), slices.Index(names, action.CheckRemovedAPIs); i < 0 || j != len(names)-1 {
		t.Errorf("checks %v: want the inventory check, and the removed-API check last", names)
	}
	if !slices.Contains(p.Metadata.Inputs, "inventory inv") {
		t.Errorf("Inputs %v lack the inventory", p.Metadata.Inputs)
	}
}

// The plan of one Compute with the removed-API judge is the plan of the
// two-pass computation: passes first, then the findings of their targets.
func TestPlanOnceEqualsPlanningTwice(t *testing.T) {
	cat := catalogtest.Default(t)
	facts, err := inventory.Scan(manifestFS, "manifests in inv")
	if err != nil {
		t.Fatal(err)
	}
	cluster := &fakeFacts{facts: facts}
	once, err := action.PlanRequest{Releases: action.Releases{Catalog: cat, From: "1.4", To: "1.6", AsOf: asOf}, Cluster: cluster}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if cluster.reads != 1 {
		t.Errorf("cluster read %d times, want once", cluster.reads)
	}

	in, err := action.PlannerInput(cat, "1.4", "1.6", "", "")
	if err != nil {
		t.Fatal(err)
	}
	in.AsOf, in.Inputs = asOf, once.Metadata.Inputs
	in.Observed = &planner.Observed{Source: facts.Source, Checks: slices.Clone(facts.Checks)}
	rules, err := action.DetectionRules(cat)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range facts.Inventory.Detect(rules) {
		in.Observed.Components = append(in.Observed.Components, planner.ObservedComponent{Name: d.Component, Raw: d.Raw, Version: d.Version, Where: d.Where})
	}
	in.Observed.Findings = availability.Findings(availability.Check(facts.Snapshot, availability.Options{}))
	first, err := planner.Compute(in)
	if err != nil {
		t.Fatal(err)
	}
	var targets []removedapis.Target
	for _, ps := range first.Passes {
		targets = append(targets, removedapis.Target{Pass: ps.Index, ControlPlane: semver.MustParse(ps.ControlPlane.To)})
	}
	kb, err := removedapis.Default()
	if err != nil {
		t.Fatal(err)
	}
	findings, _ := kb.Check(facts.Uses, targets)
	in.Observed.Findings = append(in.Observed.Findings, findings...)
	in.Observed.Checks = append(in.Observed.Checks, planner.Check{Name: action.CheckRemovedAPIs})
	twice, err := planner.Compute(in)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(twice.Findings, once.Findings, cmp.Comparer(func(a, b planner.Finding) bool { return planner.CompareFindings(a, b) == 0 && a.Class == b.Class })); diff != "" {
		t.Errorf("findings (-twice +once):\n%s", diff)
	}
	if twice.Verdict != once.Verdict || !slices.Equal(checkNames(twice), checkNames(once)) {
		t.Errorf("verdict %s checks %v, want %s %v", once.Verdict, checkNames(once), twice.Verdict, checkNames(twice))
	}
}

func TestPlanTwiceGivesTheSameBytes(t *testing.T) {
	render := func() []byte {
		p, err := action.PlanRequest{
			Releases:     action.Releases{Catalog: catalogtest.Default(t), To: "1.6", AsOf: asOf},
			CatalogInput: "catalog embedded",
			Status:       &fakeStatus{yaml: status14}, Inventory: action.Manifests{FS: manifestFS, Dir: "inv", Flag: "--inventory"},
		}.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := envelope.WriteJSON(&b, p.Document()); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	if a, b := render(), render(); !bytes.Equal(a, b) {
		t.Errorf("two plans of the same inputs differ:\n%s", cmp.Diff(string(a), string(b)))
	}
}

func TestDrainCheckRewordsRemovedAPIsForOneTarget(t *testing.T) {
	facts, err := inventory.Scan(manifestFS, "manifests in inv")
	if err != nil {
		t.Fatal(err)
	}
	src := &fakeFacts{facts: facts}
	rep, err := action.DrainRequest{Facts: src, Kubernetes: semver.MustParse("1.32.4")}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if src.reads != 1 {
		t.Errorf("facts read %d times, want once", src.reads)
	}
	var found bool
	for _, it := range rep.Items {
		if it.Code != removedapis.CodeRemoved {
			continue
		}
		found = true
		if it.Subject != "Kubernetes 1.32" || strings.Contains(it.Message, "pass 1") || !strings.Contains(it.Message, "the target is 1.32") {
			t.Errorf("finding %q: %q, want it worded for the target 1.32", it.Subject, it.Message)
		}
	}
	if !found {
		t.Errorf("no %s finding for the FlowSchema in %v", removedapis.CodeRemoved, rep.Items)
	}
}

func TestParseSuppressionsAndBaselineRefuseWhatTheyCannotUse(t *testing.T) {
	tests := []struct {
		name  string
		parse func([]byte) error
		data  string
		want  string
	}{
		{"a suppression without a reason", func(b []byte) error { _, err := action.ParseSuppressions(b); return err }, "suppressions: [{code: x}]", "code and reason are required"},
		{"a suppression with a bad date", func(b []byte) error { _, err := action.ParseSuppressions(b); return err }, "suppressions: [{code: x, reason: y, expires: soon}]", "not YYYY-MM-DD"},
		{"an unknown suppression field", func(b []byte) error { _, err := action.ParseSuppressions(b); return err }, "suppressions: [{code: x, reason: y, until: z}]", "not a suppressions file"},
		{"a baseline that is not JSON", func(b []byte) error { _, err := action.ParseBaseline(b); return err }, "{", "not a JSON plan"},
		{"a baseline of another kind", func(b []byte) error { _, err := action.ParseBaseline(b); return err }, `{"kind": "DrainCheck"}`, "want TransitionPlan"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.parse([]byte(tt.data)); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want one containing %q", err, tt.want)
			}
		})
	}
	// A file given by mistake is not echoed in the error.
	for _, secret := range []string{"root:$6$s3cr3t:19000:0:99999:7:::\n", "s3cr3t\n", "- s3cr3t\n"} {
		if _, err := action.ParseSuppressions([]byte(secret)); err == nil || strings.Contains(err.Error(), "s3cr3t") {
			t.Errorf("ParseSuppressions(%q) = %v; want an error that does not echo the file", secret, err)
		}
	}
	s, err := action.ParseSuppressions([]byte("suppressions: [{code: x, subject: 'a*', reason: y, expires: 2027-01-02}]"))
	if err != nil || len(s) != 1 || s[0].Expires.Format(time.DateOnly) != "2027-01-02" {
		t.Errorf("ParseSuppressions = %v, %v; want one rule expiring 2027-01-02", s, err)
	}
}

func TestTheControllersGatePlansAsPlanDoesFromTheSameStatus(t *testing.T) {
	cat := catalogtest.Default(t)
	st := &fakeStatus{yaml: status14}
	fromStatus, err := action.PlanRequest{Releases: action.Releases{Catalog: cat, To: "1.6", AsOf: asOf}, Status: st}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	obs, err := (&fakeStatus{yaml: status14}).Observation(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	pr := planner.TransitionStateOf(obs)
	gate, err := action.PlanRequest{Releases: action.Releases{Catalog: cat, To: "1.6", AsOf: asOf}, Progress: &pr}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if gate.Gate != fromStatus.Gate || gate.Verdict != fromStatus.Verdict || gate.Metadata.FromSource != fromStatus.Metadata.FromSource {
		t.Errorf("gate from progress = %+v %s (%s), want %+v %s (%s) as from the status",
			gate.Gate, gate.Verdict, gate.Metadata.FromSource, fromStatus.Gate, fromStatus.Verdict, fromStatus.Metadata.FromSource)
	}
	if diff := cmp.Diff(codes(fromStatus), codes(gate)); diff != "" {
		t.Errorf("findings (-status +progress):\n%s", diff)
	}
}

func TestEachOutcomeExitsWithItsDocumentedCode(t *testing.T) {
	for o, want := range map[action.Outcome]int{action.OutcomePass: 0, action.OutcomeFail: 2, action.OutcomeHeld: 4, action.OutcomeUnevaluated: 3} {
		if got := o.ExitCode(); got != want {
			t.Errorf("Outcome(%s).ExitCode() = %d, want %d", o, got, want)
		}
	}
}

// TestDrainCheckCommandsReadTheClusterRead: with Kubectl set (kubectl
// with the --kubeconfig and --context drain-check read), every kubectl
// command of the report, to inspect or in a fix, reads the same cluster.
func TestDrainCheckCommandsReadTheClusterRead(t *testing.T) {
	// One replica under a budget that wants it up (a drain hangs), and a
	// second budget over the same pods (a fix naming both).
	selector := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	one := intstr.FromString("1")
	web := availability.Workload{
		Kind: "Deployment", Namespace: "shop-prod", Name: "web", Replicas: 1, Selector: selector, TemplateLabels: map[string]string{"app": "web"},
		Status: availability.WorkloadStatus{Known: true, Generation: 1, ObservedGeneration: 1, UpdatedReplicas: 1, ReadyReplicas: 1},
	}
	facts := &inventory.Facts{Source: "cluster fake", Snapshot: availability.Snapshot{
		Workloads: []availability.Workload{web},
		PDBs: []availability.PDB{
			{Namespace: "shop-prod", Name: "web", Generation: 1, Selector: selector, MinAvailable: &one},
			{Namespace: "shop-prod", Name: "web-too", Generation: 1, Selector: selector, MinAvailable: &one},
		},
	}}
	const kubectl = "kubectl --kubeconfig 'my kc.yaml' --context mgmt"
	rep, err := action.DrainRequest{Facts: &fakeFacts{facts: facts}, Kubectl: kubectl}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	commands := 0
	for _, it := range rep.Items {
		for _, s := range []string{it.Inspect, it.Remediation} {
			if n := strings.Count(s, "kubectl "); n > 0 {
				commands += n
				if strings.Count(s, kubectl+" ") != n {
					t.Errorf("%q: a kubectl command without %q", s, kubectl)
				}
			}
		}
	}
	if commands == 0 {
		t.Fatalf("no kubectl command in the report of the manifests: %+v", rep.Items)
	}
}
