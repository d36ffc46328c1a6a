package status

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
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

// FluxObject is what this package needs of a Flux Kustomization or
// HelmRelease, as plain values. The live reader fills it from the API
// server; FluxObjectFromMap from an unstructured object.
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

// FluxObjectFromMap reads a Flux object from its unstructured form (the map
// a dynamic client or a JSON decoder returns). Errors name the field.
func FluxObjectFromMap(obj map[string]any) (*FluxObject, error) {
	f := &FluxObject{}
	var err error
	f.Kind, _ = obj["kind"].(string)
	if f.Name, err = str(obj, "metadata", "name"); err != nil {
		return nil, err
	}
	where := f.Kind + " " + f.Name
	if f.Namespace, err = str(obj, "metadata", "namespace"); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	if f.Generation, err = integer(obj, "metadata", "generation"); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	if f.ObservedGeneration, err = integer(obj, "status", "observedGeneration"); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	if v := nested(obj, "spec", "suspend"); v != nil {
		b, ok := v.(bool)
		if !ok {
			return nil, fmt.Errorf("%s: spec.suspend: want a boolean, got %s", where, kindOf(v))
		}
		f.Suspended = b
	}
	if f.LastHandledReconcileAt, err = str(obj, "status", "lastHandledReconcileAt"); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	if f.LastHandledForceAt, err = str(obj, "status", "lastHandledForceAt"); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	if v := nested(obj, "metadata", "annotations"); v != nil {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: metadata.annotations: want a map, got %s", where, kindOf(v))
		}
		f.Annotations = make(map[string]string, len(m))
		for _, k := range slices.Sorted(maps.Keys(m)) {
			s, ok := m[k].(string)
			if !ok {
				return nil, fmt.Errorf("%s: annotation %q: want a string, got %s", where, k, kindOf(m[k]))
			}
			f.Annotations[k] = s
		}
	}
	if v := nested(obj, "status", "conditions"); v != nil {
		list, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("%s: status.conditions: want a list, got %s", where, kindOf(v))
		}
		for i, item := range list {
			m, ok := item.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s: status.conditions[%d]: want an object, got %s", where, i, kindOf(item))
			}
			typ, _ := m["type"].(string)
			c := &Condition{}
			c.Status, _ = m["status"].(string)
			c.Reason, _ = m["reason"].(string)
			c.Message, _ = m["message"].(string)
			if c.ObservedGeneration, err = integer(m, "observedGeneration"); err != nil {
				return nil, fmt.Errorf("%s: status.conditions[%d]: %w", where, i, err)
			}
			switch typ {
			case "Ready":
				f.Ready = c
			case "Reconciling":
				f.Reconciling = c
			case "Stalled":
				f.Stalled = c
			}
		}
	}
	return f, nil
}

func str(obj map[string]any, path ...string) (string, error) {
	v := nested(obj, path...)
	if v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s: want a string, got %s", dotted(path), kindOf(v))
	}
	return s, nil
}

func integer(obj map[string]any, path ...string) (int64, error) {
	v := nested(obj, path...)
	switch x := v.(type) {
	case nil:
		return 0, nil
	case int64:
		return x, nil
	case int:
		return int64(x), nil
	case int32:
		return int64(x), nil
	case float64:
		if x != math.Trunc(x) || x < math.MinInt64 || x >= math.MaxInt64 {
			return 0, fmt.Errorf("%s: %v is not an integer", dotted(path), x)
		}
		return int64(x), nil
	case json.Number:
		n, err := x.Int64()
		if err != nil {
			return 0, fmt.Errorf("%s: %w", dotted(path), err)
		}
		return n, nil
	}
	return 0, fmt.Errorf("%s: want an integer, got %s", dotted(path), kindOf(v))
}

func dotted(path []string) string {
	out := ""
	for i, p := range path {
		if i > 0 {
			out += "."
		}
		out += p
	}
	return out
}
