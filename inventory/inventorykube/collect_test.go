package inventorykube_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"gitlab.com/sylva-projects/sylva-planner/availability"
	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/internal/kubetest"
	"gitlab.com/sylva-projects/sylva-planner/inventory/inventorykube"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
)

func TestMain(m *testing.M) { os.Exit(kubetest.Main(m)) }

// seed creates objects in one namespace and sets their status through the
// status subresource, as the controllers would.
type seed struct {
	t  *testing.T
	cs kubernetes.Interface
	ns string
}

func newSeed(t *testing.T, cfg *rest.Config) *seed {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &seed{t: t, cs: cs, ns: kubetest.Namespace(t, cfg)}
}

func ctx(t *testing.T) context.Context {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return c
}

// deployment creates "web" with replicas and the given status: updated
// and ready replicas, unavailable ones.
func (s *seed) deployment(name string, replicas, updated, ready, unavailable int32) {
	s.t.Helper()
	labels := map[string]string{"app": name}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: s.ns},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{
				Containers: []corev1.Container{{
					Name: "app", Image: "registry.example/app:1.0.0",
					Lifecycle: &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: 10}}},
				}},
				TopologySpreadConstraints: []corev1.TopologySpreadConstraint{{
					MaxSkew: 1, TopologyKey: availability.HostnameLabel,
					WhenUnsatisfiable: corev1.ScheduleAnyway, LabelSelector: &metav1.LabelSelector{MatchLabels: labels},
				}},
			}},
		},
	}
	d, err := s.cs.AppsV1().Deployments(s.ns).Create(ctx(s.t), d, metav1.CreateOptions{})
	if err != nil {
		s.t.Fatalf("create deployment %s/%s: %v", s.ns, name, err)
	}
	d.Status = appsv1.DeploymentStatus{
		ObservedGeneration: d.Generation, Replicas: replicas, UpdatedReplicas: updated,
		ReadyReplicas: ready, AvailableReplicas: ready, UnavailableReplicas: unavailable,
	}
	if _, err := s.cs.AppsV1().Deployments(s.ns).UpdateStatus(ctx(s.t), d, metav1.UpdateOptions{}); err != nil {
		s.t.Fatalf("update status of deployment %s/%s: %v", s.ns, name, err)
	}
}

// pods creates n pods of app on distinct nodes, the first `ready` of them
// Ready.
func (s *seed) pods(app string, n, ready int) {
	s.t.Helper()
	for i := range n {
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", app, i), Namespace: s.ns, Labels: map[string]string{"app": app}},
			Spec:       corev1.PodSpec{NodeName: fmt.Sprintf("node-%d", i), Containers: []corev1.Container{{Name: "app", Image: "registry.example/app:1.0.0"}}},
		}
		p, err := s.cs.CoreV1().Pods(s.ns).Create(ctx(s.t), p, metav1.CreateOptions{})
		if err != nil {
			s.t.Fatalf("create pod: %v", err)
		}
		cond := corev1.ConditionFalse
		if i < ready {
			cond = corev1.ConditionTrue
		}
		p.Status = corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: cond}}}
		if _, err := s.cs.CoreV1().Pods(s.ns).UpdateStatus(ctx(s.t), p, metav1.UpdateOptions{}); err != nil {
			s.t.Fatalf("update pod status: %v", err)
		}
	}
}

type budget struct {
	name, app                           string
	minAvailable, maxUnavailable        string
	alwaysAllow                         bool
	allowed, current, desired, expected int32
	withStatus                          bool
}

