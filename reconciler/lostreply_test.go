package reconciler

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// lossyProxy stands between a client and the API server of cfg. It
// forwards every request, except that a PATCH of a HelmRelease is, while
// the proxy is set to, forwarded and its reply dropped (forward) or not
// forwarded at all (!forward): the client sees the connection close
// without an answer either way.
type lossyProxy struct {
	drop    atomic.Bool
	forward atomic.Bool
	patches atomic.Int32
	cfg     *rest.Config
}

func newLossyProxy(t *testing.T, upstream *rest.Config) *lossyProxy {
	t.Helper()
	rt, err := rest.TransportFor(upstream)
	if err != nil {
		t.Fatal(err)
	}
	target, err := url.Parse(upstream.Host)
	if err != nil {
		t.Fatal(err)
	}
	p := &lossyProxy{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		lose := r.Method == http.MethodPatch && strings.Contains(r.URL.Path, "/helmreleases/") && p.drop.Load()
		if lose {
			p.patches.Add(1)
		}
		if lose && !p.forward.Load() {
			hangUp(t, w)
			return
		}
		out := r.Clone(r.Context())
		out.URL.Scheme, out.URL.Host, out.Host, out.RequestURI = target.Scheme, target.Host, "", ""
		resp, err := rt.RoundTrip(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer func() { _ = resp.Body.Close() }()
		if lose {
			// The API server applied the patch; its reply is lost.
			_, _ = io.Copy(io.Discard, resp.Body)
			hangUp(t, w)
			return
		}
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	}))
	t.Cleanup(srv.Close)
	p.cfg = &rest.Config{Host: srv.URL, QPS: -1, Timeout: 30 * time.Second}
	return p
}

// hangUp closes the client's connection without an answer.
func hangUp(t *testing.T, w http.ResponseWriter) {
	t.Helper()
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		t.Errorf("hijack: %v", err)
		return
	}
	_ = conn.Close()
}

func (p *lossyProxy) applier(t *testing.T, c *cluster) *Applier {
	t.Helper()
	cl, err := client.New(p.cfg, client.Options{Scheme: Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	a := c.applier(t)
	a.Reader, a.Writer = cl, cl
	return a
}

func TestAReplyLostAfterThePatchIsResolvedByReadingTheHelmReleaseBack(t *testing.T) {
	c := newCluster(t)
	ns := c.setup(t, healthy())
	p := newLossyProxy(t, c.cfg)
	p.drop.Store(true)
	p.forward.Store(true)
	a := p.applier(t, c)
	ctx := ctxFor(t)

	res, err := a.Apply(ctx, Target{Namespace: ns})
	if err != nil {
		t.Fatalf("Apply with the patch's reply lost: %v, want the request found by reading it back", err)
	}
	if p.patches.Load() != 1 {
		t.Fatalf("%d patches reached the proxy, want 1", p.patches.Load())
	}
	if !res.Triggered || res.LostReply == nil || res.Decision.Outcome != ConclusionTrigger {
		t.Fatalf("Apply = %s (triggered %v, lost reply %v), want a trigger whose lost reply is reported", res.Decision, res.Triggered, res.LostReply)
	}
	if !strings.Contains(res.Decision.Reason, "read back") {
		t.Errorf("reason %q does not say the request was read back", res.Decision.Reason)
	}
	checkPassedOn(t, c.helmRelease(t, ns).GetAnnotations(), res)
	if res.EventErr != nil {
		t.Errorf("Event: %v", res.EventErr)
	}
	if n := c.triggers(t, ns); n != 1 {
		t.Errorf("%d trigger Events, want 1", n)
	}

	p.drop.Store(false)
	again, err := a.Apply(ctx, Target{Namespace: ns})
	if err != nil || again.Triggered || again.Decision.Outcome != ConclusionAlreadyHandled {
		t.Fatalf("Apply again = %s (triggered %v), %v; want already handled", again.Decision, again.Triggered, err)
	}
}

func TestAReplyLostBeforeThePatchSaysTheRequestWasNotMade(t *testing.T) {
	c := newCluster(t)
	ns := c.setup(t, healthy())
	p := newLossyProxy(t, c.cfg)
	p.drop.Store(true)
	a := p.applier(t, c)

	res, err := a.Apply(ctxFor(t), Target{Namespace: ns})
	if err == nil || res.Triggered {
		t.Fatalf("Apply with the patch lost = %s (triggered %v), %v; want an error", res.Decision, res.Triggered, err)
	}
	if !strings.Contains(err.Error(), "the request was not made") || errors.Is(err, ErrRequestUnknown) {
		t.Errorf("error %q does not say the request was not made", err)
	}
	if ann := c.helmRelease(t, ns).GetAnnotations(); ann[AnnotationRequestedAt] != "" {
		t.Errorf("requestedAt = %q after a lost patch", ann[AnnotationRequestedAt])
	}
}

func TestAReplyLostThatCannotBeReadBackIsUnknown(t *testing.T) {
	c := newCluster(t)
	ns := c.setup(t, healthy())
	p := newLossyProxy(t, c.cfg)
	p.drop.Store(true)
	p.forward.Store(true)
	a := p.applier(t, c)
	// The live reader's server is gone by the time the reply is lost.
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	live, err := client.New(&rest.Config{Host: gone.URL, Timeout: 5 * time.Second}, client.Options{Scheme: Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	a.LiveReader = live

	res, err := a.Apply(ctxFor(t), Target{Namespace: ns})
	if !errors.Is(err, ErrRequestUnknown) || res.Triggered {
		t.Fatalf("Apply = %s (triggered %v), %v; want %v", res.Decision, res.Triggered, err, ErrRequestUnknown)
	}
}
