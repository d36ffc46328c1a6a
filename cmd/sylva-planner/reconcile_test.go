package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"gitlab.com/sylva-projects/sylva-planner/action"
	"gitlab.com/sylva-projects/sylva-planner/internal/kubetest"
	"gitlab.com/sylva-projects/sylva-planner/reconciler"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

// reconcileFixture creates, in a fresh namespace, a status ConfigMap that
// asks for a pass and a Ready Kustomization and HelmRelease.
func reconcileFixture(t *testing.T, cfg *rest.Config) string {
	t.Helper()
	ctx := context.Background()
	ns := kubetest.Namespace(t, cfg)
	cs := kubernetes.NewForConfigOrDie(cfg)
	dyn := dynamic.NewForConfigOrDie(cfg)
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: status.ConfigMapName},
		Data: map[string]string{
			"sylva_release": "1.5", "additional_reconciliation_required": "true",
			"release-revision": "7", "values-checksum": "abc123",
		},
	}, metav1.CreateOptions{FieldManager: status.ChartWriter}); err != nil {
		t.Fatal(err)
	}
	objects := []struct {
		gvr  schema.GroupVersionResource
		kind string
		name string
		spec map[string]any
	}{
		{
			schema.GroupVersionResource{Group: "kustomize.toolkit.fluxcd.io", Version: "v1", Resource: "kustomizations"},
			"Kustomization", status.KustomizationName,
			map[string]any{"interval": "10m", "prune": true, "sourceRef": map[string]any{"kind": "GitRepository", "name": "sylva-core"}},
		},
		{
			schema.GroupVersionResource{Group: "helm.toolkit.fluxcd.io", Version: "v2", Resource: "helmreleases"},
			"HelmRelease", status.DefaultHelmRelease,
			map[string]any{"interval": "10m", "chart": map[string]any{"spec": map[string]any{"chart": "sylva-units", "sourceRef": map[string]any{"kind": "HelmRepository", "name": "sylva-core"}}}},
		},
	}
	for _, o := range objects {
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": o.gvr.GroupVersion().String(), "kind": o.kind,
			"metadata": map[string]any{"name": o.name, "namespace": ns},
			"spec":     o.spec,
		}}
		created, err := dyn.Resource(o.gvr).Namespace(ns).Create(ctx, u, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		gen := created.GetGeneration()
		created.Object["status"] = map[string]any{"observedGeneration": gen, "conditions": []any{map[string]any{
			"type": "Ready", "status": "True", "reason": "ReconciliationSucceeded", "message": "ok",
			"observedGeneration": gen, "lastTransitionTime": time.Now().UTC().Format(time.RFC3339),
		}}}
		if _, err := dyn.Resource(o.gvr).Namespace(ns).UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return ns
}

// reconcileCluster is the real API server of the tests, a kubeconfig
// for it, and a namespace holding reconcileFixture; skipped with -short.
func reconcileCluster(t *testing.T) (*rest.Config, string, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("needs the real API server; skipped with -short")
	}
	cfg := kubetest.Config(t)
	return cfg, kubetest.WriteKubeconfig(t, cfg), reconcileFixture(t, cfg)
}

func runReconcileCLI(kubeconfig string, args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	argv := append([]string{"sylva-planner"}, args...)
	if kubeconfig != "" {
		argv = append(argv, "--kubeconfig", kubeconfig)
	}
	code := runIn(context.Background(), "", argv, &out, &errOut, func(string) string { return "" })
	return code, out.String(), errOut.String()
}

