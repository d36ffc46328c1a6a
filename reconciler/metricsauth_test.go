package reconciler

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// fakeReviewer answers TokenReviews from users (token → user name) and
// SubjectAccessReviews from allowed (user name → allowed); failReview makes
// the named review fail.
func fakeReviewer(t *testing.T, users map[string]string, allowed map[string]bool, failReview string) (reviewer, *[]authorizationv1.SubjectAccessReviewSpec) {
	t.Helper()
	cs := fake.NewClientset()
	var asked []authorizationv1.SubjectAccessReviewSpec
	cs.PrependReactor("create", "tokenreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if failReview == "token" {
			return true, nil, errors.New("API server unreachable")
		}
		tr := a.(k8stesting.CreateAction).GetObject().(*authenticationv1.TokenReview).DeepCopy()
		if name, ok := users[tr.Spec.Token]; ok {
			tr.Status = authenticationv1.TokenReviewStatus{Authenticated: true, User: authenticationv1.UserInfo{
				Username: name, Groups: []string{"system:serviceaccounts"}, Extra: map[string]authenticationv1.ExtraValue{"k": {"v"}},
			}}
		}
		return true, tr, nil
	})
	cs.PrependReactor("create", "subjectaccessreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if failReview == "access" {
			return true, nil, errors.New("API server unreachable")
		}
		sar := a.(k8stesting.CreateAction).GetObject().(*authorizationv1.SubjectAccessReview).DeepCopy()
		asked = append(asked, sar.Spec)
		sar.Status.Allowed = allowed[sar.Spec.User]
		return true, sar, nil
	})
	return reviewer{tokens: cs.AuthenticationV1().TokenReviews(), access: cs.AuthorizationV1().SubjectAccessReviews()}, &asked
}

func TestMetricsReview(t *testing.T) {
	users := map[string]string{"good": "reader", "other": "stranger"}
	allowed := map[string]bool{"reader": true}
	for _, tc := range []struct {
		name, header, fail string
		want               int
	}{
		{name: "no header", want: http.StatusUnauthorized},
		{name: "basic auth", header: "Basic Z29vZA==", want: http.StatusUnauthorized},
		{name: "empty bearer", header: "Bearer ", want: http.StatusUnauthorized},
		{name: "unknown token", header: "Bearer nope", want: http.StatusUnauthorized},
		{name: "user not allowed", header: "Bearer other", want: http.StatusForbidden},
		{name: "user allowed", header: "Bearer good", want: http.StatusOK},
		{name: "scheme case", header: "bearer good", want: http.StatusOK},
		{name: "token review fails", header: "Bearer good", fail: "token", want: http.StatusInternalServerError},
		{name: "access review fails", header: "Bearer good", fail: "access", want: http.StatusInternalServerError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rv, asked := fakeReviewer(t, users, allowed, tc.fail)
			req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
			if tc.header != "" {
				req.Header.Set("Authorization", tc.header)
			}
			code, msg, err := rv.review(req)
			if code != tc.want {
				t.Fatalf("code %d (%q, %v), want %d", code, msg, err, tc.want)
			}
			if (err != nil) != (tc.fail != "") {
				t.Errorf("error %v, want one: %v", err, tc.fail != "")
			}
			if tc.want == http.StatusOK {
				if len(*asked) != 1 {
					t.Fatalf("%d access reviews, want 1", len(*asked))
				}
				s := (*asked)[0]
				if s.User != "reader" || len(s.Groups) != 1 || s.Extra["k"][0] != "v" || s.NonResourceAttributes == nil ||
					s.NonResourceAttributes.Path != "/metrics" || s.NonResourceAttributes.Verb != "get" || s.ResourceAttributes != nil {
					t.Errorf("access review asked %+v, want get on /metrics for reader", s)
				}
			}
		})
	}
}
