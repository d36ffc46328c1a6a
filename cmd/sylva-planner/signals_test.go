package main

import (
	"bytes"
	"context"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/urfave/cli/v2"
)

// silentAPIServer is a TCP listener that accepts connections and never
// answers, as a hung API server does; it returns a kubeconfig pointing at
// it.
func silentAPIServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
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
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters:
- name: silent
  cluster: {server: "http://`+l.Addr().String()+`"}
contexts:
- name: silent
  context: {cluster: silent, user: u}
current-context: silent
users:
- name: u
  user: {token: x}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	return kubeconfig
}

// runBounded runs the application in-process and fails the test if it has
// not returned after limit (a hang guard, far above what the run needs).
func runBounded(t *testing.T, ctx context.Context, limit time.Duration, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- runIn(ctx, "", append([]string{"sylva-planner"}, args...), &out, &errOut, func(string) string { return "" })
	}()
	select {
	case code := <-done:
		return code, out.String(), errOut.String()
	case <-time.After(limit):
		t.Fatalf("sylva-planner %s still running after %s", strings.Join(args, " "), limit)
		return 0, "", ""
	}
}

// TestASilentAPIServerIsAnOperationalError runs the commands that read a
// cluster against an API server that never answers: each request times out
// (--request-timeout) and the command exits 1 with one line, not 2.
func TestASilentAPIServerIsAnOperationalError(t *testing.T) {
	kubeconfig := silentAPIServer(t)
	tests := []struct {
		name string
		args []string
	}{
		{name: "reconcile without --wait exits 1", args: []string{"reconcile", "-n", "sylva-system"}},
		{name: "reconcile --wait exits 1 when a request times out before --timeout", args: []string{"reconcile", "-n", "sylva-system", "--wait", "--timeout", "60s"}},
		{name: "status exits 1", args: []string{"status", "-n", "sylva-system"}},
		{name: "values render exits 1", args: []string{"values", "render", "-f", "testdata/lookup-values.yaml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append(slices.Clone(tt.args), "--kubeconfig", kubeconfig, "--request-timeout", "1s")
			code, out, errOut := runBounded(t, context.Background(), 60*time.Second, args...)
			if code != exitError || strings.Count(errOut, "\n") != 1 || out != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want 1 and one line", code, out, errOut)
			}
		})
	}
}

// TestTheControllerFailsOnADrippingAPIServerWithOneLine starts the
// controller against a server that sends response headers and then a byte a
// second: start-up fails with exit 1 and one line on stderr naming what
// failed, not client-go's JSON log of it first.
func TestTheControllerFailsOnADrippingAPIServerWithOneLine(t *testing.T) {
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "100000")
		w.WriteHeader(http.StatusOK)
		for {
			if _, err := w.Write([]byte("{")); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-stop:
				return
			case <-r.Context().Done():
				return
			case <-time.After(200 * time.Millisecond):
			}
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(stop) })
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters:
- name: drip
  cluster: {server: "`+srv.URL+`"}
contexts:
- name: drip
  context: {cluster: drip, user: u}
current-context: drip
users:
- name: u
  user: {token: x}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runBounded(t, context.Background(), 60*time.Second, "controller", "-n", "sylva-system", "--kubeconfig", kubeconfig,
		"--request-timeout", "1s", "--metrics-bind-address", "0", "--health-probe-bind-address", "0")
	if code != exitError || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "sylva-planner: ") {
		t.Errorf("exit %d, stderr %q; want 1 and one sylva-planner: line", code, errOut)
	}
}

// TestTheControllerStopsWhenCancelledDuringStartUp cancels the controller
// while it starts against a silent API server, whose requests would only
// time out after ten minutes: it returns exit 1, "interrupted".
func TestTheControllerStopsWhenCancelledDuringStartUp(t *testing.T) {
	kubeconfig := silentAPIServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(500*time.Millisecond, cancel)
	code, _, errOut := runBounded(t, ctx, 60*time.Second, "controller", "-n", "sylva-system", "--kubeconfig", kubeconfig,
		"--request-timeout", "10m", "--metrics-bind-address", "0", "--health-probe-bind-address", "0")
	if code != exitError || !strings.Contains(errOut, "interrupted") {
		t.Errorf("exit %d, stderr %q; want 1, interrupted", code, errOut)
	}
}

// TestSignalsStopTheProcess runs the binary against a silent API server and
// signals it: the first SIGTERM exits 1 with "interrupted" on one line; a
// process that ignores the first signal's cancellation is stopped by a
// second one at once.
func TestSignalsStopTheProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("signals a process and waits for it")
	}
	bin := testBinary(t)
	kubeconfig := silentAPIServer(t)
	tests := []struct {
		name    string
		args    []string
		signals int
		grace   string
	}{
		{name: "SIGTERM stops reconcile waiting on a silent API server", args: []string{"reconcile", "-n", "sylva-system"}, signals: 1},
		{name: "SIGTERM stops the controller starting against a silent API server", args: []string{"controller", "-n", "sylva-system", "--metrics-bind-address", "0", "--health-probe-bind-address", "0"}, signals: 1},
		// With an hour of grace, only the second signal can end the process
		// before the hang guard.
		{name: "a second SIGTERM exits at once", args: []string{"reconcile", "-n", "sylva-system"}, signals: 2, grace: "1h"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var errOut bytes.Buffer
			cmd := exec.Command(bin, append(tt.args, "--kubeconfig", kubeconfig, "--request-timeout", "10m")...)
			cmd.Stderr = &errOut
			cmd.Env = append(os.Environ(), testMainEnv+"=1", "SYLVA_PLANNER_INTERRUPT_GRACE="+tt.grace)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			time.Sleep(time.Second)
			for range tt.signals {
				_ = cmd.Process.Signal(syscall.SIGTERM)
				time.Sleep(200 * time.Millisecond) // two signals sent together would merge into one
			}
			select {
			case err := <-done:
				t.Logf("exit: %v", err) // the exit code is checked below
			case <-time.After(60 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatalf("still running a minute after SIGTERM; stderr %q", errOut.String())
			}
			if code := cmd.ProcessState.ExitCode(); code != exitError || !strings.Contains(errOut.String(), "sylva-planner: interrupted") {
				t.Errorf("exit %d, stderr %q; want 1, interrupted", code, errOut.String())
			}
		})
	}
}

