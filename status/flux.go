package status

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	fluxmeta "github.com/fluxcd/pkg/apis/meta"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Condition is one status condition of a Flux object, as plain values.
type Condition struct {
	// Status is "True", "False" or "Unknown".
	Status  string `json:"status"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
	// ObservedGeneration is the generation the condition was computed for.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// IsTrue reports whether c is present and True.
func (c *Condition) IsTrue() bool { return c != nil && c.Status == "True" }

// FluxObject is what the readiness rule needs of a Flux Kustomization or
// HelmRelease, as plain values (and the JSON the status command prints).
// FromHelmRelease and FromKustomization fill it from the typed objects;
// FluxObjectFromMap from an unstructured one, through the same types.
type FluxObject struct {
	Kind      string `json:"kind"`
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
	// Generation is metadata.generation; ObservedGeneration is
	// status.observedGeneration.
	Generation         int64 `json:"generation"`
	ObservedGeneration int64 `json:"observedGeneration"`
	// Suspended is spec.suspend.
	Suspended bool `json:"suspended"`
	// Ready, Reconciling and Stalled are the conditions of those types, nil
	// when absent.
	Ready       *Condition `json:"ready,omitempty"`
	Reconciling *Condition `json:"reconciling,omitempty"`
	Stalled     *Condition `json:"stalled,omitempty"`
	// LastHandledReconcileAt is status.lastHandledReconcileAt: the last
	// reconcile request seen, whether or not it succeeded.
	LastHandledReconcileAt string `json:"lastHandledReconcileAt,omitempty"`
	// LastHandledForceAt is status.lastHandledForceAt (HelmRelease only).
	LastHandledForceAt string `json:"lastHandledForceAt,omitempty"`
	// Annotations are metadata.annotations.
	Annotations map[string]string `json:"annotations,omitempty"`
}

// ReadyAtGeneration reports whether f is Ready=True for its current
// generation: status.observedGeneration and the Ready condition's own
// observedGeneration (when set) both equal metadata.generation. A suspended
// object can show a stale Ready=True at an older generation.
func (f *FluxObject) ReadyAtGeneration() bool {
	if f == nil || !f.Ready.IsTrue() {
		return false
	}
	if f.ObservedGeneration != f.Generation {
		return false
	}
	return f.Ready.ObservedGeneration == 0 || f.Ready.ObservedGeneration == f.Generation
}

// Kinds of the Flux objects read.
const (
	KindHelmRelease   = helmv2.HelmReleaseKind
	KindKustomization = kustomizev1.KustomizationKind
)

// FromHelmRelease returns what the readiness rule needs of hr.
func FromHelmRelease(hr *helmv2.HelmRelease) *FluxObject {
	f := fromObject(KindHelmRelease, &hr.ObjectMeta, hr.Status.ObservedGeneration, hr.Spec.Suspend, hr.Status.Conditions)
	f.LastHandledReconcileAt = hr.Status.LastHandledReconcileAt
	f.LastHandledForceAt = hr.Status.LastHandledForceAt
	return f
}

// FromKustomization returns what the readiness rule needs of ks.
func FromKustomization(ks *kustomizev1.Kustomization) *FluxObject {
	f := fromObject(KindKustomization, &ks.ObjectMeta, ks.Status.ObservedGeneration, ks.Spec.Suspend, ks.Status.Conditions)
	f.LastHandledReconcileAt = ks.Status.LastHandledReconcileAt
	return f
}

func fromObject(kind string, m *metav1.ObjectMeta, observed int64, suspend bool, conds []metav1.Condition) *FluxObject {
	f := &FluxObject{
		Kind: kind, Name: m.Name, Namespace: m.Namespace,
		Generation: m.Generation, ObservedGeneration: observed, Suspended: suspend,
		Ready:       condition(conds, fluxmeta.ReadyCondition),
		Reconciling: condition(conds, fluxmeta.ReconcilingCondition),
		Stalled:     condition(conds, fluxmeta.StalledCondition),
	}
	if len(m.Annotations) > 0 {
		f.Annotations = maps.Clone(m.Annotations)
	}
	return f
}

func condition(conds []metav1.Condition, typ string) *Condition {
	c := apimeta.FindStatusCondition(conds, typ)
	if c == nil {
		return nil
	}
	return &Condition{Status: string(c.Status), Reason: c.Reason, Message: c.Message, ObservedGeneration: c.ObservedGeneration}
}

// FluxObjectFromMap reads a HelmRelease or a Kustomization from its
// unstructured form (the map a dynamic client or a YAML decoder returns),
// through helm-controller's and kustomize-controller's API types. Errors
// name the object and the field.
func FluxObjectFromMap(obj map[string]any) (*FluxObject, error) {
	kind, _ := obj["kind"].(string)
	name, _ := nested(obj, "metadata", "name").(string)
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", kind, name, err)
	}
	switch kind {
	case KindHelmRelease:
		var hr helmv2.HelmRelease
		if err := json.Unmarshal(data, &hr); err != nil {
			return nil, fmt.Errorf("%s %s: %w", kind, name, fieldError(err))
		}
		return FromHelmRelease(&hr), nil
	case KindKustomization:
		var ks kustomizev1.Kustomization
		if err := json.Unmarshal(data, &ks); err != nil {
			return nil, fmt.Errorf("%s %s: %w", kind, name, fieldError(err))
		}
		return FromKustomization(&ks), nil
	}
	return nil, fmt.Errorf("%s %s: want a %s or a %s", kind, name, KindHelmRelease, KindKustomization)
}

// fieldError says which field a JSON type error is about, as a path
// ("metadata.generation: want int64, got string").
func fieldError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return fmt.Errorf("%s: want %s, got %s", te.Field, te.Type, te.Value)
	}
	return err
}

// FromConfigMap decodes a live sylva-units-status ConfigMap by Decode's
// rule (statusOf), so that a ConfigMap read from the API server and one
// read from a file give the same Status and the same errors; its UID and data identify the
// write of the status (Status.Write), its managedFields who wrote the data
// (Status.DataWriters). On a
// malformed value it returns the error and no Status.
func FromConfigMap(cm *corev1.ConfigMap) (*Status, error) {
	doc := map[string]any{
		"apiVersion": "v1",
		"kind":       "ConfigMap",
		"metadata": map[string]any{
			"name": cm.Name, "namespace": cm.Namespace,
			"uid": string(cm.UID), "resourceVersion": cm.ResourceVersion,
		},
		"data": cm.Data,
	}
	if len(cm.ManagedFields) > 0 {
		doc["metadata"].(map[string]any)["managedFields"] = cm.ManagedFields
	}
	// The object as JSON decodes it, read by the rule Decode reads a
	// file with; a typed ConfigMap holds strings only, each key once, so
	// the strict YAML pass of a file (the larger part of the cost across
	// a fleet) has nothing to find.
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	var obj map[string]any
	if err := json.Unmarshal(b, &obj); err != nil {
		return nil, err
	}
	return statusOf(obj, nil)
}
