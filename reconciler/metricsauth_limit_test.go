package reconciler

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	k8stesting "k8s.io/client-go/testing"

	"gitlab.com/sylva-projects/sylva-planner/internal/kubetest"
)

func randomToken(t *testing.T) string {
	t.Helper()
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

func metricsRequest(token string) *http.Request {
	req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	return req
}

// TestMetricsAuthCachesAndLimitsReviews drives the cache and the budget of
// new tokens with a clock of its own.
func TestMetricsAuthCachesAndLimitsReviews(t *testing.T) {
	rv, _ := fakeReviewer(t, map[string]string{"good": "reader"}, map[string]bool{"reader": true}, "")
	var reviews int
	clock := time.Unix(1_000_000, 0)
	ca := newCachedAuth(rv, func() time.Time { return clock })
	counting := fake.NewClientset()
	counting.PrependReactor("create", "tokenreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		reviews++
		tr := a.(k8stesting.CreateAction).GetObject().(*authenticationv1.TokenReview).DeepCopy()
		if tr.Spec.Token == "good" {
			tr.Status = authenticationv1.TokenReviewStatus{Authenticated: true, User: authenticationv1.UserInfo{Username: "reader"}}
		}
		return true, tr, nil
	})
	ca.rv.tokens = counting.AuthenticationV1().TokenReviews()

	if code, _, _ := ca.review(metricsRequest("good")); code != http.StatusOK {
		t.Fatalf("the scraper's first request: %d, want 200", code)
	}
	for i := 0; i < 100; i++ {
		if code, _, _ := ca.review(metricsRequest("good")); code != http.StatusOK {
			t.Fatalf("the scraper's request %d: %d, want 200", i, code)
		}
	}
	if reviews != 1 {
		t.Errorf("%d TokenReviews for 101 requests with one token within its TTL, want 1", reviews)
	}

	reviews = 0
	codes := map[int]int{}
	for i := 0; i < 300; i++ {
		code, _, _ := ca.review(metricsRequest(randomToken(t)))
		codes[code]++
	}
	if reviews > newTokenBurst || codes[http.StatusUnauthorized] != reviews || codes[http.StatusTooManyRequests] != 300-reviews {
		t.Errorf("300 random tokens at once: %d TokenReviews, answers %v; want at most %d reviews (401), 429 for the rest", reviews, codes, newTokenBurst)
	}

	// The scraper's answer expires during the flood: its token, accepted
	// before, is reviewed again outside the budget of new tokens.
	clock = clock.Add(allowedTTL + time.Second)
	for i := 0; i < newTokenBurst+5; i++ {
		_, _, _ = ca.review(metricsRequest(randomToken(t)))
	}
	if code, _, _ := ca.review(metricsRequest("good")); code != http.StatusOK {
		t.Errorf("the scraper during a flood, after its answer expired: %d, want 200", code)
	}

	// The budget refills with time; the caches stay bounded.
	for i := 0; i < 3*maxDenied; i++ {
		clock = clock.Add(time.Second)
		_, _, _ = ca.review(metricsRequest(randomToken(t)))
	}
	if n := ca.denied.len(); n > maxDenied {
		t.Errorf("%d refused tokens kept, want at most %d", n, maxDenied)
	}
	if code, _, _ := ca.review(metricsRequest(randomToken(t))); code != http.StatusUnauthorized {
		t.Errorf("a new token once the budget refilled: %d, want 401", code)
	}
}

// reviewCounter counts the TokenReviews sent through it.
type reviewCounter struct {
	next    http.RoundTripper
	reviews atomic.Int32
}

func (c *reviewCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/tokenreviews") {
		c.reviews.Add(1)
	}
	return c.next.RoundTrip(r)
}

// TestAFloodOfMadeUpTokensCostsFewTokenReviews sends 300 requests with
// random bearer tokens, and a scraper's requests among them, through the
// metrics authentication asking the real API server.
func TestAFloodOfMadeUpTokensCostsFewTokenReviews(t *testing.T) {
	c := newCluster(t)
	ctx := ctxFor(t)
	ns := kubetest.Namespace(t, c.cfg)
	sa, err := c.core.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "scraper"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := c.core.CoreV1().ServiceAccounts(ns).CreateToken(ctx, sa.Name, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
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

	rt, err := rest.TransportFor(c.cfg)
	if err != nil {
		t.Fatal(err)
	}
	counter := &reviewCounter{next: rt}
	filter, err := apiServerAuth(c.cfg, &http.Client{Transport: counter}, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	h, err := filter(logr.Discard(), http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) }))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	get := func(token string) int {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/metrics", nil)
		if err != nil {
			t.Error(err)
			return 0
		}
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := srv.Client().Do(req)
		if err != nil {
			return 0
		}
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	kubetest.Eventually(t, time.Minute, "the scraper's token is allowed /metrics", func() bool { return get(tr.Status.Token) == http.StatusOK })
	before := counter.reviews.Load()

	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[int]int{}
	scraper := map[int]int{}
	tokens := make(chan string, 300)
	for i := 0; i < 300; i++ {
		tokens <- randomToken(t)
	}
	close(tokens)
	for w := 0; w < 30; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for tok := range tokens {
				code := get(tok)
				mu.Lock()
				codes[code]++
				mu.Unlock()
			}
			code := get(tr.Status.Token)
			mu.Lock()
			scraper[code]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	n := counter.reviews.Load() - before
	t.Logf("300 random tokens: %d TokenReviews, answers %v; scraper %v", n, codes, scraper)
	if n > 50 {
		t.Errorf("300 requests with random tokens caused %d TokenReviews, want few (at most 50)", n)
	}
	if codes[http.StatusOK] != 0 || codes[0] != 0 || codes[http.StatusUnauthorized]+codes[http.StatusTooManyRequests] != 300 {
		t.Errorf("random tokens answered %v, want only 401 and 429", codes)
	}
	if scraper[http.StatusOK] != 30 {
		t.Errorf("the scraper's 30 requests during the flood answered %v, want 30 × 200", scraper)
	}
}

// len is the number of answers kept.
func (l answers) len() int { return l.c.Len() }
