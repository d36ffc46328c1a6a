package reconciler

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/internal/kubetest"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

// runController starts a controller and returns it with a function that
// stops it and waits until it returned.
func runController(t *testing.T, cfg *rest.Config, o ControllerOptions) (*Controller, func()) {
	t.Helper()
	if o.Now == nil {
		o.Now = time.Now
	}
	c, err := NewController(cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Start(ctx) }()
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("controller: %v", err)
			}
		case <-time.After(time.Minute):
			t.Errorf("controller did not stop within a minute")
		}
	}
	t.Cleanup(stop)
	return c, stop
}

func (c *cluster) annotated(t *testing.T, ns, v string) bool {
	t.Helper()
	return c.helmRelease(t, ns).GetAnnotations()[AnnotationHandledRequest] == v
}

// settle waits until the controller has reconciled the latest state of ns:
// a decision seen after at least one more event than before.
func settle(t *testing.T, ctl *Controller, outcome Conclusion, atLeast int) {
	t.Helper()
	kubetest.Eventually(t, time.Minute, "the controller decided "+string(outcome), func() bool {
		return ctl.Stats().Outcomes[outcome] >= atLeast
	})
}

func TestTwoControllersTriggerOncePerValue(t *testing.T) {
	c := newCluster(t)
	ns := c.setup(t, func() fixture { f := healthy(); f.request = "pass-2"; return f }())
	a, _ := runController(t, c.cfg, ControllerOptions{Namespace: ns})
	b, _ := runController(t, c.cfg, ControllerOptions{Namespace: ns})

	kubetest.Eventually(t, time.Minute, "the HelmRelease carries pass-2", func() bool { return c.annotated(t, ns, "pass-2") })
	// Both controllers see the patched HelmRelease and conclude it is
	// handled.
	settle(t, a, ConclusionAlreadyHandled, 1)
	settle(t, b, ConclusionAlreadyHandled, 1)
	c.eventTriggers(t, ns, 1)

	// The next pass is requested: still one trigger for it.
	ctx := ctxFor(t)
	ks, err := c.dyn.Resource(kustomizations).Namespace(ns).Get(ctx, status.KustomizationName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ann := ks.GetAnnotations()
	ann[status.AnnotationReconciliationRequested] = "pass-3"
	ks.SetAnnotations(ann)
	if _, err := c.dyn.Resource(kustomizations).Namespace(ns).Update(ctx, ks, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	kubetest.Eventually(t, time.Minute, "the HelmRelease carries pass-3", func() bool { return c.annotated(t, ns, "pass-3") })
	settle(t, a, ConclusionAlreadyHandled, 2)
	settle(t, b, ConclusionAlreadyHandled, 2)
	c.eventTriggers(t, ns, 2)
	sa, sb := a.Stats(), b.Stats()
	if sa.Triggers+sb.Triggers != 2 {
		t.Fatalf("controllers triggered %d + %d times, want 2 in all", sa.Triggers, sb.Triggers)
	}
	t.Logf("controller a: %+v; controller b: %+v", sa, sb)
}

func TestRestartedControllerDoesNotTriggerAgain(t *testing.T) {
	c := newCluster(t)
	ns := c.setup(t, healthy())
	first, stop := runController(t, c.cfg, ControllerOptions{Namespace: ns})
	kubetest.Eventually(t, time.Minute, "the first controller triggered", func() bool { return first.Stats().Triggers == 1 })
	stop()

	second, _ := runController(t, c.cfg, ControllerOptions{Namespace: ns})
	settle(t, second, ConclusionAlreadyHandled, 1)
	if s := second.Stats(); s.Triggers != 0 {
		t.Fatalf("the restarted controller triggered %d times, want 0", s.Triggers)
	}
	c.eventTriggers(t, ns, 1)
}

func TestControllerReportsBadNamespacesAndKeepsRunning(t *testing.T) {
	c := newCluster(t)
	suspended := healthy()
	suspended.suspended = true
	notReady := healthy()
	notReady.ksReady = false
	missing := healthy()
	missing.helmRelease = false
	malformed := healthy()
	malformed.configMapData = map[string]string{status.KeyAdditionalReconciliationRequired: "maybe"}

	ctl, _ := runController(t, c.cfg, ControllerOptions{})
	nsSuspended := c.setup(t, suspended)
	nsNotReady := c.setup(t, notReady)
	nsMissing := c.setup(t, missing)
	nsMalformed := c.setup(t, malformed)
	nsHealthy := c.setup(t, healthy())

	kubetest.Eventually(t, time.Minute, "the healthy namespace is triggered", func() bool { return c.triggers(t, nsHealthy) == 1 })
	for _, o := range []Conclusion{ConclusionSuspended, ConclusionWaiting, ConclusionMissing, ConclusionInvalid} {
		settle(t, ctl, o, 1)
	}
	for _, ns := range []string{nsSuspended, nsNotReady, nsMissing, nsMalformed} {
		if n := c.triggers(t, ns); n != 0 {
			t.Errorf("namespace %s: %d trigger events, want 0", ns, n)
		}
	}

	// Each fix is picked up from the watches, without a restart.
	ctx := ctxFor(t)
	cm, err := c.core.CoreV1().ConfigMaps(nsMalformed).Get(ctx, status.ConfigMapName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm.Data[status.KeyAdditionalReconciliationRequired] = "true"
	if _, err := c.core.CoreV1().ConfigMaps(nsMalformed).Update(ctx, cm, metav1.UpdateOptions{FieldManager: status.ChartWriter}); err != nil {
		t.Fatal(err)
	}
	ks, err := c.dyn.Resource(kustomizations).Namespace(nsNotReady).Get(ctx, status.KustomizationName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c.setReady(t, ctx, kustomizations, ks, true, "")
	c.setupIn(t, nsMissing, fixture{helmRelease: true, hrReady: true})

	for _, ns := range []string{nsMalformed, nsNotReady, nsMissing} {
		kubetest.Eventually(t, time.Minute, "namespace "+ns+" is triggered once fixed", func() bool { return c.triggers(t, ns) == 1 })
	}
	if n := c.triggers(t, nsSuspended); n != 0 {
		t.Errorf("suspended namespace: %d trigger events, want 0", n)
	}
}

// loadRBAC reads a ClusterRole or Role from config/rbac.
func loadRBAC(t *testing.T, name string, out any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "config", "rbac", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(b, out); err != nil {
		t.Fatalf("decode config/rbac/%s: %v", name, err)
	}
}

func TestControllerRunsWithTheConfigRole(t *testing.T) {
	c := newCluster(t)
	ctx := ctxFor(t)
	home := kubetest.Namespace(t, c.cfg) // where the controller runs
	const sa = "sylva-planner-controller"
	user := "system:serviceaccount:" + home + ":" + sa

	var role rbacv1.ClusterRole
	loadRBAC(t, "role.yaml", &role)
	for _, r := range role.Rules {
		for _, res := range r.Resources {
			if res == "secrets" || res == "*" {
				t.Fatalf("the ClusterRole grants %v on %s", r.Verbs, res)
			}
		}
	}
	role.Name = home + "-" + role.Name // cluster-scoped: unique per test
	if _, err := c.core.RbacV1().ClusterRoles().Create(ctx, &role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.core.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: role.Name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa, Namespace: home}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var leases rbacv1.Role
	loadRBAC(t, "leader_election_role.yaml", &leases)
	leases.Namespace = home
	if _, err := c.core.RbacV1().Roles(home).Create(ctx, &leases, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.core.RbacV1().RoleBindings(home).Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: leases.Name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: leases.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa, Namespace: home}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	restricted := kubetest.Impersonate(c.cfg, user, "system:serviceaccounts", "system:serviceaccounts:"+home)
	ctl, _ := runController(t, restricted, ControllerOptions{
		LeaderElection: true, LeaderElectionNamespace: home, LeaderElectionID: DefaultLeaderElectionID,
	})
	ns := c.setup(t, healthy())
	kubetest.Eventually(t, time.Minute, "the controller running as "+user+" triggered", func() bool { return c.triggers(t, ns) == 1 })
	if s := ctl.Stats(); s.Errors != 0 {
		t.Errorf("controller errors: %+v", s)
	}
	lease, err := c.core.CoordinationV1().Leases(home).Get(ctx, DefaultLeaderElectionID, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the leader election Lease: %v", err)
	}
	if h := lease.Spec.HolderIdentity; h == nil || *h == "" {
		t.Fatalf("the Lease has no holder")
	}

	// Outside its role, the service account is refused.
	rc := kubernetes.NewForConfigOrDie(restricted)
	refused := []struct {
		what string
		do   func() error
	}{
		{"list Secrets", func() error { _, err := rc.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{}); return err }},
		{"get a Secret", func() error { _, err := rc.CoreV1().Secrets(ns).Get(ctx, "any", metav1.GetOptions{}); return err }},
		{"read another ConfigMap", func() error {
			_, err := rc.CoreV1().ConfigMaps(ns).Get(ctx, "kube-root-ca.crt", metav1.GetOptions{})
			return err
		}},
		{"list all ConfigMaps", func() error { _, err := rc.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{}); return err }},
		{"delete the HelmRelease", func() error {
			return dynamic.NewForConfigOrDie(restricted).Resource(helmReleases).Namespace(ns).Delete(ctx, status.DefaultHelmRelease, metav1.DeleteOptions{})
		}},
		{"read a Lease outside its namespace", func() error {
			_, err := rc.CoordinationV1().Leases(ns).Get(ctx, "x", metav1.GetOptions{})
			return err
		}},
	}
	for _, r := range refused {
		if err := r.do(); !apierrors.IsForbidden(err) {
			t.Errorf("%s as %s: %v, want Forbidden", r.what, user, err)
		}
	}
	// The ConfigMap it needs is readable.
	if _, err := rc.CoreV1().ConfigMaps(ns).Get(ctx, status.ConfigMapName, metav1.GetOptions{}); err != nil {
		t.Errorf("read the status ConfigMap as %s: %v", user, err)
	}
}

func TestControllerServesProbesAndMetrics(t *testing.T) {
	c := newCluster(t)
	ns := c.setup(t, healthy())
	metricsAddr, probeAddr := freeAddr(t), freeAddr(t)
	ctl, _ := runController(t, c.cfg, ControllerOptions{Namespace: ns, MetricsBindAddress: metricsAddr, HealthProbeBindAddress: probeAddr})
	kubetest.Eventually(t, time.Minute, "the controller triggered", func() bool { return ctl.Stats().Triggers == 1 })

	get := func(url string) (int, string) {
		resp, err := http.Get(url)
		if err != nil {
			return 0, err.Error()
		}
		defer func() { _ = resp.Body.Close() }()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, path := range []string{"/healthz", "/readyz"} {
		kubetest.Eventually(t, 30*time.Second, path+" answers 200", func() bool { code, _ := get("http://" + probeAddr + path); return code == http.StatusOK })
	}
	code, body := get("http://" + metricsAddr + "/metrics")
	if code != http.StatusOK {
		t.Fatalf("/metrics: %d %s", code, body)
	}
	for _, want := range []string{
		`sylva_planner_reconcile_requests_total{result="triggered"}`,
		`sylva_planner_reconcile_requests_total{result="already-handled"}`,
		"sylva_planner_pending_passes ",
		"sylva_planner_last_trigger_timestamp_seconds ",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	for _, line := range strings.Split(body, "\n") {
		if v, ok := strings.CutPrefix(line, "sylva_planner_last_trigger_timestamp_seconds "); ok {
			if f, err := strconv.ParseFloat(v, 64); err != nil || f < float64(time.Now().Add(-time.Hour).Unix()) {
				t.Errorf("sylva_planner_last_trigger_timestamp_seconds = %s, want a recent time", v)
			}
		}
	}
}

// TestControllerWatchesTheNamespacesItIsGiven runs the controller as a
// ServiceAccount with the config role granted by a RoleBinding in two
// release namespaces only, as config/rbac/role_binding.yaml grants it, and
// watching those two (a comma-separated Namespace): it triggers in both,
// without errors, and nothing in a third namespace.
func TestControllerWatchesTheNamespacesItIsGiven(t *testing.T) {
	c := newCluster(t)
	ctx := ctxFor(t)
	home := kubetest.Namespace(t, c.cfg)
	const sa = "sylva-planner-controller"
	var role rbacv1.ClusterRole
	loadRBAC(t, "role.yaml", &role)
	role.Name = home + "-" + role.Name
	if _, err := c.core.RbacV1().ClusterRoles().Create(ctx, &role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var binding rbacv1.RoleBinding
	loadRBAC(t, "role_binding.yaml", &binding)
	if binding.RoleRef.Kind != "ClusterRole" || binding.Namespace == "" {
		t.Fatalf("config/rbac/role_binding.yaml binds %s in namespace %q, want a RoleBinding of the ClusterRole in a release namespace", binding.RoleRef.Kind, binding.Namespace)
	}
	watched := []string{c.setup(t, healthy()), c.setup(t, healthy())}
	unwatched := c.setup(t, healthy())
	for _, ns := range watched {
		b := binding.DeepCopy()
		b.Namespace, b.RoleRef.Name = ns, role.Name
		b.Subjects = []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa, Namespace: home}}
		if _, err := c.core.RbacV1().RoleBindings(ns).Create(ctx, b, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	restricted := kubetest.Impersonate(c.cfg, "system:serviceaccount:"+home+":"+sa, "system:serviceaccounts", "system:serviceaccounts:"+home)
	ctl, _ := runController(t, restricted, ControllerOptions{Namespace: watched[0] + ", " + watched[1]})
	for _, ns := range watched {
		kubetest.Eventually(t, time.Minute, "the controller triggered in "+ns, func() bool { return c.triggers(t, ns) == 1 })
	}
	if s := ctl.Stats(); s.Errors != 0 || s.Triggers != 2 {
		t.Errorf("controller stats %+v, want 2 triggers and no error", s)
	}
	if n := c.triggers(t, unwatched); n != 0 {
		t.Errorf("%d triggers in a namespace not watched", n)
	}
}
