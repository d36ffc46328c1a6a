package status

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// A request derived from the status content (RequestOf) is a hash of
// values anyone who may read the status ConfigMap can read, and often guess
// before the chart writes them (the next release revision, unchanged
// values). Passed on as it is, whoever may annotate the HelmRelease could
// write it there in advance: the request would then be found handled, or
// helm-controller would have run it before the status asked for it, and the
// pass would be lost.
//
// So the token passed on for such a request (requestedAt and forceAt) is
// bound to the chart's write of the status data: a hash of the request
// value, the ConfigMap's UID (assigned by the API server when the
// ConfigMap is created) and every key of the data the chart writes,
// release-time among them (the time of the Helm render, to the
// nanosecond). A write of the ConfigMap's metadata alone (a label, an
// annotation, a mutation by an admission webhook, a backup tool's
// relabelling) changes its resourceVersion but not the data: the token,
// and so the pass, stay the same. Only what proves the token was passed on
// counts as handled: the token in requestedAt or in
// status.lastHandledReconcileAt (the latter written by helm-controller
// only). The planner's tracking annotation keeps the request value itself
// and is believed only beside that proof. status, reconcile and the
// controller read the same ConfigMap and bind the same token, so that they
// read a pass alike and a request is passed on once.
//
// A pass is requested by the chart's own write of the status data: the
// field manager kustomize-controller (ChartWriter) applying the
// sylva-units-status unit. When the ConfigMap's managedFields are known (a
// live read, or a file printed with --show-managed-fields), a key of the
// status written by any other field manager (kubectl edit, patch or apply,
// another controller) makes the status "not the chart's": it requests no
// pass, and the readers say so (ForeignWrite).

// ChartWriter is the field manager of the chart's write of the status
// data: kustomize-controller, applying the sylva-units-status Kustomization
// (server-side apply, as Flux applies every object).
const ChartWriter = "kustomize-controller"

// chartData is the part of s the chart writes, in a fixed order: what the
// token of a derived request is bound to, besides the ConfigMap's UID.
type chartData struct {
	SylvaRelease   string            `json:"r,omitempty"`
	Required       string            `json:"a,omitempty"`
	Revision       string            `json:"v,omitempty"`
	ChartVersion   string            `json:"c,omitempty"`
	ReleaseTime    string            `json:"t,omitempty"`
	ValuesChecksum string            `json:"s,omitempty"`
	OneShotUnits   map[string]string `json:"o,omitempty"`
	EnabledUnits   []string          `json:"e,omitempty"`
	AdditionalInfo string            `json:"i,omitempty"`
	SylvaBranch    string            `json:"b,omitempty"`
	TransitionFrom string            `json:"f,omitempty"`
	TransitionPass string            `json:"p,omitempty"`
}

// write identifies the chart's write of the status ConfigMap s: its UID and
// a digest of the keys of its data the chart writes; empty when s is nil or
// its UID is unknown (a file that does not carry it). Its metadata
// (resourceVersion, labels, annotations) is no part of it.
func (s *Status) write() string {
	if s == nil || s.UID == "" {
		return ""
	}
	d := chartData{
		Revision: s.ReleaseRevision, ChartVersion: s.ChartVersion, ReleaseTime: s.ReleaseTime,
		ValuesChecksum: s.ValuesChecksum, OneShotUnits: s.OneShotUnits, EnabledUnits: s.EnabledUnits,
		AdditionalInfo: s.AdditionalInfo, SylvaBranch: s.SylvaBranch,
		TransitionFrom: s.TransitionFrom, TransitionPass: s.TransitionPass,
	}
	if !s.SylvaRelease.IsZero() {
		d.SylvaRelease = s.SylvaRelease.String()
	}
	if s.AdditionalReconciliationRequired != nil {
		d.Required = fmt.Sprint(*s.AdditionalReconciliationRequired)
	}
	// encoding/json sorts map keys: the same data gives the same bytes.
	b, _ := json.Marshal(d)
	sum := sha256.Sum256(b)
	return s.UID + "/" + hex.EncodeToString(sum[:])
}

// Write identifies the chart's write of the status data (the ConfigMap's
// UID and a digest of the keys the chart writes), so that a caller can
// tell a new write of the status from a write of its metadata alone; empty
// when s is nil or its UID is unknown.
func (s *Status) Write() string { return s.write() }

