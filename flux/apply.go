package flux

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"gitlab.com/sylva-projects/sylva-planner/status"
)

// Kinds of the Flux objects read.
var (
	KustomizationKind = schema.GroupVersionKind{Group: "kustomize.toolkit.fluxcd.io", Version: "v1", Kind: "Kustomization"}
	HelmReleaseKind   = schema.GroupVersionKind{Group: "helm.toolkit.fluxcd.io", Version: "v2", Kind: "HelmRelease"}
)

// EventReason is the reason of the Event recorded on the HelmRelease when a
// pass is requested.
const EventReason = "ReconcileRequested"

// maxAttempts bounds the read–decide–patch rounds of one Apply when the
// patch keeps meeting resourceVersion conflicts.
const maxAttempts = 5

// ErrConflict is returned by Apply when every attempt met a conflict.
var ErrConflict = errors.New("the HelmRelease kept changing while patching it")

// Target names the objects of one release namespace.
type Target struct {
	Namespace string
	// HelmRelease is the name of the sylva-units HelmRelease;
	// status.DefaultHelmRelease when empty.
	HelmRelease string
}

func (t Target) helmRelease() string {
	if t.HelmRelease == "" {
		return status.DefaultHelmRelease
	}
	return t.HelmRelease
}

// Snapshot is what Fetch read: the input of Decide and what a write needs.
type Snapshot struct {
	Input Input
	// HelmRelease is the object as read; nil when absent.
	HelmRelease *unstructured.Unstructured
	// ConfigMapVersion is the status ConfigMap's resourceVersion; empty
	// when absent.
	ConfigMapVersion string
}

// Fetch reads the status ConfigMap, the sylva-units-status Kustomization
// and the HelmRelease of t through r. Absent objects are nil in the
// Observation; a malformed one sets Input.Invalid. Errors are those of the
// API (unreachable, forbidden), with the object named.
func Fetch(ctx context.Context, r client.Reader, t Target) (Snapshot, error) {
	ns := t.Namespace
	s := Snapshot{Input: Input{Observation: status.Observation{Namespace: ns, FluxRead: true}}}
	var invalid []string

	cm := &corev1.ConfigMap{}
	switch err := r.Get(ctx, client.ObjectKey{Namespace: ns, Name: status.ConfigMapName}, cm); {
	case apierrors.IsNotFound(err):
	case err != nil:
		return Snapshot{}, fmt.Errorf("read ConfigMap %s/%s: %w", ns, status.ConfigMapName, err)
	default:
		s.ConfigMapVersion = cm.ResourceVersion
		decoded, err := decodeConfigMap(cm)
		if err != nil {
			invalid = append(invalid, fmt.Sprintf("ConfigMap %s/%s: %v", ns, status.ConfigMapName, err))
		}
		s.Input.Observation.ConfigMap = decoded
	}

	ks, _, err := fetchFlux(ctx, r, KustomizationKind, ns, status.KustomizationName)
	if err != nil {
		var bad *invalidError
		if !errors.As(err, &bad) {
			return Snapshot{}, err
		}
		invalid = append(invalid, err.Error())
	}
	s.Input.Observation.Kustomization = ks

	hr, u, err := fetchFlux(ctx, r, HelmReleaseKind, ns, t.helmRelease())
	if err != nil {
		var bad *invalidError
		if !errors.As(err, &bad) {
			return Snapshot{}, err
		}
		invalid = append(invalid, err.Error())
	}
	s.Input.Observation.HelmRelease, s.HelmRelease = hr, u

	if len(invalid) > 0 {
		s.Input.Invalid = strings.Join(invalid, "; ")
	}
	return s, nil
}

// invalidError is an object that was read but could not be decoded.
type invalidError struct{ err error }

func (e *invalidError) Error() string { return e.err.Error() }
func (e *invalidError) Unwrap() error { return e.err }

func fetchFlux(ctx context.Context, r client.Reader, gvk schema.GroupVersionKind, ns, name string) (*status.FluxObject, *unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	what := fmt.Sprintf("%s %s/%s", gvk.Kind, ns, name)
	err := r.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, u)
	switch {
	case apierrors.IsNotFound(err), meta.IsNoMatchError(err):
		return nil, nil, nil
	case err != nil:
		return nil, nil, fmt.Errorf("read %s: %w", what, err)
	}
	f, err := status.FluxObjectFromMap(u.Object)
	if err != nil {
		return nil, nil, &invalidError{fmt.Errorf("%s: %w", what, err)}
	}
	if f.Kind == "" {
		f.Kind = gvk.Kind
	}
	return f, u, nil
}

