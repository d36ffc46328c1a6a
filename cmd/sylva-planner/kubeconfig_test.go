package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"gitlab.com/sylva-projects/sylva-planner/internal/kubetest"
	"gitlab.com/sylva-projects/sylva-planner/planner"
)

// runWithEnv runs the command line in-process with only the given
// environment variables set.
func runWithEnv(env map[string]string, args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := runIn(context.Background(), "", append([]string{"sylva-planner"}, args...), &out, &errOut, func(k string) string { return env[k] })
	return code, out.String(), errOut.String()
}

// TestTheKubeconfigRuleOnARealAPIServer checks kubectl's loading rule on
// every kind of command: --kubeconfig, the KUBECONFIG list, ~/.kube/config
// under HOME, --as impersonation as RBAC allows it, and plan staying
// offline with KUBECONFIG alone until --live.
func TestTheKubeconfigRuleOnARealAPIServer(t *testing.T) {
	cfg := kubetest.Config(t)
	ns := kubetest.Namespace(t, cfg)
	cs := kubernetes.NewForConfigOrDie(cfg)
	ctx := context.Background()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "sylva-units-status", Namespace: ns}, Data: map[string]string{"sylva_release": "1.4.3"}}
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kubeconfig := kubetest.WriteKubeconfig(t, cfg)
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".kube"), 0o700); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".kube", "config"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "missing")
	envs := []struct {
		name string
		env  map[string]string
		args []string
	}{
		{"--kubeconfig", nil, []string{"--kubeconfig", kubeconfig}},
		{"KUBECONFIG", map[string]string{"KUBECONFIG": missing + string(os.PathListSeparator) + kubeconfig}, nil},
		{"~/.kube/config", map[string]string{"HOME": home}, nil},
	}
	for _, tt := range envs {
		t.Run("status reads the cluster of "+tt.name, func(t *testing.T) {
			code, out, errOut := runWithEnv(tt.env, append([]string{"status", "-n", ns}, tt.args...)...)
			if code != exitOK || !strings.Contains(out, "1.4") {
				t.Fatalf("status: exit %d\n%s%s", code, out, errOut)
			}
		})
		t.Run("drain-check reads the cluster of "+tt.name, func(t *testing.T) {
			code, out, errOut := runWithEnv(tt.env, append([]string{"drain-check", "-o", "json", "--allow-incomplete"}, tt.args...)...)
			if code != exitOK && code != exitBlocked {
				t.Fatalf("drain-check: exit %d\n%s%s", code, out, errOut)
			}
			if !strings.Contains(out, "kubetest") {
				t.Errorf("drain-check does not name the context kubetest:\n%s", out)
			}
		})
	}

	t.Run("drain-check without any kubeconfig says how to give one", func(t *testing.T) {
		code, _, errOut := runWithEnv(map[string]string{"HOME": t.TempDir()}, "drain-check")
		if code != exitError || !strings.Contains(errOut, "KUBECONFIG") {
			t.Errorf("exit %d, stderr %q; want 1 naming KUBECONFIG", code, errOut)
		}
	})

	t.Run("plan stays offline with KUBECONFIG alone", func(t *testing.T) {
		env := map[string]string{"KUBECONFIG": kubeconfig}
		code, out, errOut := runWithEnv(env, "plan", "--to", "1.6", "-n", ns, "--as-of", "2026-11-30")
		if code != exitError || !strings.Contains(errOut, "--from is required") {
			t.Fatalf("plan without --from: exit %d, want 1 (--from is required)\n%s%s", code, out, errOut)
		}
		code, out, errOut = runWithEnv(env, "plan", "--from", "1.4", "--to", "1.6", "-o", "json", "--as-of", "2026-11-30")
		p := decodePlan(t, code, out, errOut)
		if len(p.Metadata.Inputs) != 1 || hasCheck(p, "live-inventory") {
			t.Errorf("plan --from read %v (checks %v), want the catalog alone", p.Metadata.Inputs, p.Checks)
		}
	})

	t.Run("plan --live reads the installed release, and the cluster it plans", func(t *testing.T) {
		code, out, errOut := runWithEnv(map[string]string{"KUBECONFIG": kubeconfig}, "plan", "--live", "--to", "1.6", "-n", ns, "-o", "json", "--as-of", "2026-11-30", "--fail-on", "never")
		p := decodePlan(t, code, out, errOut)
		if p.From.Release != "1.4" || p.Metadata.FromSource != "sylva_release" {
			t.Errorf("from %s (%s), want 1.4 read from sylva_release", p.From.Release, p.Metadata.FromSource)
		}
		if want := "status live " + ns + "/sylva-units-status (context kubetest)"; !slices.Contains(p.Metadata.Inputs, want) {
			t.Errorf("inputs %v lack %q", p.Metadata.Inputs, want)
		}
		// ns is not sylva-system: the release of a workload cluster,
		// whose facts are not this cluster's.
		if slices.Contains(p.Metadata.Inputs, "cluster live (context kubetest)") {
			t.Errorf("inputs %v: the facts of this cluster judged a workload cluster's release", p.Metadata.Inputs)
		}
		// With --from, the cluster planned is the one read.
		code, out, errOut = runWithEnv(map[string]string{"KUBECONFIG": kubeconfig}, "plan", "--live", "--from", "1.4", "--to", "1.6", "-o", "json", "--as-of", "2026-11-30", "--fail-on", "never")
		p = decodePlan(t, code, out, errOut)
		if !slices.Contains(p.Metadata.Inputs, "cluster live (context kubetest)") || !hasCheck(p, "removed-apis") {
			t.Errorf("plan --live --from: inputs %v, checks %v; want the cluster read and its removed-API check", p.Metadata.Inputs, p.Checks)
		}
	})

	t.Run("--as is refused until RBAC allows it", func(t *testing.T) {
		user := "kubeconfig-rule-" + ns
		args := []string{"status", "-n", ns, "--kubeconfig", kubeconfig, "--as", user}
		code, _, errOut := runWithEnv(nil, args...)
		if code != exitError || !strings.Contains(errOut, "forbidden") || !strings.Contains(errOut, user) {
			t.Fatalf("status --as %s without RBAC: exit %d, stderr %q; want 1, forbidden for the user", user, code, errOut)
		}
		role := &rbacv1.Role{
			ObjectMeta: metav1.ObjectMeta{Name: "read-status", Namespace: ns},
			Rules: []rbacv1.PolicyRule{
				{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list"}},
				{APIGroups: []string{"kustomize.toolkit.fluxcd.io", "helm.toolkit.fluxcd.io"}, Resources: []string{"kustomizations", "helmreleases"}, Verbs: []string{"get", "list"}},
			},
		}
		if _, err := cs.RbacV1().Roles(ns).Create(ctx, role, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		binding := &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "read-status", Namespace: ns},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}},
		}
		if _, err := cs.RbacV1().RoleBindings(ns).Create(ctx, binding, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		// The authorizer sees a new binding within moments, not at once.
		var out string
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			if code, out, errOut = runWithEnv(nil, args...); code == exitOK || time.Now().After(deadline) {
				break
			}
		}
		if code != exitOK || !strings.Contains(out, "1.4") {
			t.Fatalf("status --as %s with RBAC: exit %d\n%s%s", user, code, out, errOut)
		}
		// The user may read its namespace only: the cluster-wide lists of
		// drain-check are refused and reported, never clean.
		code, out, errOut = runWithEnv(nil, "drain-check", "--kubeconfig", kubeconfig, "--as", user, "-o", "json")
		if code != exitBlocked || !strings.Contains(out, string(planner.CheckNotAssessed)) {
			t.Errorf("drain-check --as %s: exit %d, want 2 with a check not assessed\n%s%s", user, code, out, errOut)
		}
	})

	t.Run("--as-group needs --as", func(t *testing.T) {
		code, _, errOut := runWithEnv(nil, "status", "-n", ns, "--kubeconfig", kubeconfig, "--as-group", "g")
		if code != exitError || !strings.Contains(errOut, "--as-group needs --as") {
			t.Errorf("exit %d, stderr %q", code, errOut)
		}
	})
}

func decodePlan(t *testing.T, code int, out, errOut string) planner.Plan {
	t.Helper()
	var p planner.Plan
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("exit %d, not a JSON plan: %v\n%s%s", code, err, out, errOut)
	}
	return p
}

func hasCheck(p planner.Plan, name string) bool {
	for _, c := range p.Checks {
		if c.Name == name {
			return true
		}
	}
	return false
}
