package status

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	yamlv3 "go.yaml.in/yaml/v3"
	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/yamldoc"
)

// ErrNotFound is returned by Decode for a List with no ConfigMap in it.
var ErrNotFound = errors.New("no sylva-units-status ConfigMap")

// KeyError is a malformed value in the ConfigMap's data. Its message names
// the key and the value.
type KeyError struct {
	Key   string
	Value string
	Err   error
	// notString: the value is not a string (Value is then as written
	// when the input's text is known).
	notString bool
}

func (e *KeyError) Error() string {
	v := e.Value
	v = truncate(v, 60)
	return fmt.Sprintf("data key %q: value %q: %v", e.Key, v, e.Err)
}

func (e *KeyError) Unwrap() error { return e.Err }

// Decode decodes a ConfigMap from YAML or JSON bytes, as `kubectl get cm
// sylva-units-status -o yaml` prints it; a List is accepted when it holds the
// ConfigMap (a List with none gives an error wrapping ErrNotFound). Errors
// name the offending key; unknown keys are kept, never an error.
func Decode(data []byte) (*Status, error) {
	obs, err := DecodeObservation(data, DefaultHelmRelease)
	if err != nil {
		return nil, err
	}
	if obs.ConfigMap == nil {
		return nil, fmt.Errorf("%w in the input", ErrNotFound)
	}
	return obs.ConfigMap, nil
}

// errSeveralStatuses is DecodeObservation's refusal of a List that holds
// the status of several namespaces.
var errSeveralStatuses = fmt.Errorf("list holds several ConfigMaps named %s; give one namespace's", ConfigMapName)

// DecodeNamespaceObservation is DecodeObservation of the objects of
// namespace when the List holds those of several namespaces (the List
// status -A reads: kubectl get configmaps,kustomizations,helmreleases -A
// -o yaml), each object taken from that namespace only; of a List of one
// release, it is DecodeObservation. A namespace the List does not hold is
// an error naming those it holds.
func DecodeNamespaceObservation(data []byte, helmRelease, namespace string) (Observation, error) {
	obs, err := DecodeObservation(data, helmRelease)
	if !errors.Is(err, errSeveralStatuses) || namespace == "" {
		return obs, err
	}
	entries, ferr := DecodeFleet(data, helmRelease)
	if ferr != nil {
		return Observation{}, ferr
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if e.Namespace == namespace {
			if e.Err != nil {
				return Observation{}, e.Err
			}
			e.Observation.Namespace = namespace
			return e.Observation, nil
		}
		names = append(names, e.Namespace)
	}
	return Observation{}, fmt.Errorf("list holds the status of namespaces %s, not of -n %s; give -n one of them", strings.Join(names, ", "), namespace)
}

// DecodeObservation decodes a ConfigMap, or a List (`kubectl get
// cm,kustomization,helmrelease -o yaml`) that may hold the
// sylva-units-status ConfigMap, the sylva-units-status Kustomization and the
// HelmRelease named helmRelease. Objects of other kinds or names in a List
// are ignored. FluxRead is set when the List holds a Kustomization or a
// HelmRelease, so that their absence reads as absent rather than unknown.
// An empty List gives an empty Observation (a fresh install).
func DecodeObservation(data []byte, helmRelease string) (Observation, error) {
	obs, err := decodeObservation(data, helmRelease)
	var ke *KeyError
	if errors.As(err, &ke) && ke.notString {
		// The JSON the object went through holds 1.1 for a YAML 1.10:
		// name the value as written.
		if w, ok := writtenScalar(data, ke.Key); ok {
			ke.Value = w
		}
	}
	return obs, err
}

// writtenScalar is the text of the first non-string scalar written under
// a "data" map's key in a YAML (or JSON) document.
func writtenScalar(data []byte, key string) (string, bool) {
	var doc yamlv3.Node
	if yamlv3.Unmarshal(data, &doc) != nil {
		return "", false
	}
	var walk func(n *yamlv3.Node) (string, bool)
	walk = func(n *yamlv3.Node) (string, bool) {
		if n.Kind == yamlv3.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				if k.Value == "data" && v.Kind == yamlv3.MappingNode {
					for j := 0; j+1 < len(v.Content); j += 2 {
						if dk, dv := v.Content[j], v.Content[j+1]; dk.Value == key && dv.Kind == yamlv3.ScalarNode && dv.ShortTag() != "!!str" {
							return dv.Value, true
						}
					}
				}
			}
		}
		for _, c := range n.Content {
			if w, ok := walk(c); ok {
				return w, true
			}
		}
		return "", false
	}
	return walk(&doc)
}

