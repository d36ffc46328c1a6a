package reconciler

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"gitlab.com/sylva-projects/sylva-planner/internal/kubetest"
)

// TestSecureMetricsNeedAnAuthorizedToken runs the controller with secure
// metrics against the real API server: /metrics answers 401 without a
// token, 403 to a ServiceAccount without the metrics-reader rule, and 200
// once the ServiceAccount is bound to it.
func TestSecureMetricsNeedAnAuthorizedToken(t *testing.T) {
	c := newCluster(t)
	ctx := ctxFor(t)
	ns := kubetest.Namespace(t, c.cfg)
	addr := kubetest.FreeAddress(t)
	runController(t, c.cfg, ControllerOptions{Namespace: ns, MetricsBindAddress: addr, MetricsSecure: true})

	sa, err := c.core.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "scraper"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := c.core.CoreV1().ServiceAccounts(ns).CreateToken(ctx, sa.Name, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // the controller's certificate is self-signed
	get := func(token string) int {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+addr+"/metrics", nil)
		if err != nil {
			t.Fatal(err)
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := client.Do(req)
		if err != nil {
			return 0
		}
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	kubetest.Eventually(t, time.Minute, "the secure metrics server answers", func() bool { return get("") != 0 })
	if code := get(""); code != http.StatusUnauthorized {
		t.Errorf("without a token: %d, want 401", code)
	}
	if code := get(tr.Status.Token); code != http.StatusForbidden {
		t.Errorf("with a token not allowed /metrics: %d, want 403", code)
	}

	var reader rbacv1.ClusterRole
	loadRBAC(t, "metrics_reader_role.yaml", &reader)
	reader.Name = ns + "-" + reader.Name
	if _, err := c.core.RbacV1().ClusterRoles().Create(ctx, &reader, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.core.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: reader.Name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: reader.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa.Name, Namespace: ns}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.core.RbacV1().ClusterRoleBindings().Delete(ctx, reader.Name, metav1.DeleteOptions{})
		_ = c.core.RbacV1().ClusterRoles().Delete(ctx, reader.Name, metav1.DeleteOptions{})
	})
	kubetest.Eventually(t, time.Minute, "the bound ServiceAccount reads /metrics", func() bool { return get(tr.Status.Token) == http.StatusOK })
}

// TestSecureMetricsServeTheIssuedCertificate runs the controller with a
// certificate in its MetricsCertDir, as config/manager mounts the one
// cert-manager issues: a client that verifies it against the CA, for the
// Service's name as the ServiceMonitor does, completes the handshake.
func TestSecureMetricsServeTheIssuedCertificate(t *testing.T) {
	c := newCluster(t)
	ns := kubetest.Namespace(t, c.cfg)
	const serverName = "sylva-planner-metrics.sylva-planner-system.svc"
	dir := t.TempDir()
	caPEM := issueServingCert(t, dir, serverName)
	addr := kubetest.FreeAddress(t)
	runController(t, c.cfg, ControllerOptions{Namespace: ns, MetricsBindAddress: addr, MetricsSecure: true, MetricsCertDir: dir})

	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		t.Fatal("bad CA PEM")
	}
	get := func(name string) (int, error) {
		client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: name, MinVersion: tls.VersionTLS12}}}
		resp, err := client.Get("https://" + addr + "/metrics")
		if err != nil {
			return 0, err
		}
		_ = resp.Body.Close()
		return resp.StatusCode, nil
	}
	var lastErr error
	kubetest.Eventually(t, time.Minute, "the metrics server answers over verified TLS", func() bool {
		code, err := get(serverName)
		lastErr = err
		return err == nil && code == http.StatusUnauthorized
	})
	if _, err := get("elsewhere.example"); err == nil {
		t.Errorf("a handshake for another server name succeeded; want the certificate to name only %s (last error %v)", serverName, lastErr)
	}
}

// issueServingCert writes into dir a serving certificate for dnsName
// (tls.crt, tls.key) signed by a new CA, and returns the CA's PEM.
func issueServingCert(t *testing.T, dir, dnsName string) []byte {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "sylva-planner-metrics-ca"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificate(rand.Reader, &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: dnsName}, DNSNames: []string{dnsName},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	for name, block := range map[string]*pem.Block{"tls.crt": {Type: "CERTIFICATE", Bytes: der}, "tls.key": {Type: "EC PRIVATE KEY", Bytes: keyDER}} {
		if err := os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
}