func (s *seed) pdb(b budget) {
	s.t.Helper()
	p := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: b.name, Namespace: s.ns},
		Spec:       policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": b.app}}},
	}
	if b.minAvailable != "" {
		v := intstr.Parse(b.minAvailable)
		p.Spec.MinAvailable = &v
	}
	if b.maxUnavailable != "" {
		v := intstr.Parse(b.maxUnavailable)
		p.Spec.MaxUnavailable = &v
	}
	if b.alwaysAllow {
		policy := policyv1.AlwaysAllow
		p.Spec.UnhealthyPodEvictionPolicy = &policy
	}
	p, err := s.cs.PolicyV1().PodDisruptionBudgets(s.ns).Create(ctx(s.t), p, metav1.CreateOptions{})
	if err != nil {
		s.t.Fatalf("create pdb: %v", err)
	}
	if !b.withStatus {
		return
	}
	p.Status = policyv1.PodDisruptionBudgetStatus{
		ObservedGeneration: p.Generation, DisruptionsAllowed: b.allowed,
		CurrentHealthy: b.current, DesiredHealthy: b.desired, ExpectedPods: b.expected,
	}
	if _, err := s.cs.PolicyV1().PodDisruptionBudgets(s.ns).UpdateStatus(ctx(s.t), p, metav1.UpdateOptions{}); err != nil {
		s.t.Fatalf("update pdb status: %v", err)
	}
}

