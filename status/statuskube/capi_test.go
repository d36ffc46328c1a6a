package statuskube_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"gitlab.com/sylva-projects/sylva-planner/internal/kubetest"
	"gitlab.com/sylva-projects/sylva-planner/status"
	"gitlab.com/sylva-projects/sylva-planner/status/statuskube"
)

// grantReadAllButCAPI lets user list the status ConfigMaps and the Flux
// objects in all namespaces, and nothing of Cluster API.
func grantReadAllButCAPI(t *testing.T, cfg *rest.Config, user string) {
	t.Helper()
	ctx := context.Background()
	c := kubernetes.NewForConfigOrDie(cfg)
	name := "read-sylva-units-" + user
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"list"}},
			{APIGroups: []string{statuskube.KustomizationResource.Group}, Resources: []string{statuskube.KustomizationResource.Resource}, Verbs: []string{"list"}},
			{APIGroups: []string{statuskube.HelmReleaseResource.Group}, Resources: []string{statuskube.HelmReleaseResource.Resource}, Verbs: []string{"list"}},
		},
	}
	if _, err := c.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	rb := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	}
	if _, err := c.RbacV1().ClusterRoleBindings().Create(ctx, rb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.RbacV1().ClusterRoleBindings().Delete(ctx, name, metav1.DeleteOptions{})
		_ = c.RbacV1().ClusterRoles().Delete(ctx, name, metav1.DeleteOptions{})
	})
	restricted := kubernetes.NewForConfigOrDie(kubetest.Impersonate(cfg, user))
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := restricted.CoreV1().ConfigMaps("").List(ctx, metav1.ListOptions{Limit: 1})
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the grant to %s is not effective: %v", user, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestReadAllClusterAPIRefused: a user who may list the release objects
// but not the Cluster API kinds gets an error naming the kind and the
// right needed, not a fleet without minors.
func TestReadAllClusterAPIRefused(t *testing.T) {
	cfg := kubetest.Config(t)
	grantReadAllButCAPI(t, cfg, "carol")
	r, err := statuskube.NewReader(kubetest.Impersonate(cfg, "carol"), statuskube.Options{Context: "carol"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.ReadAll(context.Background())
	want := "list kubeadmcontrolplanes.controlplane.cluster.x-k8s.io"
	if err == nil || !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "needs the right to list kubeadmcontrolplanes.controlplane.cluster.x-k8s.io cluster-wide") {
		t.Errorf("ReadAll error = %v, want a forbidden error naming %q and the right needed", err, want)
	}
}

// TestReadReadsTheClusterAPIObjectsOfItsNamespace: Read (status -n, plan
// --live, report, verify) reads the control plane and MachineDeployments
// of its namespace, and only those, with a namespaced list; a reader who
// may not list them gets the release all the same, with the minors
// unread and a warning saying which right is missing.
func TestReadReadsTheClusterAPIObjectsOfItsNamespace(t *testing.T) {
	cfg := kubetest.Config(t)
	ns, other := kubetest.Namespace(t, cfg), kubetest.Namespace(t, cfg)
	for _, u := range []*unstructured.Unstructured{
		kubetest.KubeadmControlPlane(ns, ns+"-control-plane", "v1.29.15"),
		kubetest.MachineDeployment(ns, "md0", "v1.29.15"),
		kubetest.MachineDeployment(ns, "md1", "v1.28.9"),
		kubetest.KubeadmControlPlane(other, other+"-control-plane", "v1.31.8"),
	} {
		if err := kubetest.CreateCAPI(cfg, u); err != nil {
			t.Fatal(err)
		}
	}
	r, err := statuskube.NewReader(cfg, statuskube.Options{})
	if err != nil {
		t.Fatal(err)
	}
	obs, err := r.Read(context.Background(), ns)
	if err != nil {
		t.Fatal(err)
	}
	cp, workers, src, ok := obs.KubernetesMinors()
	if !ok || cp != "1.29" || workers != "1.28" || !strings.Contains(src, "KubeadmControlPlane "+ns+"/"+ns+"-control-plane") || !strings.Contains(src, "MachineDeployment "+ns+"/md1") {
		t.Errorf("KubernetesMinors() = %q, %q, %q, %v; want 1.29, 1.28 from the namespace's KubeadmControlPlane and md1", cp, workers, src, ok)
	}
	if len(obs.ControlPlanes) != 1 || len(obs.MachineDeployments) != 2 || obs.ClusterAPIUnread != "" {
		t.Errorf("read %d control planes and %d MachineDeployments (unread: %q); want the namespace's 1 and 2", len(obs.ControlPlanes), len(obs.MachineDeployments), obs.ClusterAPIUnread)
	}
	if rep := status.Interpret(obs); rep.Kubernetes == nil || rep.Kubernetes.ControlPlane != "1.29" {
		t.Errorf("the status report's Kubernetes = %+v, want the control plane's 1.29", rep.Kubernetes)
	}

	grantReadIn(t, cfg, ns, "dave")
	restricted, err := statuskube.NewReader(kubetest.Impersonate(cfg, "dave"), statuskube.Options{Context: "dave"})
	if err != nil {
		t.Fatal(err)
	}
	obs, err = restricted.Read(context.Background(), ns)
	if err != nil {
		t.Fatalf("Read without the right to list the Cluster API kinds: %v; want the release read, its minors unread", err)
	}
	if _, _, _, ok := obs.KubernetesMinors(); ok || !strings.Contains(obs.ClusterAPIUnread, "need the right to list kubeadmcontrolplanes.controlplane.cluster.x-k8s.io in "+ns) {
		t.Errorf("ClusterAPIUnread = %q (minors read: %v); want it to name the right needed", obs.ClusterAPIUnread, ok)
	}
	rep := status.Interpret(obs)
	if !slices.ContainsFunc(rep.Findings, func(f status.Finding) bool { return f.Code == status.CodeKubernetesNotRead }) {
		t.Errorf("findings %+v, want %s", rep.Findings, status.CodeKubernetesNotRead)
	}
}
