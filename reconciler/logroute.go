package reconciler

import (
	"sync"
	"sync/atomic"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

// controller-runtime logs through one process-wide logger that can be set
// once. Until it is, every client built more than 30 seconds after the
// process started (status -A over a slow fleet, reconcile --wait) writes
// a goroutine dump to the process's stderr, saying the logger was never
// set. RouteControllerRuntimeLogs sets it, once, to a logger that writes
// to whichever logger was routed last: the commands route it nowhere, the
// controller to its own log.

var (
	routeOnce sync.Once
	routed    atomic.Pointer[logr.Logger]
)

// RouteControllerRuntimeLogs sends controller-runtime's logs to l from
// now on (logr.Discard() for none).
func RouteControllerRuntimeLogs(l logr.Logger) {
	if l.GetSink() == nil {
		l = logr.Discard()
	}
	routed.Store(&l)
	routeOnce.Do(func() { ctrllog.SetLogger(logr.New(routedSink{})) })
}

// routedSink writes to the logger routed last, with the names, values
// and call depth given to it.
type routedSink struct {
	names  []string
	values []any
	depth  int
}

// to is the logger routed last, with s's names, values and depth; the two
// frames of s (its method and logr's) are skipped.
func (s routedSink) to() logr.Logger {
	l := logr.Discard()
	if p := routed.Load(); p != nil {
		l = *p
	}
	for _, n := range s.names {
		l = l.WithName(n)
	}
	if len(s.values) > 0 {
		l = l.WithValues(s.values...)
	}
	return l.WithCallDepth(s.depth + 2)
}

func (routedSink) Init(logr.RuntimeInfo) {}

func (s routedSink) Enabled(level int) bool { return s.to().V(level).Enabled() }

func (s routedSink) Info(level int, msg string, kv ...any) { s.to().V(level).Info(msg, kv...) }

func (s routedSink) Error(err error, msg string, kv ...any) { s.to().Error(err, msg, kv...) }

func (s routedSink) WithValues(kv ...any) logr.LogSink {
	s.values = append(s.values[:len(s.values):len(s.values)], kv...)
	return s
}

func (s routedSink) WithName(name string) logr.LogSink {
	s.names = append(s.names[:len(s.names):len(s.names)], name)
	return s
}

func (s routedSink) WithCallDepth(depth int) logr.LogSink {
	s.depth += depth
	return s
}