func codesIn(items []availability.Item, ns string) []string {
	var out []string
	for _, it := range items {
		if it.Namespace == ns {
			out = append(out, it.Code)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func TestDrainRulesOnARealAPIServer(t *testing.T) {
	cfg := kubetest.Config(t)
	tests := []struct {
		name    string
		seed    func(s *seed)
		want    []string
		notWant []string
	}{
		{
			name: "minAvailable 1 on a single replica hangs every drain",
			seed: func(s *seed) {
				s.deployment("web", 1, 1, 1, 0)
				s.pods("web", 1, 1)
				s.pdb(budget{name: "web", app: "web", minAvailable: "1", withStatus: true, allowed: 0, current: 1, desired: 1, expected: 1})
			},
			want: []string{availability.CodeDrainHang},
		},
		{
			name: "a budget at zero with every pod healthy hangs every drain",
			seed: func(s *seed) {
				s.deployment("web", 2, 2, 2, 0)
				s.pods("web", 2, 2)
				s.pdb(budget{name: "web", app: "web", maxUnavailable: "1", withStatus: true, allowed: 0, current: 2, desired: 2, expected: 2})
			},
			want: []string{availability.CodeDrainHang},
		},
		{
			name: "a budget at zero during a rollout is not a hang",
			seed: func(s *seed) {
				s.deployment("web", 2, 1, 1, 1)
				s.pods("web", 2, 1)
				s.pdb(budget{name: "web", app: "web", maxUnavailable: "1", withStatus: true, allowed: 0, current: 1, desired: 1, expected: 2})
			},
			want:    []string{availability.CodeRolloutInProgress},
			notWant: []string{availability.CodeDrainHang},
		},
		{
			name: "unhealthy pods with AlwaysAllow are not a hang",
			seed: func(s *seed) {
				s.deployment("web", 3, 3, 1, 0)
				s.pods("web", 3, 1)
				s.pdb(budget{name: "web", app: "web", maxUnavailable: "1", alwaysAllow: true, withStatus: true, allowed: 0, current: 1, desired: 2, expected: 3})
			},
			want:    []string{availability.CodePodsUnhealthy},
			notWant: []string{availability.CodeDrainHang},
		},
		{
			name: "the same unhealthy pods with IfHealthyBudget hang",
			seed: func(s *seed) {
				s.deployment("web", 3, 3, 1, 0)
				s.pods("web", 3, 1)
				s.pdb(budget{name: "web", app: "web", maxUnavailable: "1", withStatus: true, allowed: 0, current: 1, desired: 2, expected: 3})
			},
			want: []string{availability.CodeDrainHang},
		},
		{
			name: "two budgets selecting the same pods block the eviction API",
			seed: func(s *seed) {
				s.deployment("web", 2, 2, 2, 0)
				s.pods("web", 2, 2)
				s.pdb(budget{name: "web", app: "web", maxUnavailable: "1", withStatus: true, allowed: 1, current: 2, desired: 1, expected: 2})
				s.pdb(budget{name: "web-copy", app: "web", maxUnavailable: "1", withStatus: true, allowed: 1, current: 2, desired: 1, expected: 2})
			},
			want:    []string{availability.CodeOverlappingPDBs},
			notWant: []string{availability.CodeDrainHang},
		},
		{
			name: "a production workload with one replica and no budget warns",
			seed: func(s *seed) {
				s.deployment("api", 1, 1, 1, 0)
				s.pods("api", 1, 1)
				s.deployment("web", 2, 2, 2, 0)
				s.pods("web", 2, 2)
			},
			want:    []string{availability.CodeNoPDB, availability.CodeSingleReplica},
			notWant: []string{availability.CodeDrainHang},
		},
	}
	seeded := map[string]string{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSeed(t, cfg)
			tt.seed(s)
			seeded[tt.name] = s.ns
		})
	}
	facts, err := inventorykube.Collect(ctx(t), cfg, inventorykube.Options{Context: "kubetest", PageSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range facts.Checks {
		if c.Status != planner.CheckAssessed && c.Name != inventorykube.CheckMetric {
			t.Errorf("as cluster admin, check %s is %s: %s", c.Name, c.Status, c.Detail)
		}
	}
	for _, tt := range tests {
		ns := seeded[tt.name]
		items := availability.Check(facts.Snapshot, availability.Options{ProdNamespaces: []string{ns}})
		got := codesIn(items, ns)
		for _, w := range tt.want {
			if !slices.Contains(got, w) {
				t.Errorf("%s: codes %v, want %s", tt.name, got, w)
			}
		}
		for _, w := range tt.notWant {
			if slices.Contains(got, w) {
				t.Errorf("%s: codes %v, do not want %s", tt.name, got, w)
			}
		}
	}
}

func TestRefusedBudgetsMakeTheVerdictUnknown(t *testing.T) {
	cfg := kubetest.Config(t)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	const user = "drain-reader-without-pdbs"
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: user}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"nodes", "pods", "secrets"}, Verbs: []string{"list"}},
		{APIGroups: []string{"apps"}, Resources: []string{"deployments", "statefulsets", "daemonsets"}, Verbs: []string{"list"}},
		{APIGroups: []string{"batch"}, Resources: []string{"cronjobs"}, Verbs: []string{"list"}},
		{APIGroups: []string{"networking.k8s.io"}, Resources: []string{"ingresses"}, Verbs: []string{"list"}},
		{APIGroups: []string{"autoscaling"}, Resources: []string{"horizontalpodautoscalers"}, Verbs: []string{"list"}},
	}}
	if _, err := cs.RbacV1().ClusterRoles().Create(ctx(t), role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: user},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: user},
		Subjects:   []rbacv1.Subject{{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: user}},
	}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx(t), binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var got map[string]planner.CheckStatus
	var obsChecks []planner.Check
	// RBAC changes reach the authorizer's cache within a moment.
	deadline := time.Now().Add(30 * time.Second)
	for {
		f, err := inventorykube.Collect(ctx(t), kubetest.Impersonate(cfg, user), inventorykube.Options{Context: "kubetest"})
		if err != nil {
			t.Fatal(err)
		}
		got = map[string]planner.CheckStatus{}
		for _, c := range f.Checks {
			got[c.Name] = c.Status
		}
		obsChecks = f.Checks
		if got[inventorykube.CheckPods] == planner.CheckAssessed || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	want := map[string]planner.CheckStatus{
		inventorykube.CheckInventory: planner.CheckPartial,
		inventorykube.CheckPDBs:      planner.CheckNotAssessed,
		inventorykube.CheckPods:      planner.CheckAssessed,
		inventorykube.CheckWorkloads: planner.CheckAssessed,
		inventorykube.CheckMetric:    planner.CheckNotAssessed,
		inventorykube.CheckAPIs:      planner.CheckPartial,
	}
	for name, st := range want {
		if got[name] != st {
			t.Errorf("check %s = %s, want %s", name, got[name], st)
		}
	}
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	p, err := planner.Compute(planner.Input{
		Catalog: cat, From: semver.MustParse("1.4"), To: semver.MustParse("1.6"), FromSource: "flag",
		AsOf: time.Date(2026, 1, 15, 0, 0, 0, 0, time.UTC), Observed: &planner.Observed{Source: "cluster kubetest", Checks: obsChecks},
	})
	if err != nil {
		t.Fatal(err)
	}
	if p.Verdict != planner.VerdictUnknown {
		t.Errorf("verdict with refused PodDisruptionBudgets = %s, want unknown", p.Verdict)
	}
}