// The probes carry no data, but nothing outside the pod needs them either:
// they listen on loopback unless an address is given (config/manager gives
// :8081 for the kubelet).
func TestHealthProbesDefaultToLoopback(t *testing.T) {
	for _, f := range controllerCommand().Flags {
		if sf, ok := f.(*cli.StringFlag); ok && sf.Name == "health-probe-bind-address" {
			if sf.Value != "127.0.0.1:8081" {
				t.Errorf("--health-probe-bind-address defaults to %q, want 127.0.0.1:8081", sf.Value)
			}
			return
		}
	}
	t.Fatal("the controller has no --health-probe-bind-address flag")
}

// testBinary is the program for the tests that run it as a process: this
// test binary, which runs main when testMainEnv is set (see budget_test.go),
// so that nothing is built.
func testBinary(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// TestABadInterruptGraceIsRefused: SYLVA_PLANNER_INTERRUPT_GRACE that is
// not a positive duration is refused in one line naming the variable and
// the form, exit 1, before any command runs (it silently meant 5s).
func TestABadInterruptGraceIsRefused(t *testing.T) {
	for _, v := range []string{"abc", "-1s", "0", "5"} {
		t.Run(v, func(t *testing.T) {
			if _, err := interruptGrace(func(string) string { return v }); err == nil {
				t.Fatalf("interruptGrace(%q) accepted", v)
			}
			var stdout, stderr bytes.Buffer
			cmd := exec.Command(testBinary(t), "version")
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			cmd.Env = append(os.Environ(), testMainEnv+"=1", interruptGraceEnv+"="+v)
			_ = cmd.Run()
			want := "sylva-planner: SYLVA_PLANNER_INTERRUPT_GRACE=" + v + ": give a positive duration, such as 5s or 1m, or unset it for 5s\n"
			if code := cmd.ProcessState.ExitCode(); code != exitError || stderr.String() != want || stdout.Len() != 0 {
				t.Errorf("exit %d, stdout %q, stderr %q; want 1 and %q", code, stdout.String(), stderr.String(), want)
			}
		})
	}
	for v, want := range map[string]time.Duration{"": defaultInterruptGrace, "250ms": 250 * time.Millisecond, "1h": time.Hour} {
		if got, err := interruptGrace(func(string) string { return v }); err != nil || got != want {
			t.Errorf("interruptGrace(%q) = %v, %v; want %v", v, got, err, want)
		}
	}
}

// kustomizePlan reads the plan of each file of a --kustomize pair: the
// "X → Y" of kustomization.yaml's first line and of the overlay's plan
// line.
func kustomizePlan(t *testing.T, dir string) (kustomization, overlay string) {
	t.Helper()
	read := func(name, prefix string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for l := range strings.Lines(string(b)) {
			if _, after, ok := strings.Cut(l, prefix); ok {
				plan, _, _ := strings.Cut(after, ";")
				return strings.TrimRight(strings.TrimSpace(plan), ")")
			}
		}
		t.Fatalf("%s has no %q line", name, prefix)
		return ""
	}
	return read("kustomization.yaml", "(plan "), read("transition-values.yaml", "# plan: ")
}

// TestKustomizeUnderSignalsIsThePairOldOrNew rewrites a --kustomize pair
// with alternating plans and stops each run at a random moment, by
// SIGTERM or SIGKILL: the two files always describe the same plan (the
// old pair or the new one, never one of each).
func TestKustomizeUnderSignalsIsThePairOldOrNew(t *testing.T) {
	if testing.Short() {
		t.Skip("signals processes")
	}
	bin := testBinary(t)
	dir := filepath.Join(t.TempDir(), "transition")
	run := func(from string) *exec.Cmd {
		cmd := exec.Command(bin, "values", "generate", "--from", from, "--to", "1.6", "--kustomize", dir)
		cmd.Env = append(os.Environ(), testMainEnv+"=1")
		return cmd
	}
	if out, err := run("1.4").CombinedOutput(); err != nil {
		t.Fatalf("the first pair: %v: %s", err, out)
	}
	plans := map[string]bool{}
	for i := range 60 {
		cmd := run([]string{"1.4", "1.5"}[i%2])
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rand.IntN(120)) * time.Millisecond)
		sig := syscall.SIGTERM
		if i%3 == 0 {
			sig = syscall.SIGKILL
		}
		_ = cmd.Process.Signal(sig)
		_ = cmd.Wait()
		k, o := kustomizePlan(t, dir)
		if k != o {
			t.Fatalf("run %d, %v: kustomization.yaml is of plan %s, transition-values.yaml of %s", i, sig, k, o)
		}
		plans[k] = true
	}
	t.Logf("plans seen: %v", plans)
}
