package statuskube

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"gitlab.com/sylva-projects/sylva-planner/fileio"
)

// testCA is a self-signed CA certificate in PEM, made once.
var testCA = sync.OnceValue(func() string {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		panic(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
})

// writeKubeconfig writes a kubeconfig for server whose cluster and user
// carry the given extra YAML fields (flow mappings' contents).
func writeKubeconfig(t *testing.T, dir, file, server, cluster, user string) string {
	t.Helper()
	path := filepath.Join(dir, file)
	kc := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: %q%s}
users:
- name: u
  user: {%s}
contexts:
- name: ctx
  context: {cluster: c, user: u}
current-context: ctx
`, server, cluster, user)
	if err := os.WriteFile(path, []byte(kc), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// restConfigWithin is RESTConfig failing the test if it has not returned
// after 10 s: a named pipe opened for reading blocks.
func restConfigWithin(t *testing.T, o ConfigOptions) (*rest.Config, string, error) {
	t.Helper()
	type result struct {
		cfg  *rest.Config
		name string
		err  error
	}
	done := make(chan result, 1)
	go func() {
		cfg, name, err := RESTConfig(o)
		done <- result{cfg, name, err}
	}()
	select {
	case r := <-done:
		return r.cfg, r.name, r.err
	case <-time.After(10 * time.Second):
		t.Fatalf("RESTConfig still running after 10s")
		return nil, "", nil
	}
}

// TestFilesAKubeconfigNamesFollowTheKubeconfigsRule: client-go reads the
// files a kubeconfig names whole (/dev/zero fills memory) or opens them
// (a named pipe blocks), lazily; each is refused when the configuration
// is built, in one line naming the kubeconfig, the field, the file and the
// fix.
func TestFilesAKubeconfigNamesFollowTheKubeconfigsRule(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	bigFile := filepath.Join(dir, "big")
	if err := os.WriteFile(bigFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(bigFile, maxKubeconfig+1); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing")
	for _, file := range []struct{ name, path, want string }{
		{"/dev/zero", "/dev/zero", "/dev/zero is a character device, not a regular file; give a regular file"},
		{"a named pipe", fifo, fifo + " is a named pipe, not a regular file; give a regular file"},
		{"a file over the limit", bigFile, bigFile + " is 16777217 bytes, more than the limit of 16 MiB for a file a kubeconfig names"},
		{"a missing file", missing, missing + " does not exist; fix the path"},
	} {
		for _, field := range []struct{ name, cluster, user string }{
			{"certificate-authority of cluster \"c\"", ", certificate-authority: " + file.path, "token: x"},
			{"client-certificate of user \"u\"", "", "client-certificate: " + file.path + ", client-key-data: eA=="},
			{"client-key of user \"u\"", "", "client-certificate-data: eA==, client-key: " + file.path},
			{"tokenFile of user \"u\"", "", "tokenFile: " + file.path},
		} {
			t.Run(field.name+" is "+file.name, func(t *testing.T) {
				kc := writeKubeconfig(t, t.TempDir(), "kc", "https://127.0.0.1:1", field.cluster, field.user)
				_, _, err := restConfigWithin(t, ConfigOptions{Kubeconfig: kc})
				want := "load kubeconfig (--kubeconfig " + kc + ") (context ctx): " + field.name + ": " + file.want
				if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("RESTConfig: %v\nwant one line holding %q", err, want)
				}
				if file.path != bigFile && file.path != missing && !errors.Is(err, fileio.ErrNotRegular) {
					t.Errorf("%v does not wrap fileio.ErrNotRegular", err)
				}
			})
		}
	}

	t.Run("a file named by one of the KUBECONFIG files is named with it", func(t *testing.T) {
		d := t.TempDir()
		first := filepath.Join(d, "first")
		if err := os.WriteFile(first, []byte("apiVersion: v1\nkind: Config\npreferences: {}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		second := writeKubeconfig(t, d, "second", "https://127.0.0.1:1", "", "tokenFile: /dev/zero")
		list := first + string(filepath.ListSeparator) + second
		_, _, err := restConfigWithin(t, ConfigOptions{Getenv: env(map[string]string{"KUBECONFIG": list})})
		want := `load kubeconfig (KUBECONFIG=` + list + `) (context ctx): tokenFile of user "u" (in ` + second + `): /dev/zero is a character device`
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("RESTConfig: %v\nwant %q", err, want)
		}
	})

	t.Run("the files of another context are not read", func(t *testing.T) {
		kc := writeKubeconfig(t, t.TempDir(), "kc", "https://127.0.0.1:1", "", "token: x")
		data, err := os.ReadFile(kc)
		if err != nil {
			t.Fatal(err)
		}
		data = append(data, []byte("")...)
		other := strings.Replace(string(data), "users:\n", "users:\n- name: other\n  user: {tokenFile: /dev/zero}\n", 1)
		if err := os.WriteFile(kc, []byte(other), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, _, err := restConfigWithin(t, ConfigOptions{Kubeconfig: kc}); err != nil {
			t.Fatalf("RESTConfig: %v", err)
		}
	})
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// TestTheFilesAKubeconfigNamesAreLoadedIntoTheConfiguration: client-go
// gets the content, never a path it would open itself.
func TestTheFilesAKubeconfigNamesAreLoadedIntoTheConfiguration(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{"ca.crt": testCA(), "client.crt": "cert", "client.key": "key", "token": "tok\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// Relative paths are relative to the kubeconfig, as client-go has them.
	kc := writeKubeconfig(t, dir, "kc", "https://127.0.0.1:1", ", certificate-authority: ca.crt",
		"client-certificate: client.crt, client-key: client.key, tokenFile: token")
	cfg, _, err := restConfigWithin(t, ConfigOptions{Kubeconfig: kc})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.CAFile != "" || cfg.CertFile != "" || cfg.KeyFile != "" || cfg.BearerTokenFile != "" {
		t.Errorf("paths left for client-go to open: CAFile %q, CertFile %q, KeyFile %q, BearerTokenFile %q", cfg.CAFile, cfg.CertFile, cfg.KeyFile, cfg.BearerTokenFile)
	}
	if string(cfg.CAData) != testCA() || string(cfg.CertData) != "cert" || string(cfg.KeyData) != "key" {
		t.Errorf("content not loaded: CA %q, cert %q, key %q", cfg.CAData, cfg.CertData, cfg.KeyData)
	}
	// The token goes through the wrapper that reads the file again when it
	// changes (TestATokenFileIsReadAgainWhenItChanges), not client-go's.
	if cfg.BearerToken != "" || cfg.WrapTransport == nil {
		t.Errorf("token %q, wrapper %v: want the token file's wrapper only", cfg.BearerToken, cfg.WrapTransport != nil)
	}
}

// authServer records the Authorization header of each request and answers
// 401 to the tokens in reject.
type authServer struct {
	mu     sync.Mutex
	seen   []string
	reject map[string]bool
}

func (s *authServer) start(t *testing.T) string {
	t.Helper()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		h := r.Header.Get("Authorization")
		s.seen = append(s.seen, h)
		if s.reject[strings.TrimPrefix(h, "Bearer ")] {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"major":"1","minor":"31","gitVersion":"v1.31.0"}`)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func (s *authServer) last() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.seen) == 0 {
		return ""
	}
	return s.seen[len(s.seen)-1]
}

