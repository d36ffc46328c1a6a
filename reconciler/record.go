package reconciler

import (
	"context"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"
)

// OneShotRecorder is client-go's event recorder (the broadcaster, its
// correlation and spam filter, the object reference taken from Scheme) for
// a process that exits soon after recording: the broadcaster writes Events
// in the background, and Flush waits until every Event recorded so far was
// written, so that none is lost at exit. The controller uses its manager's
// recorder instead.
type OneShotRecorder struct {
	record.EventRecorder
	broadcaster record.EventBroadcaster

	mu       sync.Mutex
	recorded int
	written  int
	changed  chan struct{}
}

// NewOneShotRecorder records Events through events, with component as their
// source. Close it when done.
func NewOneShotRecorder(events typedcorev1.EventsGetter, component string) *OneShotRecorder {
	r := &OneShotRecorder{broadcaster: record.NewBroadcaster(), changed: make(chan struct{})}
	r.broadcaster.StartRecordingToSink(&countingSink{EventSink: &typedcorev1.EventSinkImpl{Interface: events.Events("")}, r: r})
	r.EventRecorder = r.broadcaster.NewRecorder(Scheme(), corev1.EventSource{Component: component})
	return r
}

// Event records an Event (see record.EventRecorder).
func (r *OneShotRecorder) Event(obj runtime.Object, eventtype, reason, message string) {
	r.count()
	r.EventRecorder.Event(obj, eventtype, reason, message)
}

// Eventf records an Event (see record.EventRecorder).
func (r *OneShotRecorder) Eventf(obj runtime.Object, eventtype, reason, messageFmt string, args ...any) {
	r.count()
	r.EventRecorder.Eventf(obj, eventtype, reason, messageFmt, args...)
}

// AnnotatedEventf records an Event (see record.EventRecorder).
func (r *OneShotRecorder) AnnotatedEventf(obj runtime.Object, annotations map[string]string, eventtype, reason, messageFmt string, args ...any) {
	r.count()
	r.EventRecorder.AnnotatedEventf(obj, annotations, eventtype, reason, messageFmt, args...)
}

func (r *OneShotRecorder) count() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.recorded++
}

func (r *OneShotRecorder) wrote() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.written++
	close(r.changed)
	r.changed = make(chan struct{})
}

// Flush waits until every Event recorded so far was written (or its write
// failed), or ctx ends.
func (r *OneShotRecorder) Flush(ctx context.Context) error {
	for {
		r.mu.Lock()
		done, changed, missing := r.written >= r.recorded, r.changed, r.recorded-r.written
		r.mu.Unlock()
		if done {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%d Event(s) not written: %w", missing, ctx.Err())
		case <-changed:
		}
	}
}

// Close stops the broadcaster; call Flush first to keep what was recorded.
func (r *OneShotRecorder) Close() { r.broadcaster.Shutdown() }

// countingSink tells the recorder of every write, successful or not.
type countingSink struct {
	record.EventSink
	r *OneShotRecorder
}

func (s *countingSink) Create(e *corev1.Event) (*corev1.Event, error) {
	defer s.r.wrote()
	return s.EventSink.Create(e)
}

func (s *countingSink) Update(e *corev1.Event) (*corev1.Event, error) {
	defer s.r.wrote()
	return s.EventSink.Update(e)
}

func (s *countingSink) Patch(e *corev1.Event, data []byte) (*corev1.Event, error) {
	defer s.r.wrote()
	return s.EventSink.Patch(e, data)
}