func decodeObservation(data []byte, helmRelease string) (Observation, error) {
	if len(yamldoc.Split(data)) > 1 {
		return Observation{}, errors.New("input holds several YAML documents; give one ConfigMap or a List (kubectl get … -o yaml prints one)")
	}
	tagged := taggedData(data)
	// Strict: a key given twice (two sylva_release entries in data, say)
	// is an error, not the last one silently kept.
	j, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return Observation{}, fmt.Errorf("input is not YAML or JSON with each key once: %w", err)
	}
	var top any
	if err := json.Unmarshal(j, &top); err != nil {
		return Observation{}, fmt.Errorf("input is not YAML or JSON: %w", err)
	}
	obj, ok := top.(map[string]any)
	if !ok {
		return Observation{}, fmt.Errorf("input is not a Kubernetes object (got %s)", kindOf(top))
	}
	kind, _ := obj["kind"].(string)
	if kind == "List" || strings.HasSuffix(kind, "List") {
		return decodeList(obj, helmRelease, tagged)
	}
	if kind != "ConfigMap" {
		if kind == "" {
			return Observation{}, errors.New("input is not a ConfigMap: no kind")
		}
		return Observation{}, fmt.Errorf("input is a %s, not a ConfigMap", kind)
	}
	cm, err := statusOf(obj, tagged)
	if err != nil {
		return Observation{}, err
	}
	return Observation{Namespace: cm.Namespace, ConfigMap: cm, HelmReleaseName: helmRelease}, nil
}

// taggedData finds, in the status ConfigMaps of data (a ConfigMap given
// alone, or those named sylva-units-status in a List), a data value
// written with a YAML tag other than !!str, such as `!!binary MS40`: the
// YAML to JSON conversion would read it as the string "1.4", while the
// data kubectl prints and the chart compares are plain strings. It returns
// the refusal (a *KeyError naming the key and the value as written) of
// each such ConfigMap, by namespace; input that is not YAML gives none
// (the decoder says what is wrong with it).
func taggedData(data []byte) map[string]error {
	var doc yamlv3.Node
	// Every tag starts with '!': most inputs need no second parse.
	if !bytes.Contains(data, []byte("!")) || yamlv3.Unmarshal(data, &doc) != nil || len(doc.Content) != 1 {
		return nil
	}
	out := map[string]error{}
	var walk func(n *yamlv3.Node, root bool)
	walk = func(n *yamlv3.Node, root bool) {
		if n.Kind == yamlv3.MappingNode && mappingValue(n, "kind") == "ConfigMap" {
			meta := mapping(n, "metadata")
			if !root && mappingValue(meta, "name") != ConfigMapName {
				return
			}
			d := mapping(n, "data")
			for i := 0; d != nil && i+1 < len(d.Content); i += 2 {
				k, v := d.Content[i], d.Content[i+1]
				if v.Kind == yamlv3.ScalarNode && v.Style&yamlv3.TaggedStyle != 0 && v.ShortTag() != "!!str" {
					ns := mappingValue(meta, "namespace")
					if out[ns] == nil {
						out[ns] = &KeyError{Key: k.Value, Value: v.Tag + " " + v.Value, Err: fmt.Errorf(
							"the value is tagged %s: a ConfigMap's data holds plain strings, which kubectl prints untagged and the chart compares as written; write the string itself, quoted", v.Tag)}
					}
				}
			}
			return
		}
		for _, c := range n.Content {
			walk(c, false)
		}
	}
	walk(doc.Content[0], true)
	return out
}