// getVersion sends one request with cfg's HTTP client (its transport wrappers:
// the token file, the exec plugin) and fails unless it is answered 200.
func getVersion(t *testing.T, cfg *rest.Config) error {
	t.Helper()
	c, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Get(cfg.Host + "/version")
	if err != nil {
		return err
	}
	defer func() { _ = res.Body.Close() }()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("answered %s", res.Status)
	}
	return nil
}

// TestATokenFileIsReadAgainWhenItChanges: the token file is read under
// the rule each time it changes (rotation, as client-go does it), and a
// token file that turns into a named pipe keeps the last token.
func TestATokenFileIsReadAgainWhenItChanges(t *testing.T) {
	var s authServer
	url := s.start(t)
	dir := t.TempDir()
	token := filepath.Join(dir, "token")
	if err := os.WriteFile(token, []byte("first\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	kc := writeKubeconfig(t, dir, "kc", url, ", insecure-skip-tls-verify: true", "tokenFile: token")
	cfg, _, err := restConfigWithin(t, ConfigOptions{Kubeconfig: kc})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Timeout = 5 * time.Second
	if err := getVersion(t, cfg); err != nil || s.last() != "Bearer first" {
		t.Fatalf("first request: %v, Authorization %q", err, s.last())
	}
	if err := os.WriteFile(token, []byte("second-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := getVersion(t, cfg); err != nil || s.last() != "Bearer second-token" {
		t.Fatalf("after rotation: %v, Authorization %q", err, s.last())
	}
	if err := os.Remove(token); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(token, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- getVersion(t, cfg) }()
	select {
	case err := <-done:
		if err != nil || s.last() != "Bearer second-token" {
			t.Fatalf("token file turned into a named pipe: %v, Authorization %q; want the last token", err, s.last())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a token file turned into a named pipe blocks the request")
	}
}

// TestTheInClusterFilesFollowTheRule: the service account token and CA
// certificate of a pod are read under the same rule, into the
// configuration.
func TestTheInClusterFilesFollowTheRule(t *testing.T) {
	inPod := env(map[string]string{"KUBERNETES_SERVICE_HOST": "10.0.0.1", "KUBERNETES_SERVICE_PORT": "443"})
	t.Run("a token and a CA certificate are loaded", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "token"), []byte("sa-token\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "ca.crt"), []byte(testCA()), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, name, err := restConfigWithin(t, ConfigOptions{Getenv: inPod, ServiceAccountDir: dir, As: "someone"})
		if err != nil {
			t.Fatal(err)
		}
		if name != InClusterContext || cfg.Host != "https://10.0.0.1:443" || cfg.BearerToken != "" || cfg.WrapTransport == nil || cfg.BearerTokenFile != "" ||
			string(cfg.CAData) != testCA() || cfg.CAFile != "" || cfg.Impersonate.UserName != "someone" {
			t.Errorf("in-cluster config = %s host %s token %q file %q CA %d bytes, file %q, as %q", name, cfg.Host, cfg.BearerToken, cfg.BearerTokenFile, len(cfg.CAData), cfg.CAFile, cfg.Impersonate.UserName)
		}
	})
	for _, tt := range []struct{ name, file, want string }{
		{"a token that is a named pipe", "token", "load the in-cluster configuration: in-cluster service account token: %s is a named pipe"},
		{"a CA certificate that is a named pipe", "ca.crt", "load the in-cluster configuration: in-cluster CA certificate: %s is a named pipe"},
	} {
		t.Run(tt.name+" is refused", func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range []string{"token", "ca.crt"} {
				if f == tt.file {
					if err := syscall.Mkfifo(filepath.Join(dir, f), 0o600); err != nil {
						t.Fatal(err)
					}
				} else if err := os.WriteFile(filepath.Join(dir, f), []byte(testCA()), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			_, _, err := restConfigWithin(t, ConfigOptions{Getenv: inPod, ServiceAccountDir: dir})
			want := fmt.Sprintf(tt.want, filepath.Join(dir, tt.file))
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("RESTConfig: %v\nwant %q", err, want)
			}
		})
	}
	t.Run("outside a pod there is no cluster", func(t *testing.T) {
		_, _, err := restConfigWithin(t, ConfigOptions{ServiceAccountDir: t.TempDir()})
		if !errors.Is(err, ErrNoCluster) {
			t.Fatalf("RESTConfig = %v, want ErrNoCluster", err)
		}
	})
}