// decodeConfigMap decodes through status.Decode, so that a live ConfigMap
// and a file give the same Status and the same errors. On a malformed value
// it returns the error and no Status.
func decodeConfigMap(cm *corev1.ConfigMap) (*status.Status, error) {
	doc := map[string]any{
		"apiVersion": "v1",
		"kind":       "ConfigMap",
		"metadata":   map[string]any{"name": cm.Name, "namespace": cm.Namespace},
		"data":       cm.Data,
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	return status.Decode(b)
}

// Applier reads, decides and, when Decide says so, requests the pass.
type Applier struct {
	// Reader reads the objects: a cache in the controller, the API server
	// in the command.
	Reader client.Reader
	// LiveReader re-reads after a resourceVersion conflict; Reader when nil.
	LiveReader client.Reader
	// Writer patches the HelmRelease and creates Events.
	Writer client.Writer
	// DryRun decides without writing anything.
	DryRun bool
	// Now reads the clock, for Event timestamps; required unless DryRun
	// (the package reads no clock itself).
	Now func() time.Time
	// Component is the Event source; "sylva-planner" when empty.
	Component string
}

// Result is what Apply did.
type Result struct {
	Decision Decision
	// Triggered is true when the patch was written.
	Triggered bool
	// Conflicts counts the patches refused for a stale resourceVersion.
	Conflicts int
	// Snapshot is the last read.
	Snapshot Snapshot
	// EventErr is why the Event could not be recorded; the pass was
	// requested all the same.
	EventErr error
}

// Apply reads the objects of t, decides, and when the decision is to
// trigger, writes one merge patch of the HelmRelease guarded by the
// resourceVersion it decided on, setting AnnotationRequestedAt,
// AnnotationForceAt and AnnotationHandledRequest to the request value, then
// records an Event on it. A conflict (another writer changed the
// HelmRelease in between) re-reads from the live reader and decides again,
// so that of two racing planners only one passes a value on. Errors are
// operational (unreachable, forbidden, conflicts that do not stop); every
// decision, including missing and invalid objects, is a Result.
func (a *Applier) Apply(ctx context.Context, t Target) (Result, error) {
	if a.Now == nil && !a.DryRun {
		return Result{}, errors.New("flux.Applier: Now is required to write")
	}
	reader := a.Reader
	var res Result
	for attempt := 0; attempt < maxAttempts; attempt++ {
		snap, err := Fetch(ctx, reader, t)
		if err != nil {
			return res, err
		}
		res.Snapshot = snap
		res.Decision = Decide(snap.Input)
		if !res.Decision.Trigger() || a.DryRun {
			return res, nil
		}
		err = a.patch(ctx, snap.HelmRelease, res.Decision.Request)
		if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
			res.Conflicts++
			if a.LiveReader != nil {
				reader = a.LiveReader
			}
			continue
		}
		if err != nil {
			return res, fmt.Errorf("patch HelmRelease %s/%s: %w", t.Namespace, t.helmRelease(), err)
		}
		res.Triggered = true
		res.EventErr = a.recordEvent(ctx, snap.HelmRelease, res.Decision)
		return res, nil
	}
	return res, fmt.Errorf("patch HelmRelease %s/%s after %d conflicts: %w", t.Namespace, t.helmRelease(), res.Conflicts, ErrConflict)
}

// patch writes the request annotations, guarded by the resourceVersion hr
// was read at: a merge patch that carries metadata.resourceVersion fails
// with 409 Conflict when the object changed since.
func (a *Applier) patch(ctx context.Context, hr *unstructured.Unstructured, v string) error {
	body := map[string]any{"metadata": map[string]any{
		"resourceVersion": hr.GetResourceVersion(),
		"annotations": map[string]any{
			AnnotationRequestedAt:    v,
			AnnotationForceAt:        v,
			AnnotationHandledRequest: v,
		},
	}}
	data, err := json.Marshal(body)
	if err != nil {
		return err
	}
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(HelmReleaseKind)
	obj.SetNamespace(hr.GetNamespace())
	obj.SetName(hr.GetName())
	if err := a.Writer.Patch(ctx, obj, client.RawPatch(types.MergePatchType, data)); err != nil {
		return err
	}
	hr.SetResourceVersion(obj.GetResourceVersion())
	return nil
}

func (a *Applier) recordEvent(ctx context.Context, hr *unstructured.Unstructured, d Decision) error {
	var now time.Time
	if a.Now != nil {
		now = a.Now()
	}
	component := a.Component
	if component == "" {
		component = "sylva-planner"
	}
	ts := metav1.NewTime(now)
	ev := &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{
			Name:      fmt.Sprintf("%s.%x", hr.GetName(), now.UnixNano()),
			Namespace: hr.GetNamespace(),
		},
		InvolvedObject: corev1.ObjectReference{
			APIVersion:      HelmReleaseKind.GroupVersion().String(),
			Kind:            HelmReleaseKind.Kind,
			Namespace:       hr.GetNamespace(),
			Name:            hr.GetName(),
			UID:             hr.GetUID(),
			ResourceVersion: hr.GetResourceVersion(),
		},
		Reason:         EventReason,
		Message:        fmt.Sprintf("requested reconciliation %q (from the %s)", d.Request, d.Source),
		Type:           corev1.EventTypeNormal,
		Source:         corev1.EventSource{Component: component},
		FirstTimestamp: ts,
		LastTimestamp:  ts,
		Count:          1,
	}
	if err := a.Writer.Create(ctx, ev); err != nil {
		return fmt.Errorf("record Event on HelmRelease %s/%s: %w", hr.GetNamespace(), hr.GetName(), err)
	}
	return nil
}