// statusOf is statusFromMap of obj, refused when taggedData found a
// tagged value in it (tagged is taggedData's result for the input).
func statusOf(obj map[string]any, tagged map[string]error) (*Status, error) {
	ns, _ := nested(obj, "metadata", "namespace").(string)
	if err := tagged[ns]; err != nil {
		return nil, err
	}
	return statusFromMap(obj)
}

// mapping is the mapping under key in the mapping n, or nil.
func mapping(n *yamlv3.Node, key string) *yamlv3.Node {
	if n == nil || n.Kind != yamlv3.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key && n.Content[i+1].Kind == yamlv3.MappingNode {
			return n.Content[i+1]
		}
	}
	return nil
}

// mappingValue is the scalar under key in the mapping n, or "".
func mappingValue(n *yamlv3.Node, key string) string {
	if n == nil || n.Kind != yamlv3.MappingNode {
		return ""
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key && n.Content[i+1].Kind == yamlv3.ScalarNode {
			return n.Content[i+1].Value
		}
	}
	return ""
}

func decodeList(list map[string]any, helmRelease string, tagged map[string]error) (Observation, error) {
	raw, ok := list["items"]
	if !ok || raw == nil {
		return Observation{}, nil
	}
	items, ok := raw.([]any)
	if !ok {
		return Observation{}, fmt.Errorf("list items: want a list, got %s", kindOf(raw))
	}
	obs := Observation{HelmReleaseName: helmRelease}
	var configMaps []map[string]any
	var err error
	for i, it := range items {
		obj, ok := it.(map[string]any)
		if !ok {
			return Observation{}, fmt.Errorf("list item %d: want an object, got %s", i, kindOf(it))
		}
		kind, _ := obj["kind"].(string)
		name, _ := nested(obj, "metadata", "name").(string)
		switch {
		case kind == "ConfigMap":
			configMaps = append(configMaps, obj)
		case kind == "Kustomization" && strings.HasPrefix(apiVersion(obj), "kustomize.toolkit.fluxcd.io/"):
			obs.FluxRead = true
			if name == KustomizationName {
				if obs.Kustomization, err = FluxObjectFromMap(obj); err != nil {
					return Observation{}, fmt.Errorf("list item %d: %w", i, err)
				}
			}
		case kind == "HelmRelease" && strings.HasPrefix(apiVersion(obj), "helm.toolkit.fluxcd.io/"):
			obs.FluxRead = true
			if name == helmRelease {
				if obs.HelmRelease, err = FluxObjectFromMap(obj); err != nil {
					return Observation{}, fmt.Errorf("list item %d: %w", i, err)
				}
			}
		}
	}
	// Only the ConfigMap named sylva-units-status is the status, as in a
	// cluster: a List without it (kube-root-ca.crt and the Flux objects,
	// say) has no status ConfigMap. A List with several is several
	// namespaces' (DecodeNamespaceObservation picks one), or, in one
	// namespace, an input no cluster gives (DecodeFleet says so).
	var pick map[string]any
	for _, cm := range configMaps {
		if name, _ := nested(cm, "metadata", "name").(string); name == ConfigMapName {
			if pick != nil {
				return Observation{}, errSeveralStatuses
			}
			pick = cm
		}
	}
	if pick != nil {
		cm, err := statusOf(pick, tagged)
		if err != nil {
			return Observation{}, err
		}
		obs.ConfigMap = cm
		obs.Namespace = cm.Namespace
	}
	if obs.Namespace == "" && obs.Kustomization != nil {
		obs.Namespace = obs.Kustomization.Namespace
	}
	return obs, nil
}