// ForeignWrite says which keys of the status data a field manager other
// than ChartWriter wrote, and who: "additional_reconciliation_required
// (kubectl-patch)"; empty when the chart wrote every key it writes, or
// when the managedFields are unknown (DataWriters nil). A key present in
// the data that no field manager owns counts as foreign too.
func (s *Status) ForeignWrite() string {
	if s == nil || s.DataWriters == nil {
		return ""
	}
	var out []string
	for _, k := range s.chartKeys() {
		ws := s.DataWriters[k]
		if slices.Contains(ws, ChartWriter) {
			continue
		}
		who := "no field manager"
		if len(ws) > 0 {
			who = strings.Join(ws, ", ")
		}
		out = append(out, k+" ("+who+")")
	}
	return strings.Join(out, ", ")
}

// chartKeys are the keys of the data, among those the chart writes and
// this package decodes, that s holds in its data (not in additional-info),
// sorted.
func (s *Status) chartKeys() []string {
	var keys []string
	has := func(k string, present bool) {
		if present && !slices.Contains(s.FromAdditionalInfo, k) {
			keys = append(keys, k)
		}
	}
	has(KeySylvaRelease, !s.SylvaRelease.IsZero())
	has(KeyAdditionalReconciliationRequired, s.AdditionalReconciliationRequired != nil)
	has(KeyReleaseRevision, s.ReleaseRevision != "")
	has(KeyChartVersion, s.ChartVersion != "")
	has(KeyReleaseTime, s.ReleaseTime != "")
	has(KeyValuesChecksum, s.ValuesChecksum != "")
	has(KeyOneShotUnits, len(s.OneShotUnits) > 0)
	has(KeyEnabledUnits, len(s.EnabledUnits) > 0)
	has(KeyAdditionalInfo, s.AdditionalInfo != "")
	has(KeySylvaBranch, s.SylvaBranch != "")
	has(KeyTransitionFrom, s.TransitionFrom != "")
	has(KeyTransitionPass, s.TransitionPass != "")
	slices.Sort(keys)
	return keys
}

// dataWriters reads, from a ConfigMap's metadata.managedFields as a YAML
// or JSON decoder returns them, the field managers of each key of its
// data: key → sorted managers. Nil when managedFields is absent; an error
// names what does not decode.
func dataWriters(v any) (map[string][]string, error) {
	if v == nil {
		return nil, nil
	}
	entries, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("ConfigMap metadata.managedFields: want a list, got %s", kindOf(v))
	}
	out := map[string][]string{}
	for i, e := range entries {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("ConfigMap metadata.managedFields[%d]: want an object, got %s", i, kindOf(e))
		}
		manager, _ := m["manager"].(string)
		data, _ := nested(m, "fieldsV1", "f:data").(map[string]any)
		for f := range data {
			k, ok := strings.CutPrefix(f, "f:")
			if !ok {
				continue
			}
			if !slices.Contains(out[k], manager) {
				out[k] = append(out[k], manager)
			}
		}
	}
	for _, k := range slices.Collect(maps.Keys(out)) {
		slices.Sort(out[k])
	}
	return out, nil
}

// boundRequest is the token passed on for request value v derived from the
// status written as write: DerivedRequestPrefix and the first 16 hex digits
// of the SHA-256 of both.
func boundRequest(v, write string) string {
	sum := sha256.Sum256([]byte(v + "\n" + write))
	return DerivedRequestPrefix + hex.EncodeToString(sum[:])[:16]
}

// vouched says what, on hr, shows that request value was passed on as
// token (handledBy, empty when nothing does), and whether helm-controller
// picked the token up (status.lastHandledReconcileAt equals it). When token
// is value itself, any of the tracking annotations, requestedAt or
// status.lastHandledReconcileAt equal to it shows it. When token is bound
// to the status write, value counts only where the token proves it was
// passed on after the status asked: value in requestedAt or
// status.lastHandledReconcileAt was written before, by someone else, and
// the planner's tracking annotation holding value is believed only beside
// the token in requestedAt or status.lastHandledReconcileAt.
// sylva-units-operator's annotation, which the controller may not write,
// counts as it is. vouched only reads hr, so the rule sees each
// observation once and the same way.
func vouched(hr *FluxObject, value, token string) (handledBy string, pickedUp bool) {
	if hr == nil || value == "" {
		return "", false
	}
	requestedAt := hr.Annotations[AnnotationReconcileRequestedAt]
	tracked := hr.Annotations[AnnotationHandledRequest]
	pickedUp = hr.LastHandledReconcileAt == token
	proof := token == value || requestedAt == token || pickedUp
	switch {
	case tracked == token, tracked == value && proof:
		handledBy = "planner annotation " + AnnotationHandledRequest
	case hr.Annotations[AnnotationOperatorHandled] == value:
		handledBy = "sylva-units-operator annotation " + AnnotationOperatorHandled
	case requestedAt == token:
		handledBy = "annotation " + AnnotationReconcileRequestedAt
	case pickedUp:
		handledBy = "status.lastHandledReconcileAt"
	}
	return handledBy, pickedUp
}
