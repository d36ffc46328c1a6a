package reconciler

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rogpeppe/go-internal/txtar"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/internal/kubetest"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

// passStates is the script that feeds every pass state of the three-pass
// plan 1.5 → 1.7 to plan --status, status --to and reconcile --dry-run
// --to from files; the test below feeds the same states to the controller
// on a real API server.
const passStates = "../cmd/sylva-planner/testdata/script/passes.txtar"

// TestTheControllerReadsEveryPassStateAsTheCommandsDo creates the objects
// of each pass state of passes.txtar (not started, pass 1 done, pass 2
// requested and running, pass 2 done, all done, a release applied again
// after it; and two statuses without pass keys, pass 1 of the hop to 1.6
// done and a pass pending in 1.7 that several hops could take) in a
// namespace of a real
// API server and runs the controller with the gate on it: the controller
// triggers exactly where reconcile --dry-run on the file says it would,
// decides what reconcile decides, and its gate places the release at the
// pass status --to and plan --status place it (planner.Locate).
func TestTheControllerReadsEveryPassStateAsTheCommandsDo(t *testing.T) {
	c := newCluster(t)
	ar, err := txtar.ParseFile(passStates)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	in := planner.Input{Catalog: cat, To: semver.MustParse("1.7"), AsOf: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	states := 0
	for _, f := range ar.Files {
		t.Run(f.Name, func(t *testing.T) {
			states++
			// The commands' reading: the file.
			fromFile, err := status.DecodeObservation(f.Data, status.DefaultHelmRelease)
			if err != nil {
				t.Fatal(err)
			}
			want := Decide(Input{Observation: fromFile})
			wantPos, err := planner.Locate(in, planner.TransitionStateOf(fromFile))
			if err != nil {
				t.Fatal(err)
			}

			// The controller's reading: the same objects on the API server.
			ns := kubetest.Namespace(t, c.cfg)
			c.createState(t, ns, f.Data)
			before := c.helmRelease(t, ns).GetAnnotations()[AnnotationHandledRequest]
			rec := &gateRecorder{in: in}
			ctl, _ := runController(t, c.cfg, ControllerOptions{Namespace: ns, Gate: rec.gate})

			if want.Outcome == ConclusionTrigger {
				settle(t, ctl, ConclusionTrigger, 1)
				after := c.helmRelease(t, ns).GetAnnotations()[AnnotationHandledRequest]
				if after == "" || after == before {
					t.Errorf("the controller triggered but the HelmRelease's %s is %q (was %q)", AnnotationHandledRequest, after, before)
				}
				// Its Event names the pass as plan --status places it, and
				// none where plan --status places none (the pass the status
				// requests is passed on all the same, as reconcile does).
				next := wantPos.Transition().NextPass()
				suffix := "): " + next
				if next == "" {
					suffix = "(from the status)"
				}
				kubetest.Eventually(t, time.Minute, "the trigger Event", func() bool { return len(c.triggerMessages(t, ns)) > 0 })
				if msgs := c.triggerMessages(t, ns); len(msgs) != 1 || !strings.HasSuffix(msgs[0], suffix) {
					t.Errorf("trigger Events %q, want one ending in %q (plan --status: %s)", msgs, suffix, wantPos.Summary)
				}
				// The pass it passed on is then handled: no second trigger.
				settle(t, ctl, ConclusionAlreadyHandled, 1)
			} else {
				settle(t, ctl, want.Outcome, 1)
			}
			if s := ctl.Stats(); (want.Outcome == ConclusionTrigger) != (s.Triggers == 1) || s.Triggers > 1 {
				t.Errorf("reconcile --dry-run on the file decides %s; the controller triggered %d times (%v)", want.Outcome, s.Triggers, s.Outcomes)
			}
			gated := rec.gated()
			if len(gated) == 0 {
				t.Fatal("the controller's gate never planned")
			}
			pos, err := planner.Locate(in, gated[0])
			if err != nil {
				t.Fatal(err)
			}
			if pos.PassesDone != wantPos.PassesDone || pos.Passes != wantPos.Passes || pos.Summary != wantPos.Summary {
				t.Errorf("the controller's gate places the release at %d of %d (%s); status --to and plan --status at %d of %d (%s)",
					pos.PassesDone, pos.Passes, pos.Summary, wantPos.PassesDone, wantPos.Passes, wantPos.Summary)
			}
			// And its /metrics say it: sylva_planner_passes_done of the
			// namespace is the pass plan --status marks done, absent (-1
			// here) where it places none.
			if !wantPos.PassKnown {
				if got := passesDoneGauge(t, ns, -1); got != -1 {
					t.Errorf("sylva_planner_passes_done{namespace=%q} = %v; plan --status places no pass (%s): want none", ns, got, wantPos.Summary)
				}
				return
			}
			if got := passesDoneGauge(t, ns, float64(wantPos.PassesDone)); got != float64(wantPos.PassesDone) {
				t.Errorf("sylva_planner_passes_done{namespace=%q} = %v; status --to and plan --status say %d of %d passes done", ns, got, wantPos.PassesDone, wantPos.Passes)
			}
		})
	}
	if states != 8 {
		t.Errorf("%d pass states in %s, want 8", states, passStates)
	}
}

// createState creates in ns the ConfigMap, Kustomization and HelmRelease
// of a pass state written as a List: data and annotations as written; the
// Flux objects built on the tests' own (their spec) and Ready, or not, at
// their current generation as the file says of its own.
func (c *cluster) createState(t *testing.T, ns string, data []byte) {
	t.Helper()
	var list struct {
		Items []unstructured.Unstructured `json:"items"`
	}
	if err := yaml.Unmarshal(data, &list); err != nil {
		t.Fatal(err)
	}
	ctx := ctxFor(t)
	for _, it := range list.Items {
		switch it.GetKind() {
		case "ConfigMap":
			cm := &corev1.ConfigMap{}
			if err := runtimeConvert(&it, cm); err != nil {
				t.Fatal(err)
			}
			cm.Namespace, cm.ResourceVersion = ns, ""
			if _, err := c.core.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{FieldManager: status.ChartWriter}); err != nil {
				t.Fatal(err)
			}
		case "Kustomization":
			c.createFluxAs(t, kustomizations, ns, loadYAML(t, "kustomization.yaml"), it)
		case "HelmRelease":
			c.createFluxAs(t, helmReleases, ns, loadYAML(t, "helmrelease.yaml"), it)
		}
	}
}

