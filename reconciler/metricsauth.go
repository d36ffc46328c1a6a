package reconciler

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/go-logr/logr"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	authenticationclient "k8s.io/client-go/kubernetes/typed/authentication/v1"
	authorizationclient "k8s.io/client-go/kubernetes/typed/authorization/v1"
	"k8s.io/client-go/rest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// reviewTimeout bounds each TokenReview and SubjectAccessReview of a
// metrics request.
const reviewTimeout = 10 * time.Second

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
func apiServerAuth(cfg *rest.Config, hc *http.Client) (metricsserver.Filter, error) {
	authn, err := authenticationclient.NewForConfigAndClient(cfg, hc)
	if err != nil {
		return nil, err
	}
	authz, err := authorizationclient.NewForConfigAndClient(cfg, hc)
	if err != nil {
		return nil, err
	}
	rv := reviewer{tokens: authn.TokenReviews(), access: authz.SubjectAccessReviews()}
	return func(log logr.Logger, next http.Handler) (http.Handler, error) {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			code, msg, err := rv.review(req)
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
