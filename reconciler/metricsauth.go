package reconciler

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"golang.org/x/time/rate"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	authenticationclient "k8s.io/client-go/kubernetes/typed/authentication/v1"
	authorizationclient "k8s.io/client-go/kubernetes/typed/authorization/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/lru"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// reviewTimeout bounds each TokenReview and SubjectAccessReview of a
// metrics request.
const reviewTimeout = 10 * time.Second

// Limits of the metrics authentication: the answers of the API server are
// kept for a short while, per token, so that a scraper costs two reviews
// per allowedTTL rather than two per scrape, and a token nobody has seen
// accepted is reviewed only within a budget (newTokenRate per second, a
// burst of newTokenBurst, newTokenInFlight at a time), beyond which the
// request gets 429 without a review: a flood of made-up tokens costs the
// API server a few reviews and cannot crowd out a scraper whose token was
// accepted before, which is reviewed again outside that budget.
const (
	allowedTTL       = time.Minute
	deniedTTL        = 10 * time.Second
	maxAllowed       = 256
	maxDenied        = 1024
	newTokenRate     = 5
	newTokenBurst    = 10
	newTokenInFlight = 4
)

// apiServerAuth is the metrics server's filter when MetricsSecure: the
// API server authenticates the bearer token of each request (TokenReview)
// and authorizes its user for the request's verb on the non-resource URL
// (SubjectAccessReview), as the metrics-reader ClusterRole grants get on
// /metrics. A request without a token gets 401, a token the API server
// does not accept 401, a user not allowed 403, and a review that fails 500.
//
// The two reviews are asked of the API server directly rather than through
// controller-runtime's filters package: that one builds on k8s.io/apiserver,
// whose package initialisation (and that of its gRPC, OpenTelemetry and CEL
// dependencies) every command of the binary would otherwise pay at start.
//
// Answers are cached and new tokens rate limited (see allowedTTL); now
// reads the clock for both.
func apiServerAuth(cfg *rest.Config, hc *http.Client, now func() time.Time) (metricsserver.Filter, error) {
	authn, err := authenticationclient.NewForConfigAndClient(cfg, hc)
	if err != nil {
		return nil, err
	}
	authz, err := authorizationclient.NewForConfigAndClient(cfg, hc)
	if err != nil {
		return nil, err
	}
	rv := reviewer{tokens: authn.TokenReviews(), access: authz.SubjectAccessReviews()}
	ca := newCachedAuth(rv, now)
	return func(log logr.Logger, next http.Handler) (http.Handler, error) {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			code, msg, err := ca.review(req)
			if err != nil {
				log.Error(err, "metrics request review failed", "path", req.URL.Path)
			}
			if code != http.StatusOK {
				http.Error(w, msg, code)
				return
			}
			next.ServeHTTP(w, req)
		}), nil
	}, nil
}

// reviewer asks the API server who sent a request and whether they may.
type reviewer struct {
	tokens authenticationclient.TokenReviewInterface
	access authorizationclient.SubjectAccessReviewInterface
}

// review returns http.StatusOK when the request may be served, else the
// status code and message to answer with (and the error of a review that
// failed).
func (rv reviewer) review(req *http.Request) (int, string, error) {
	token, ok := bearerToken(req.Header.Get("Authorization"))
	if !ok {
		return http.StatusUnauthorized, "Unauthorized", nil
	}
	ctx, cancel := context.WithTimeout(req.Context(), reviewTimeout)
	defer cancel()
	tr, err := rv.tokens.Create(ctx, &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: token}}, metav1.CreateOptions{})
	if err != nil {
		return http.StatusInternalServerError, "Authentication failed", fmt.Errorf("token review: %w", err)
	}
	if !tr.Status.Authenticated {
		return http.StatusUnauthorized, "Unauthorized", nil
	}
	u := tr.Status.User
	extra := make(map[string]authorizationv1.ExtraValue, len(u.Extra))
	for k, v := range u.Extra {
		extra[k] = authorizationv1.ExtraValue(v)
	}
	sar, err := rv.access.Create(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:   u.Username,
		UID:    u.UID,
		Groups: u.Groups,
		Extra:  extra,
		NonResourceAttributes: &authorizationv1.NonResourceAttributes{
			Path: req.URL.Path,
			Verb: strings.ToLower(req.Method),
		},
	}}, metav1.CreateOptions{})
	if err != nil {
		return http.StatusInternalServerError, "Authorization for user " + u.Username + " failed", fmt.Errorf("subject access review of %s: %w", u.Username, err)
	}
	if !sar.Status.Allowed || sar.Status.Denied {
		return http.StatusForbidden, "Authorization denied for user " + u.Username, nil
	}
	return http.StatusOK, "", nil
}

