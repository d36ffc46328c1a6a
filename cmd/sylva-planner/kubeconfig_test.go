package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
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

// hostileKubeconfig writes a kubeconfig for a TLS server that is never
// reached, whose cluster and user carry the given fields.
func hostileKubeconfig(t *testing.T, cluster, user string) string {
	t.Helper()
	kc := filepath.Join(t.TempDir(), "kc")
	if err := os.WriteFile(kc, []byte(`apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:1"`+cluster+`}
users:
- name: u
  user: {`+user+`}
contexts:
- name: ctx
  context: {cluster: c, user: u}
current-context: ctx
`), 0o600); err != nil {
		t.Fatal(err)
	}
	return kc
}

// TestFilesAKubeconfigNamesAreRefusedInOneLine: a certificate-authority,
// client certificate, key or tokenFile that is /dev/zero or a named pipe
// made status die out of memory (exit 2) or hang past --request-timeout;
// each is refused at once with exit 1 and one line naming the kubeconfig,
// the field and the file.
func TestFilesAKubeconfigNamesAreRefusedInOneLine(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{"/dev/zero", fifo} {
		for _, tt := range []struct{ field, cluster, user string }{
			{`certificate-authority of cluster "c"`, ", certificate-authority: " + file, "token: x"},
			{`client-certificate of user "u"`, "", "client-certificate: " + file + ", client-key-data: eA=="},
			{`client-key of user "u"`, "", "client-certificate-data: eA==, client-key: " + file},
			{`tokenFile of user "u"`, "", "tokenFile: " + file},
		} {
			t.Run(tt.field+" "+file, func(t *testing.T) {
				kc := hostileKubeconfig(t, tt.cluster, tt.user)
				for _, cmd := range [][]string{{"status"}, {"reconcile"}, {"plan", "--to", "1.6", "--live"}} {
					code, out, errOut := runBounded(t, context.Background(), 20*time.Second, append(cmd, "--kubeconfig", kc, "--request-timeout", "2s")...)
					want := "--kubeconfig " + kc + ") (context ctx): " + tt.field + ": " + file + " is a "
					if code != exitError || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, want) {
						t.Errorf("%s: exit %d\nstdout: %s\nstderr: %s\nwant exit 1 and one line holding %q", cmd[0], code, out, errOut, want)
					}
				}
			})
		}
	}
}

// TestAHangingExecPluginEndsWithTheProcess: a credential plugin that
// never answers is bounded by --request-timeout, and on SIGTERM the
// process exits and leaves nothing the plugin started running.
func TestAHangingExecPluginEndsWithTheProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("signals a process and waits for it")
	}
	dir := t.TempDir()
	plugin := filepath.Join(dir, "plugin.sh")
	if err := os.WriteFile(plugin, []byte("#!/bin/sh\nsleep 1000 &\necho $! > \"$0.pid\"\nwait\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	kc := hostileKubeconfig(t, ", insecure-skip-tls-verify: true",
		"exec: {apiVersion: client.authentication.k8s.io/v1, command: "+plugin+", interactiveMode: IfAvailable}")
	pidOf := func() int {
		data, err := os.ReadFile(plugin + ".pid")
		if err != nil {
			return 0
		}
		pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
		return pid
	}
	sleepGone := func(t *testing.T, pid int) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
			_, state, _ := strings.Cut(string(data), ") ")
			if err != nil || strings.HasPrefix(state, "Z") {
				return
			}
			if time.Now().After(deadline) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				t.Fatalf("the plugin's sleep (pid %d) still runs after the command exited", pid)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	t.Run("--request-timeout bounds the plugin", func(t *testing.T) {
		_ = os.Remove(plugin + ".pid")
		start := time.Now()
		code, out, errOut := runBounded(t, context.Background(), 30*time.Second, "status", "--kubeconfig", kc, "--request-timeout", "1s")
		if code != exitError || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "exec plugin "+plugin) {
			t.Fatalf("exit %d\nstdout: %s\nstderr: %s\nwant exit 1 and one line naming the plugin", code, out, errOut)
		}
		if took := time.Since(start); took > 10*time.Second {
			t.Errorf("status took %s with --request-timeout 1s", took)
		}
		sleepGone(t, pidOf())
	})

	t.Run("SIGTERM stops the plugin with the process", func(t *testing.T) {
		_ = os.Remove(plugin + ".pid")
		var errOut bytes.Buffer
		cmd := exec.Command(testBinary(t), "status", "--kubeconfig", kc, "--request-timeout", "10m")
		cmd.Stderr = &errOut
		cmd.Env = append(os.Environ(), testMainEnv+"=1")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		for i := 0; pidOf() == 0; i++ {
			if i > 200 {
				_ = cmd.Process.Kill()
				t.Fatalf("the plugin did not start; stderr %q", errOut.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
		pid := pidOf()
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-done:
			t.Logf("exit: %v", err) // the exit code is checked below
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			t.Fatalf("still running 30s after SIGTERM; stderr %q", errOut.String())
		}
		if code := cmd.ProcessState.ExitCode(); code != exitError {
			t.Errorf("exit %d, stderr %q; want 1", code, errOut.String())
		}
		sleepGone(t, pid)
	})
}
