package reconciler

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

// clientTimeout is the error net/http returns through client-go when a
// request gets no answer within the client's timeout.
type clientTimeout struct{}

func (clientTimeout) Error() string {
	return "context deadline exceeded (Client.Timeout exceeded while awaiting headers)"
}
func (clientTimeout) Timeout() bool { return true }

// TestDriveEndsOnARequestThatIsNotAnswered: once the pass is requested,
// reads that the API server does not answer within the request timeout end
// the wait at once with ErrRequestTimeout (exit 1), not after --timeout; an
// error the server answers (a 500, its own timeout answer) is polled
// through as before.
func TestDriveEndsOnARequestThatIsNotAnswered(t *testing.T) {
	for _, tt := range []struct {
		name        string
		err         error
		wantTimeout bool
	}{
		{"a read with no answer within the client's timeout ends the wait", &url.Error{Op: "Get", URL: "https://api:6443/x", Err: clientTimeout{}}, true},
		{"a read whose request context ran out ends the wait", fmt.Errorf("get: %w", context.DeadlineExceeded), true},
		{"a 500 answered by the server is retried until --timeout", apierrors.NewInternalError(errors.New("etcd leader changed")), false},
		{"the server's own timeout answer is retried until --timeout", apierrors.NewTimeoutError("the server was unable to return a response in the time allotted", 1), false},
		{"a conflict answered by the server is retried until --timeout", apierrors.NewConflict(schema.GroupResource{Resource: "configmaps"}, "x", errors.New("changed")), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cm, ks, hr := readyObjects(t, "sylva-system")
			var patched atomic.Bool
			cl := fake.NewClientBuilder().WithScheme(Scheme()).WithObjects(cm, ks, hr).
				WithStatusSubresource(&kustomizev1.Kustomization{}, &helmv2.HelmRelease{}).
				WithInterceptorFuncs(interceptor.Funcs{
					Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
						if patched.Load() {
							return tt.err
						}
						return c.Get(ctx, key, obj, opts...)
					},
					Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, p client.Patch, opts ...client.PatchOption) error {
						patched.Store(true)
						return c.Patch(ctx, obj, p, opts...)
					},
				}).Build()
			a := &Applier{Reader: cl, Writer: cl, Recorder: record.NewFakeRecorder(10), Now: time.Now}
			const timeout = 2 * time.Second
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			start := time.Now()
			res, err := a.Drive(ctx, Target{Namespace: "sylva-system"}, DriveOptions{Wait: true, Interval: 20 * time.Millisecond})
			took := time.Since(start)
			if !res.Triggered {
				t.Fatalf("Drive did not trigger before waiting: %s, %v", res.Decision, err)
			}
			if !tt.wantTimeout {
				if !errors.Is(err, ErrWaitTimeout) || errors.Is(err, ErrRequestTimeout) {
					t.Fatalf("Drive = %v, want the wait's own timeout (--timeout)", err)
				}
				return
			}
			if !errors.Is(err, ErrRequestTimeout) || errors.Is(err, ErrWaitTimeout) {
				t.Fatalf("Drive = %v, want ErrRequestTimeout and not the wait's timeout", err)
			}
			if took > timeout/2 {
				t.Errorf("Drive took %s, want it to end at the first unanswered read, well before the wait's %s", took, timeout)
			}
		})
	}
}