// bearerToken returns the token of an "Authorization: Bearer <token>"
// header value.
func bearerToken(h string) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// answer is what a metrics request is answered, as review returns it.
type answer struct {
	code    int
	msg     string
	expires time.Time
}

// cachedAuth answers metrics requests from a reviewer, keeping its answers
// per token, path and verb (allowed for allowedTTL, refused for deniedTTL;
// failed reviews are not kept) in two bounded LRU lists, and limiting the
// reviews of tokens not accepted before.
type cachedAuth struct {
	rv  reviewer
	now func() time.Time

	mu       sync.Mutex
	allowed  answers
	denied   answers
	newToken *rate.Limiter
	inFlight int
}

func newCachedAuth(rv reviewer, now func() time.Time) *cachedAuth {
	return &cachedAuth{rv: rv, now: now, allowed: newAnswers(maxAllowed), denied: newAnswers(maxDenied), newToken: rate.NewLimiter(newTokenRate, newTokenBurst)}
}

// review answers req: from the cache when a live answer is kept for its
// token, path and verb; else by asking the API server, at once for a token
// accepted before, within the budget for any other (429 beyond it).
func (c *cachedAuth) review(req *http.Request) (int, string, error) {
	token, ok := bearerToken(req.Header.Get("Authorization"))
	if !ok {
		return http.StatusUnauthorized, "Unauthorized", nil
	}
	sum := sha256.Sum256([]byte(token))
	key := string(sum[:]) + "\x00" + strings.ToLower(req.Method) + " " + req.URL.Path

	c.mu.Lock()
	t := c.now()
	if a, ok := c.allowed.get(key); ok && t.Before(a.expires) {
		c.mu.Unlock()
		return a.code, a.msg, nil
	}
	_, known := c.allowed.get(key)
	if a, ok := c.denied.get(key); ok && t.Before(a.expires) {
		c.mu.Unlock()
		return a.code, a.msg, nil
	}
	if !known && !c.take(t) {
		c.mu.Unlock()
		return http.StatusTooManyRequests, "Too many requests with new tokens", nil
	}
	c.mu.Unlock()

	code, msg, err := c.rv.review(req)

	c.mu.Lock()
	defer c.mu.Unlock()
	if !known {
		c.inFlight--
	}
	t = c.now()
	switch {
	case err != nil:
	case code == http.StatusOK:
		c.denied.remove(key)
		c.allowed.put(key, answer{code: code, msg: msg, expires: t.Add(allowedTTL)})
	default:
		c.allowed.remove(key)
		c.denied.put(key, answer{code: code, msg: msg, expires: t.Add(deniedTTL)})
	}
	return code, msg, err
}

// take spends one review of a new token from the budget at time t: a token
// bucket of newTokenBurst refilled at newTokenRate per second, and at most
// newTokenInFlight at a time. c.mu is held.
func (c *cachedAuth) take(t time.Time) bool {
	if c.inFlight >= newTokenInFlight || !c.newToken.AllowN(t, 1) {
		return false
	}
	c.inFlight++
	return true
}

// answers is a map of at most a number of answers that forgets the least
// recently used first.
type answers struct{ c *lru.Cache }

func newAnswers(size int) answers { return answers{c: lru.New(size)} }

func (l answers) get(key string) (answer, bool) {
	v, ok := l.c.Get(key)
	if !ok {
		return answer{}, false
	}
	return v.(answer), true
}

func (l answers) put(key string, a answer) { l.c.Add(key, a) }

func (l answers) remove(key string) { l.c.Remove(key) }