func TestReconcileCommandOnARealAPIServer(t *testing.T) {
	cfg, kubeconfig, ns := reconcileCluster(t)

	code, out, errOut := runReconcileCLI(kubeconfig, "reconcile", "-n", ns, "--dry-run")
	if code != exitOK || !strings.HasPrefix(out, "would trigger (dry run): ") {
		t.Fatalf("reconcile --dry-run: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	// JSON and YAML: one document with the decision, the same envelope as
	// every other command.
	code, out, errOut = runReconcileCLI(kubeconfig, "reconcile", "-n", ns, "--dry-run", "-o", "json")
	var doc action.ReconcileDocument
	if err := json.Unmarshal([]byte(out), &doc); code != exitOK || err != nil {
		t.Fatalf("reconcile --dry-run -o json: exit %d, %v\nstdout: %s\nstderr: %s", code, err, out, errOut)
	}
	if doc.Kind != "Reconciliation" || doc.Metadata.CatalogVersion == "" || doc.Metadata.AsOf == "" || !doc.DryRun ||
		len(doc.Decisions) != 1 || doc.Decisions[0].Outcome != reconciler.ConclusionWouldTrigger {
		t.Fatalf("reconcile --dry-run -o json = %+v, want one would-trigger decision, dry run, with metadata", doc)
	}
	code, out, errOut = runReconcileCLI(kubeconfig, "reconcile", "-n", ns, "--dry-run", "-o", "yaml")
	if err := checkEnvelope([]byte(out), "Reconciliation", doc.Metadata.AsOf); code != exitOK || err != nil {
		t.Fatalf("reconcile --dry-run -o yaml: exit %d, %v\nstdout: %s\nstderr: %s", code, err, out, errOut)
	}
	code, out, errOut = runReconcileCLI(kubeconfig, "reconcile", "-n", ns)
	if code != exitOK || !strings.HasPrefix(out, "triggered: ") {
		t.Fatalf("reconcile: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	code, out, errOut = runReconcileCLI(kubeconfig, "reconcile", "-n", ns)
	if code != exitOK || !strings.HasPrefix(out, "already handled: ") {
		t.Fatalf("reconcile again: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}

	// Nothing plays helm-controller here: the wait times out with exit 2.
	code, out, errOut = runReconcileCLI(kubeconfig, "reconcile", "-n", ns, "--wait", "--timeout", "3s", "--poll-interval", "100ms")
	if code != exitBlocked || !strings.Contains(errOut, "timed out") || !strings.Contains(errOut, "has not picked up the request") {
		t.Fatalf("reconcile --wait without helm-controller: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}

	empty := kubetest.Namespace(t, cfg)
	code, out, errOut = runReconcileCLI(kubeconfig, "reconcile", "-n", empty)
	if code != exitError || !strings.Contains(errOut, "missing: ") || !strings.Contains(errOut, "(context kubetest") {
		t.Fatalf("reconcile on an empty namespace: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
}

// TestReconcileEventNamesThePass: with --to, the Event of the request
// names the pass as reconcile --to (and status --to) place it.
func TestReconcileEventNamesThePass(t *testing.T) {
	cfg, kubeconfig, ns := reconcileCluster(t)
	// Pass 1 of the hop 1.5 → 1.7 done, pass 2 asked for.
	cs := kubernetes.NewForConfigOrDie(cfg)
	ctx := context.Background()
	cm, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, status.ConfigMapName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm.Data["sylva_release"], cm.Data["transition_from"], cm.Data["transition_pass"] = "1.7", "1.5", "1"
	if _, err := cs.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{FieldManager: status.ChartWriter}); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runReconcileCLI(kubeconfig, "reconcile", "-n", ns, "--to", "1.7", "--as-of", "2026-12-01")
	if code != exitOK || !strings.HasPrefix(out, "triggered: ") || !strings.Contains(out, "pass 1 of 3 done; next: pass 2,") {
		t.Fatalf("reconcile --to 1.7: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	events, err := cs.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, e := range events.Items {
		if e.Reason == reconciler.EventReason {
			msgs = append(msgs, e.Message)
		}
	}
	if want := "): pass 2 of 3 of the transition to 1.7"; len(msgs) != 1 || !strings.HasSuffix(msgs[0], want) {
		t.Errorf("Events %q, want one ending in %q", msgs, want)
	}
}

func TestRacingReconcileCommandsTriggerOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the real API server; skipped with -short")
	}
	cfg := kubetest.Config(t)
	kubeconfig := kubetest.WriteKubeconfig(t, cfg)
	for round := 0; round < 3; round++ {
		ns := reconcileFixture(t, cfg)
		var (
			wg       sync.WaitGroup
			mu       sync.Mutex
			outs     []string
			start    = make(chan struct{})
			triggers int
		)
		for i := 0; i < 4; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				code, out, errOut := runReconcileCLI(kubeconfig, "reconcile", "-n", ns)
				mu.Lock()
				defer mu.Unlock()
				outs = append(outs, out+errOut)
				if code != exitOK {
					t.Errorf("reconcile: exit %d: %s%s", code, out, errOut)
				}
				if strings.HasPrefix(out, "triggered: ") {
					triggers++
				}
			}()
		}
		close(start)
		wg.Wait()
		if triggers != 1 {
			t.Fatalf("round %d: %d runs triggered, want 1:\n%s", round, triggers, strings.Join(outs, "\n"))
		}
		events, err := kubernetes.NewForConfigOrDie(cfg).CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range events.Items {
			if e.Reason == reconciler.EventReason {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("round %d: %d Events, want 1", round, n)
		}
	}
}

func TestReconcileUnreachableClusterNamesTheContext(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters:
- name: gone
  cluster: {server: "https://127.0.0.1:1"}
users:
- name: gone
  user: {token: x}
contexts:
- name: mgmt-gone
  context: {cluster: gone, user: gone}
current-context: mgmt-gone
`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runReconcileCLI(kubeconfig, "reconcile")
	if code != exitError || !strings.Contains(errOut, "(context mgmt-gone)") || out != "" {
		t.Fatalf("reconcile on an unreachable cluster: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
}

func TestControllerCommandNeedsAScope(t *testing.T) {
	for _, args := range [][]string{
		{"controller"},
		{"controller", "--namespace", "a", "--all-namespaces"},
		{"controller", "--all-namespaces", "--log-level", "loud"},
	} {
		code, _, errOut := runReconcileCLI("", args...)
		if code != exitError || !strings.Contains(errOut, "sylva-planner: ") {
			t.Errorf("%v: exit %d, stderr %s", args, code, errOut)
		}
	}
}

// silenceableProxy forwards TCP connections to upstream (host:port) until
// silence is called; from then on it reads and drops what clients send,
// answers nothing, and holds new connections open without answering: an
// API server that stops answering in the middle of a wait.
func silenceableProxy(t *testing.T, upstream string) (addr string, silence func()) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var silent atomic.Bool
	var mu sync.Mutex
	var conns []net.Conn
	track := func(c net.Conn) {
		mu.Lock()
		conns = append(conns, c)
		mu.Unlock()
	}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			track(c)
			if silent.Load() {
				go func() { _, _ = io.Copy(io.Discard, c) }()
				continue
			}
			up, err := net.Dial("tcp", upstream)
			if err != nil {
				_ = c.Close()
				continue
			}
			track(up)
			go func() { _, _ = io.Copy(c, up) }()
			go func() {
				buf := make([]byte, 32<<10)
				for {
					n, err := c.Read(buf)
					if n > 0 && !silent.Load() {
						if _, werr := up.Write(buf[:n]); werr != nil {
							return
						}
					}
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	t.Cleanup(func() {
		_ = l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return l.Addr().String(), func() { silent.Store(true) }
}

// TestReconcileWaitEndsWhenTheAPIServerStopsAnswering: reconcile --wait
// requests the pass, then the API server stops answering (the TCP
// connection stays open): the first read that gets no answer within
// --request-timeout ends the wait with exit 1 and one line naming the API
// server and --request-timeout, within a few request timeouts, not after
// --timeout.
func TestReconcileWaitEndsWhenTheAPIServerStopsAnswering(t *testing.T) {
	cfg, _, ns := reconcileCluster(t)
	u, err := url.Parse(cfg.Host)
	if err != nil {
		t.Fatal(err)
	}
	addr, silence := silenceableProxy(t, u.Host)
	proxied := rest.CopyConfig(cfg)
	proxied.Host = u.Scheme + "://" + addr
	kubeconfig := kubetest.WriteKubeconfig(t, proxied)

	// Silence the server once the command waits for the pass it requested.
	hr := schema.GroupVersionResource{Group: "helm.toolkit.fluxcd.io", Version: "v2", Resource: "helmreleases"}
	dyn := dynamic.NewForConfigOrDie(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var silencedAt atomic.Int64
	go func() {
		for ctx.Err() == nil {
			obj, err := dyn.Resource(hr).Namespace(ns).Get(ctx, status.DefaultHelmRelease, metav1.GetOptions{})
			if err == nil && obj.GetAnnotations()[reconciler.AnnotationRequestedAt] != "" {
				time.Sleep(300 * time.Millisecond) // a poll or two answered
				silencedAt.Store(time.Now().UnixNano())
				silence()
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	const requestTimeout = 2 * time.Second
	code, out, errOut := runBounded(t, context.Background(), 90*time.Second, "reconcile", "-n", ns, "--kubeconfig", kubeconfig,
		"--wait", "--timeout", "60s", "--poll-interval", "100ms", "--request-timeout", requestTimeout.String())
	ended := time.Now()
	if silencedAt.Load() == 0 {
		t.Fatalf("the pass was never requested: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
	last := lines[len(lines)-1]
	if code != exitError || !strings.HasPrefix(out, "triggered: ") ||
		!strings.Contains(last, "the API server "+proxied.Host+" (context kubetest) did not answer within --request-timeout 2s") {
		t.Fatalf("reconcile --wait on a server that stopped answering: exit %d\nstdout: %s\nstderr: %s\nwant exit 1 and a last line naming the server and --request-timeout", code, out, errOut)
	}
	if took := ended.Sub(time.Unix(0, silencedAt.Load())); took > 4*requestTimeout {
		t.Errorf("reconcile --wait took %s after the server went silent, want at most a few --request-timeout (%s)", took, requestTimeout)
	}
}
