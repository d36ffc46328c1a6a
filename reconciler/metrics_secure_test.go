package reconciler

import (
	"crypto/tls"
	"net"
	"net/http"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"gitlab.com/sylva-projects/sylva-planner/internal/kubetest"
)

// freeAddress returns a loopback address no one listens on.
func freeAddress(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

// TestSecureMetricsNeedAnAuthorizedToken runs the controller with secure
// metrics against the real API server: /metrics answers 401 without a
// token, 403 to a ServiceAccount without the metrics-reader rule, and 200
// once the ServiceAccount is bound to it.
func TestSecureMetricsNeedAnAuthorizedToken(t *testing.T) {
	c := newCluster(t)
	ctx := ctxFor(t)
	ns := kubetest.Namespace(t, c.cfg)
	addr := freeAddress(t)
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
	eventually(t, time.Minute, "the secure metrics server answers", func() bool { return get("") != 0 })
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
	eventually(t, time.Minute, "the bound ServiceAccount reads /metrics", func() bool { return get(tr.Status.Token) == http.StatusOK })
}
