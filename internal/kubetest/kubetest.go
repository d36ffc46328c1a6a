package kubetest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// EnvDir is the environment variable that overrides [Dir].
const EnvDir = "SYLVA_PLANNER_TESTBIN"

// envAttachOutput is envtest's switch to stream the control plane's logs.
const envAttachOutput = "KUBEBUILDER_ATTACH_CONTROL_PLANE_OUTPUT"

// startTimeout bounds each start of etcd and of the API server; the default
// of envtest is tight on a loaded two-core machine.
const startTimeout = 2 * time.Minute

// logTail is how much of the control plane's logs is kept for errors.
const logTail = 16 << 10

// The control plane shared by the tests of the test binary.
var (
	mu       sync.Mutex
	inMain   bool // Main is running the tests
	env      *envtest.Environment
	admin    *rest.Config // cluster-admin configuration of env
	startErr error        // why env could not start; not retried
	certDir  string       // API server certificates, kept across Restart
	logs     = &tailBuffer{max: logTail}
)

// Dir returns the absolute path of the directory holding the kube-apiserver
// and etcd binaries and the crds/ directory: .cache/testbin in the first
// directory holding a go.mod file, walking up from the working directory.
// The environment variable SYLVA_PLANNER_TESTBIN overrides it.
func Dir() string {
	if d := os.Getenv(EnvDir); d != "" {
		if abs, err := filepath.Abs(d); err == nil {
			return abs
		}
		return d
	}
	wd, err := os.Getwd()
	if err != nil {
		return filepath.Join(".cache", "testbin")
	}
	for d := wd; ; {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(d, ".cache", "testbin")
		}
		parent := filepath.Dir(d)
		if parent == d {
			return filepath.Join(wd, ".cache", "testbin")
		}
		d = parent
	}
}

// Main runs the tests of a package and stops the API server afterwards, if
// one was started. Use it as:
//
//	func TestMain(m *testing.M) { os.Exit(kubetest.Main(m)) }
func Main(m *testing.M) int {
	mu.Lock()
	inMain = true
	mu.Unlock()

	code := m.Run()

	mu.Lock()
	defer mu.Unlock()
	inMain = false
	if err := stopLocked(); err != nil {
		fmt.Fprintf(os.Stderr, "kubetest: stop the API server: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// Config returns a configuration for the cluster administrator (group
// system:masters) of a real kube-apiserver started once per test binary and
// shared by all the tests of the package, with the Flux CRDs installed and
// established. It fails the test when the binaries are missing or the
// control plane cannot start, and when the package's TestMain does not use
// [Main]. The returned configuration is a copy the caller may modify.
func Config(t testing.TB) *rest.Config {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	if !inMain {
		t.Fatal("kubetest: the package has no TestMain calling kubetest.Main; add: func TestMain(m *testing.M) { os.Exit(kubetest.Main(m)) }")
	}
	if env == nil && startErr == nil {
		dir := Dir()
		if err := checkBinaries(dir); err != nil {
			// `go test -short` (make test-short) runs what needs no
			// API server binaries: without them, the test is skipped
			// in one line. Without -short, a missing binary fails.
			if testing.Short() {
				t.Skip(err)
			}
			t.Fatal(err)
		}
		begin := time.Now()
		startErr = startLocked(dir)
		if startErr == nil {
			t.Logf("kubetest: started kube-apiserver and etcd from %s in %s", dir, time.Since(begin).Round(10*time.Millisecond))
		}
	}
	if startErr != nil {
		t.Fatalf("kubetest: %v", startErr)
	}
	return rest.CopyConfig(admin)
}

// Restart stops the API server and starts it again on the same address,
// with the same certificates and the same etcd, so configurations obtained
// before stay valid. It waits until the server is healthy and the CRDs are
// served again.
func Restart(t testing.TB) {
	t.Helper()
	Config(t)
	mu.Lock()
	defer mu.Unlock()
	api := env.ControlPlane.GetAPIServer()
	begin := time.Now()
	if err := api.Stop(); err != nil {
		t.Fatalf("kubetest: stop the API server: %v", err)
	}
	if err := api.Start(); err != nil {
		t.Fatalf("kubetest: start the API server again: %v%s", err, logs.excerpt())
	}
	if err := envtest.WaitForCRDs(admin, env.CRDs, envtest.CRDInstallOptions{MaxTime: startTimeout, PollInterval: 100 * time.Millisecond}); err != nil {
		t.Fatalf("kubetest: wait for the CRDs after restart: %v", err)
	}
	t.Logf("kubetest: restarted kube-apiserver in %s", time.Since(begin).Round(10*time.Millisecond))
}

// Impersonate returns a copy of cfg that impersonates user with the given
// groups. Used on the configuration returned by [Config], it gives a client
// subject to RBAC.
func Impersonate(cfg *rest.Config, user string, groups ...string) *rest.Config {
	c := rest.CopyConfig(cfg)
	c.Impersonate = rest.ImpersonationConfig{
		UserName: user,
		Groups:   append([]string(nil), groups...),
	}
	return c
}

// Namespace creates a namespace with a fresh name derived from t.Name() and
// returns its name. The namespace is left in place after the test: without
// a namespace controller its deletion would never complete anyway.
func Namespace(t testing.TB, cfg *rest.Config) string {
	t.Helper()
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatalf("kubetest: client for namespace: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		GenerateName: namePrefix(t.Name()),
		Labels:       map[string]string{"kubetest.sylva-planner/test": labelValue(t.Name())},
	}}
	created, err := c.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("kubetest: create namespace for %s: %v", t.Name(), err)
	}
	return created.Name
}

var nonDNS = regexp.MustCompile(`[^a-z0-9]+`)

// namePrefix turns a test name into a GenerateName prefix: a DNS label of
// at most 57 characters ending with a dash, leaving room for the 5 random
// characters the API server appends.
func namePrefix(testName string) string {
	s := strings.Trim(nonDNS.ReplaceAllString(strings.ToLower(testName), "-"), "-")
	if len(s) > 50 {
		s = strings.TrimRight(s[:50], "-")
	}
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		s = "t-" + s
	}
	return strings.TrimSuffix(s, "-") + "-"
}