// createFluxAs creates base with the annotations of written, Ready as
// written says (its Ready condition's status, at the current generation
// when written's condition is at written's generation).
func (c *cluster) createFluxAs(t *testing.T, gvr schema.GroupVersionResource, ns string, base *unstructured.Unstructured, written unstructured.Unstructured) {
	t.Helper()
	base.SetAnnotations(written.GetAnnotations())
	ready := false
	conds, _, _ := unstructured.NestedSlice(written.Object, "status", "conditions")
	for _, cond := range conds {
		m, _ := cond.(map[string]any)
		gen, _, _ := unstructured.NestedInt64(m, "observedGeneration")
		if m["type"] == "Ready" && m["status"] == "True" && gen == written.GetGeneration() {
			ready = true
		}
	}
	c.createFlux(t, ctxFor(t), gvr, ns, base, ready)
}

// gateRecorder is a controller gate (ControllerOptions.Gate) that plans
// to in.To, with in's catalog and date, from each Progress the controller
// reads, and keeps them.
type gateRecorder struct {
	in  planner.Input
	mu  sync.Mutex
	got []planner.TransitionState
}

func (g *gateRecorder) gate(pr planner.TransitionState) *planner.Plan {
	g.mu.Lock()
	g.got = append(g.got, pr)
	g.mu.Unlock()
	p, err := planner.Compute(planner.Input{Catalog: g.in.Catalog, To: g.in.To, AsOf: g.in.AsOf, Progress: &pr})
	if err != nil {
		return nil
	}
	return p
}

// gated is what the gate was given so far.
func (g *gateRecorder) gated() []planner.TransitionState {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.got)
}

// passesDoneGauge is the controller's sylva_planner_passes_done of
// namespace ns once it is want, or what it is after a few seconds (-1 when
// absent): the gauge is set right after the gate plans.
func passesDoneGauge(t *testing.T, ns string, want float64) float64 {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(gate); err != nil {
		t.Fatal(err)
	}
	got := -1.0
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		got = -1
		for _, mf := range mfs {
			if mf.GetName() != "sylva_planner_passes_done" {
				continue
			}
			for _, m := range mf.GetMetric() {
				for _, l := range m.GetLabel() {
					if l.GetName() == "namespace" && l.GetValue() == ns {
						got = m.GetGauge().GetValue()
					}
				}
			}
		}
		if got == want {
			break
		}
	}
	return got
}

// triggerMessages are the messages of the Events recorded for passes
// requested in ns.
func (c *cluster) triggerMessages(t *testing.T, ns string) []string {
	t.Helper()
	list, err := c.core.CoreV1().Events(ns).List(ctxFor(t), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list events: %v", err)
	}
	var out []string
	for _, e := range list.Items {
		if e.Reason == EventReason && e.InvolvedObject.Kind == "HelmRelease" {
			out = append(out, e.Message)
		}
	}
	return out
}
