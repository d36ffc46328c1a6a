package reconciler

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"gitlab.com/sylva-projects/sylva-planner/internal/kubetest"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

// countingTransport counts the requests a client sends, and the patches of
// a HelmRelease the API server accepted, per namespace: the triggers.
type countingTransport struct {
	next    http.RoundTripper
	n       *atomic.Int64
	patches *patchCount
}

func (c countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	resp, err := c.next.RoundTrip(r)
	if err == nil && r.Method == http.MethodPatch && resp.StatusCode == http.StatusOK {
		// /apis/helm.toolkit.fluxcd.io/v2/namespaces/NS/helmreleases/NAME
		if parts := strings.Split(r.URL.Path, "/"); len(parts) == 8 && parts[4] == "namespaces" && parts[6] == helmReleases.Resource {
			c.patches.add(parts[5])
		}
	}
	return resp, err
}

// patchCount counts HelmRelease patches per namespace.
type patchCount struct {
	mu sync.Mutex
	by map[string]int
}

func (p *patchCount) add(ns string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.by[ns]++
}

// missing is how many of namespaces have no patch yet; twice lists those
// with more than one.
func (p *patchCount) missing(namespaces []string) (missing int, twice []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, ns := range namespaces {
		switch p.by[ns] {
		case 0:
			missing++
		case 1:
		default:
			twice = append(twice, fmt.Sprintf("%s (%d)", ns, p.by[ns]))
		}
	}
	return missing, twice
}

// BenchmarkControllerManyNamespaces runs one controller over many release
// namespaces on the real API server (SYLVA_PLANNER_BENCH_NAMESPACES, 500 by
// default): each namespace has a pass requested and its Kustomization not
// Ready; the benchmark makes them Ready one after the other and measures
// the time from the Kustomization's status update to the HelmRelease's
// trigger patch, as a watch sees them, the API requests the controller
// made per trigger, and the peak RSS of the process (controller, API
// clients and the benchmark's own watch; the API server and etcd run in
// their own processes).
func BenchmarkControllerManyNamespaces(b *testing.B) {
	n := 500
	if s := os.Getenv("SYLVA_PLANNER_BENCH_NAMESPACES"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	cfg := kubetest.Config(b)
	c := &cluster{cfg: cfg, core: kubernetes.NewForConfigOrDie(cfg), dyn: dynamic.NewForConfigOrDie(cfg)}
	setupStart := time.Now()
	namespaces := make([]string, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for i := range namespaces {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			f := healthy()
			f.ksReady = false
			namespaces[i] = c.setup(b, f)
		}()
	}
	wg.Wait()
	b.Logf("created %d release namespaces in %s", n, time.Since(setupStart).Round(time.Millisecond))

	var requests atomic.Int64
	patches := &patchCount{by: map[string]int{}}
	ccfg := rest.CopyConfig(cfg)
	ccfg.QPS, ccfg.Burst = 200, 400
	ccfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return countingTransport{next: rt, n: &requests, patches: patches}
	}
	ctl, err := NewController(ccfg, ControllerOptions{Now: time.Now})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ctl.Start(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			b.Log(err)
		}
	}()
	wctx, wcancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer wcancel()
	// Wait until the controller saw every namespace waiting.
	deadline := time.Now().Add(5 * time.Minute)
	for ctl.Stats().Outcomes[ConclusionWaiting] < n {
		if time.Now().After(deadline) {
			b.Fatalf("the controller saw %d of %d namespaces", ctl.Stats().Outcomes[ConclusionWaiting], n)
		}
		time.Sleep(100 * time.Millisecond)
	}
	startRequests := requests.Load()

	w, err := c.dyn.Resource(helmReleases).Namespace("").Watch(wctx, metav1.ListOptions{FieldSelector: "metadata.name=" + status.DefaultHelmRelease})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Stop()
	var mu sync.Mutex
	readyAt := map[string]time.Time{}
	latencies := make([]time.Duration, 0, n)
	got := make(chan struct{})
	go func() {
		seen := map[string]bool{}
		for ev := range w.ResultChan() {
			if ev.Type != watch.Modified {
				continue
			}
			u, ok := ev.Object.(interface {
				GetNamespace() string
				GetAnnotations() map[string]string
			})
			if !ok || u.GetAnnotations()[AnnotationHandledRequest] == "" || seen[u.GetNamespace()] {
				continue
			}
			now := time.Now()
			seen[u.GetNamespace()] = true
			mu.Lock()
			if t0, ok := readyAt[u.GetNamespace()]; ok {
				latencies = append(latencies, now.Sub(t0))
			}
			mu.Unlock()
			if len(seen) == n {
				close(got)
				return
			}
		}
	}()

	b.ResetTimer()
	for _, ns := range namespaces {
		ks, err := c.dyn.Resource(kustomizations).Namespace(ns).Get(wctx, status.KustomizationName, metav1.GetOptions{})
		if err != nil {
			b.Fatal(err)
		}
		mu.Lock()
		readyAt[ns] = time.Now()
		mu.Unlock()
		c.setReady(b, wctx, kustomizations, ks, true, "")
	}
	select {
	case <-got:
	case <-wctx.Done():
		b.Fatalf("only %d of %d namespaces triggered", len(latencies), n)
	}
	b.StopTimer()

	// Each namespace of the benchmark triggered exactly once. The
	// controller watches every namespace: the API server may hold others,
	// left by the package's tests, that it triggers too, and which are
	// not counted here. The watch may see the last patch before the
	// controller's client returned it.
	deadline = time.Now().Add(time.Minute)
	missing, twice := patches.missing(namespaces)
	for missing > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		missing, twice = patches.missing(namespaces)
	}
	if missing > 0 || len(twice) > 0 {
		b.Fatalf("of %d namespaces, %d not triggered, %d triggered more than once: %v", n, missing, len(twice), twice)
	}
	s := ctl.Stats()
	slices.Sort(latencies)
	pct := func(p float64) time.Duration { return latencies[int(p*float64(len(latencies)-1))] }
	perTrigger := float64(requests.Load()-startRequests) / float64(n)
	rss := peakRSS()
	b.ReportMetric(float64(pct(0.5).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(pct(0.99).Microseconds())/1000, "p99-ms")
	b.ReportMetric(perTrigger, "requests/trigger")
	b.ReportMetric(float64(rss)/(1<<20), "peak-rss-MiB")
	b.Logf("%d namespaces: Ready → trigger p50 %s, p99 %s, max %s; %.2f API requests per trigger (patch, Event, conflict re-reads); controller stats, every namespace of the API server %+v; process peak RSS %d MiB (Go heap in use %d MiB)",
		n, pct(0.5), pct(0.99), latencies[len(latencies)-1], perTrigger, s, rss>>20, heapMiB())
}

func heapMiB() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse >> 20
}

// peakRSS reads VmHWM of the process, in bytes; 0 when unknown.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int64
			if _, err := fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), &kb); err == nil {
				return kb << 10
			}
		}
	}
	return 0
}
