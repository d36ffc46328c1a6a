package inventorykube_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"gitlab.com/sylva-projects/sylva-planner/internal/kubetest"
	"gitlab.com/sylva-projects/sylva-planner/inventory/inventorykube"
)

// Sizes of the live inventory benchmark.
const (
	benchNodes      = 2000
	benchPods       = 15000
	benchPDBs       = 1000
	benchNamespaces = 50
)

type countingTransport struct {
	next http.RoundTripper
	n    *atomic.Int64
}

func (c countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.next.RoundTrip(r)
}

// BenchmarkCollect reads 2,000 nodes, 15,000 pods and 1,000 budgets from a
// real API server and reports the requests made and the peak RSS of the
// collection. Creating the objects takes a while; it runs only with -bench.
func BenchmarkCollect(b *testing.B) {
	cfg := kubetest.Config(b)
	seedBench(b, cfg)
	var requests atomic.Int64
	counted := rest.CopyConfig(cfg)
	counted.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { return countingTransport{next: rt, n: &requests} }
	resetPeakRSS()
	start := time.Now()
	n := 0
	for b.Loop() {
		f, err := inventorykube.Collect(context.Background(), counted, inventorykube.Options{Context: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		if len(f.Snapshot.Pods) < benchPods || len(f.Snapshot.Nodes) < benchNodes || len(f.Snapshot.PDBs) < benchPDBs {
			b.Fatalf("collected %d nodes, %d pods, %d budgets", len(f.Snapshot.Nodes), len(f.Snapshot.Pods), len(f.Snapshot.PDBs))
		}
		n++
	}
	b.ReportMetric(float64(requests.Load())/float64(n), "requests/op")
	b.ReportMetric(time.Since(start).Seconds()/float64(n), "wall-s/op")
	b.ReportMetric(float64(peakRSS())/(1<<20), "peak-RSS-MB")
}

func seedBench(b *testing.B, cfg *rest.Config) {
	b.Helper()
	fast := rest.CopyConfig(cfg)
	fast.QPS, fast.Burst = 5000, 5000
	fast.ContentType = "application/vnd.kubernetes.protobuf"
	cs, err := kubernetes.NewForConfig(fast)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	namespaces := make([]string, benchNamespaces)
	for i := range namespaces {
		namespaces[i] = kubetest.Namespace(b, cfg)
	}
	begin := time.Now()
	work := make(chan func() error)
	var wg sync.WaitGroup
	var firstErr atomic.Value
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f := range work {
				if err := f(); err != nil {
					firstErr.CompareAndSwap(nil, err)
				}
			}
		}()
	}
	for i := range benchNodes {
		work <- func() error {
			n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{
				Name:   fmt.Sprintf("bench-node-%04d", i),
				Labels: map[string]string{"topology.kubernetes.io/zone": "zone-" + strconv.Itoa(i%3)},
			}}
			_, err := cs.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
			return err
		}
	}
	for i := range benchPods {
		work <- func() error {
			ns := namespaces[i%benchNamespaces]
			p := &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{
					Name: fmt.Sprintf("pod-%05d", i), Namespace: ns,
					Labels: map[string]string{"app": fmt.Sprintf("app-%03d", i%benchPDBs/benchNamespaces)},
				},
				Spec: corev1.PodSpec{
					NodeName:   fmt.Sprintf("bench-node-%04d", i%benchNodes),
					Containers: []corev1.Container{{Name: "app", Image: "registry.example/app:1.2.3"}},
				},
			}
			_, err := cs.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
			return err
		}
	}
	for i := range benchPDBs {
		work <- func() error {
			ns := namespaces[i%benchNamespaces]
			one := intstr.FromInt32(1)
			p := &policyv1.PodDisruptionBudget{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pdb-%04d", i), Namespace: ns},
				Spec: policyv1.PodDisruptionBudgetSpec{
					MaxUnavailable: &one,
					Selector:       &metav1.LabelSelector{MatchLabels: map[string]string{"app": fmt.Sprintf("app-%03d", i/benchNamespaces)}},
				},
			}
			_, err := cs.PolicyV1().PodDisruptionBudgets(ns).Create(ctx, p, metav1.CreateOptions{})
			return err
		}
	}
	close(work)
	wg.Wait()
	if err, _ := firstErr.Load().(error); err != nil {
		b.Fatalf("seed the benchmark: %v", err)
	}
	b.Logf("created %d nodes, %d pods, %d budgets in %s", benchNodes, benchPods, benchPDBs, time.Since(begin).Round(time.Second))
}

// resetPeakRSS resets the process's peak resident set size (Linux).
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSS returns the process's peak resident set size in bytes (Linux
// VmHWM), or 0.
func peakRSS() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			kb, _ := strconv.ParseInt(string(bytes.Fields(v)[0]), 10, 64)
			return kb << 10
		}
	}
	return 0
}