var nonLabel = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// labelValue turns a test name into a valid label value.
func labelValue(testName string) string {
	s := nonLabel.ReplaceAllString(testName, "_")
	if len(s) > 63 {
		s = s[:63]
	}
	return strings.Trim(s, "_.-")
}

// checkBinaries reports the missing binaries of dir as one error.
func checkBinaries(dir string) error {
	for _, name := range []string{"kube-apiserver", "etcd", "crds"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("kube-apiserver test binaries not found in %s; run `make testbin`", dir)
		}
	}
	return nil
}

// startLocked starts the control plane from the binaries in dir.
func startLocked(dir string) error {
	var err error
	certDir, err = os.MkdirTemp("", "kubetest-apiserver-")
	if err != nil {
		return fmt.Errorf("create certificate directory: %w", err)
	}
	var out io.Writer = logs
	if os.Getenv(envAttachOutput) == "true" {
		out = io.MultiWriter(os.Stderr, logs)
	}
	e := &envtest.Environment{
		BinaryAssetsDirectory:    dir,
		CRDDirectoryPaths:        []string{filepath.Join(dir, "crds")},
		ErrorIfCRDPathMissing:    true,
		ControlPlaneStartTimeout: startTimeout,
		ControlPlaneStopTimeout:  time.Minute,
	}
	e.ControlPlane.Etcd = &envtest.Etcd{
		Path: filepath.Join(dir, "etcd"),
		Out:  out,
		Err:  out,
	}
	api := e.ControlPlane.GetAPIServer()
	api.Path = filepath.Join(dir, "kube-apiserver")
	api.CertDir = certDir // kept across Restart, so clients stay valid
	api.Out = out
	api.Err = out
	cfg, err := e.Start()
	if err != nil {
		stopErr := e.Stop()
		_ = os.RemoveAll(certDir)
		return fmt.Errorf("start kube-apiserver and etcd from %s: %w%s", dir, errors.Join(err, stopErr), logs.excerpt())
	}
	env, admin = e, cfg
	return nil
}

// stopLocked stops the control plane if it runs.
func stopLocked() error {
	if env == nil {
		return nil
	}
	err := env.Stop()
	if certDir != "" {
		err = errors.Join(err, os.RemoveAll(certDir))
	}
	env, admin, certDir = nil, nil, ""
	return err
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.max; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return len(p), nil
}

// excerpt returns the kept logs formatted to end an error message.
func (b *tailBuffer) excerpt() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.buf) == 0 {
		return ""
	}
	return "\ncontrol plane logs (last lines):\n" + string(b.buf)
}