func statusFromMap(obj map[string]any) (*Status, error) {
	if av := apiVersion(obj); av != "v1" && av != "" {
		return nil, fmt.Errorf("ConfigMap apiVersion %q, want v1", av)
	}
	s := &Status{}
	var ok bool
	if md := nested(obj, "metadata"); md != nil {
		if _, ok = md.(map[string]any); !ok {
			return nil, fmt.Errorf("ConfigMap metadata: want an object, got %s", kindOf(md))
		}
	}
	for _, f := range []struct {
		key string
		to  *string
	}{{"name", &s.Name}, {"namespace", &s.Namespace}, {"uid", &s.UID}, {"resourceVersion", &s.ResourceVersion}} {
		if v := nested(obj, "metadata", f.key); v != nil {
			if *f.to, ok = v.(string); !ok {
				return nil, fmt.Errorf("ConfigMap metadata.%s: want a string, got %s", f.key, kindOf(v))
			}
		}
	}
	writers, err := dataWriters(nested(obj, "metadata", "managedFields"))
	if err != nil {
		return nil, err
	}
	s.DataWriters = writers
	raw, present := obj["data"]
	if !present || raw == nil {
		return s, nil
	}
	dataMap, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("ConfigMap %s data: want a map of strings, got %s", s.Name, kindOf(raw))
	}
	data := make(map[string]string, len(dataMap))
	for _, k := range slices.Sorted(maps.Keys(dataMap)) {
		str, ok := dataMap[k].(string)
		if !ok {
			return nil, &KeyError{Key: k, Value: fmt.Sprint(dataMap[k]), notString: true, Err: fmt.Errorf("want a string, got %s; quote it (a ConfigMap holds only strings)", kindOf(dataMap[k]))}
		}
		data[k] = str
	}
	if err := s.decodeData(data); err != nil {
		return nil, err
	}
	return s, nil
}

// decodeData fills s from a ConfigMap's data, in key order so that the
// first error is always the same one, then fills the InfoKeys the data
// lacks from the YAML of additional-info.
func (s *Status) decodeData(data map[string]string) error {
	for _, k := range slices.Sorted(maps.Keys(data)) {
		if err := s.decodeKey(k, data[k]); err != nil {
			return err
		}
	}
	info, dup := additionalInfo(data[KeyAdditionalInfo])
	if dup != "" {
		return &KeyError{Key: KeyAdditionalInfo + ": " + dup, Value: info[dup], Err: errors.New("the key is given more than once; a status names each key once")}
	}
	for _, k := range InfoKeys {
		v, ok := info[k]
		if d, inData := data[k]; inData && ok && strings.TrimSpace(d) != strings.TrimSpace(v) {
			s.Contradicts = append(s.Contradicts, fmt.Sprintf("%s: data %q, %s %q", k, d, KeyAdditionalInfo, v))
		}
		if _, inData := data[k]; inData || !ok {
			continue
		}
		if err := s.decodeKey(k, v); err != nil {
			var ke *KeyError
			if errors.As(err, &ke) {
				ke.Key = KeyAdditionalInfo + ": " + k
			}
			return err
		}
		s.FromAdditionalInfo = append(s.FromAdditionalInfo, k)
	}
	return nil
}

// additionalInfo returns the scalar entries of additional-info read as a
// YAML map, as written (an unquoted 1.10 stays "1.10"). Text that is not
// a YAML map gives none: additional-info may be free text. dup is the
// first of InfoKeys the map gives more than once (YAML would keep the last
// one silently).
func additionalInfo(v string) (out map[string]string, dup string) {
	var doc yamlv3.Node
	if strings.TrimSpace(v) == "" || yamlv3.Unmarshal([]byte(v), &doc) != nil || len(doc.Content) != 1 {
		return nil, ""
	}
	m := doc.Content[0]
	if m.Kind != yamlv3.MappingNode {
		return nil, ""
	}
	out = map[string]string{}
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, val := m.Content[i], m.Content[i+1]
		if k.Kind == yamlv3.ScalarNode && seen[k.Value] && dup == "" && slices.Contains(InfoKeys, k.Value) {
			dup = k.Value
		}
		seen[k.Value] = true
		if k.Kind == yamlv3.ScalarNode && val.Kind == yamlv3.ScalarNode && val.ShortTag() != "!!null" {
			out[k.Value] = val.Value
		}
	}
	return out, dup
}

