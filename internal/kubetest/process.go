package kubetest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// RunController runs a controller binary (helm-controller,
// source-controller, …) against the API server of kubeconfig until the
// test ends: on cleanup it is interrupted, then killed after 20 s. Its
// logs go to the test's temporary directory, and their end is logged when
// the test failed. The Flux controllers read the kubeconfig from the
// environment only; their runtime namespace is ns, the only one they
// watch (--watch-all-namespaces=false), so that the objects other tests
// left in the shared API server neither reach nor slow them.
func RunController(t testing.TB, kubeconfig, ns, bin string, args ...string) {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), filepath.Base(bin)+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append([]string{"--watch-all-namespaces=false"}, args...)...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig, "RUNTIME_NAMESPACE="+ns)
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		_ = logFile.Close()
		if t.Failed() {
			if b, err := os.ReadFile(logPath); err == nil {
				if len(b) > 8000 {
					b = b[len(b)-8000:]
				}
				t.Logf("%s logs (end):\n%s", filepath.Base(bin), b)
			}
		}
	})
}