// decodeKey decodes one data key into s.
func (s *Status) decodeKey(k, v string) error {
	var err error
	switch k {
	case KeySylvaRelease:
		s.SylvaRelease, err = decodeRelease(v)
	case KeyAdditionalReconciliationRequired:
		var b bool
		b, err = decodeBool(v)
		s.AdditionalReconciliationRequired = &b
	case KeyReleaseRevision:
		s.ReleaseRevision = v
	case KeyChartVersion:
		s.ChartVersion = v
	case KeyReleaseTime:
		s.ReleaseTime = v
	case KeyValuesChecksum:
		s.ValuesChecksum = v
	case KeyOneShotUnits:
		s.OneShotUnits, err = decodeOneShot(v)
	case KeyEnabledUnits:
		s.EnabledUnits, err = decodeUnitList(v)
	case KeyAdditionalInfo:
		s.AdditionalInfo = v
	case KeySylvaBranch:
		s.SylvaBranch = v
	case KeyTransitionFrom:
		s.TransitionFrom = v
	case KeyTransitionPass:
		s.TransitionPass = v
	default:
		if s.Unknown == nil {
			s.Unknown = map[string]string{}
		}
		s.Unknown[k] = v
	}
	if err != nil {
		return &KeyError{Key: k, Value: v, Err: err}
	}
	return nil
}

// decodeRelease reads sylva_release. The chart compares the value as a
// string ("1.4" is not "1.4\n"), so white space around it is refused, not
// trimmed: a status the chart would not match must not read as a release.
func decodeRelease(v string) (semver.Version, error) {
	if t := strings.TrimSpace(v); t != v {
		return semver.Version{}, fmt.Errorf("white space around the release: the chart compares the string as written, which is not %q; write %q", t, t)
	}
	r, err := semver.Parse(v)
	if err != nil {
		return semver.Version{}, fmt.Errorf("not a Sylva release such as \"1.6\" or \"1.6-pre\": %w", err)
	}
	return r, nil
}

func decodeBool(v string) (bool, error) {
	switch strings.TrimSpace(v) {
	case "true", "True", "TRUE":
		return true, nil
	case "false", "False", "FALSE":
		return false, nil
	}
	return false, errors.New(`want "true" or "false"`)
}

// decodeOneShot reads the value as the chart's fromYaml does
// (sigs.k8s.io/yaml, YAML 1.1).
func decodeOneShot(v string) (map[string]string, error) {
	if strings.TrimSpace(v) == "" {
		return nil, nil
	}
	var m any
	if err := yaml.Unmarshal([]byte(v), &m); err != nil {
		return nil, fmt.Errorf("want a YAML map of unit to state: %w", err)
	}
	if m == nil {
		return nil, nil
	}
	mm, ok := m.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("want a YAML map of unit to state, got %s", kindOf(m))
	}
	out := make(map[string]string, len(mm))
	for _, unit := range slices.Sorted(maps.Keys(mm)) {
		sv, ok := scalar(mm[unit])
		if !ok {
			return nil, fmt.Errorf("unit %q: want a state such as \"done\", got %s", unit, kindOf(mm[unit]))
		}
		out[unit] = sv
	}
	return out, nil
}

// decodeUnitList accepts a YAML list, a YAML map of unit to enabled flag, or
// names separated by commas or spaces: the key's format is not settled
// upstream.
func decodeUnitList(v string) ([]string, error) {
	t := strings.TrimSpace(v)
	if t == "" {
		return nil, nil
	}
	var names []string
	var list []string
	var flags map[string]bool
	var parsed any
	switch {
	case yaml.Unmarshal([]byte(t), &list) == nil:
		for i, n := range list {
			if n == "" {
				return nil, fmt.Errorf("item %d: empty unit name", i)
			}
		}
		names = list
	case yaml.Unmarshal([]byte(t), &flags) == nil:
		for _, unit := range slices.Sorted(maps.Keys(flags)) {
			if flags[unit] {
				names = append(names, unit)
			}
		}
	case yaml.Unmarshal([]byte(t), &parsed) == nil && parsed != nil && !isString(parsed):
		return nil, fmt.Errorf("want a list of unit names, got %s", kindOf(parsed))
	default:
		names = strings.FieldsFunc(t, func(r rune) bool {
			return r == ',' || r == ' ' || r == '\n' || r == '\t' || r == '\r'
		})
	}
	slices.Sort(names)
	return slices.Compact(names), nil
}

func isString(v any) bool {
	_, ok := v.(string)
	return ok
}
