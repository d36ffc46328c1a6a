package units

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"strings"

	"sigs.k8s.io/yaml"
)

// File is one values file: Name identifies it in errors (the path as the
// user gave it), Data is its content.
type File struct {
	Name string
	Data []byte
}

// Merge decodes values files and merges them with MergeValues: the first
// is the base (a chart's values.yaml), the others are merged over it as
// `helm -f` merges its files. An empty file is an empty map.
func Merge(files ...File) (map[string]any, error) {
	docs := make([]map[string]any, 0, len(files))
	for _, f := range files {
		// One strict read: the document, or a key given twice.
		var doc any
		if err := yaml.UnmarshalStrict(f.Data, &doc); err != nil {
			if strictDuplicate.MatchString(err.Error()) {
				return nil, fmt.Errorf("values file %s: %s", f.Name, duplicateKey(err))
			}
			return nil, fmt.Errorf("values file %s is not valid YAML: %w", f.Name, cleanYAMLError(err))
		}
		switch m := doc.(type) {
		case nil:
			docs = append(docs, map[string]any{})
		case map[string]any:
			docs = append(docs, m)
		default:
			return nil, fmt.Errorf("values file %s holds %s, not a map of values; pass a sylva-units values file", f.Name, describe(doc))
		}
	}
	return MergeValues(docs...), nil
}

// MergeValues merges values documents in order the way Helm combines a
// chart's values.yaml (the first document) with `helm -f b.yaml -f c.yaml`
// (the others), and helm-controller its chart's values with valuesFrom and
// values: the later documents are merged together first (MergeMaps: a map
// merged key by key into a map at the same path, anything else replacing,
// nulls kept), then coalesced with the first, where a null deletes the key
// the first document sets, as Helm's chartutil.CoalesceValues does. A null
// for a key the first document does not set stays null (Build reads it as
// absent). No input is modified; the result shares maps with the inputs,
// so a caller that changes it copies it first.
func MergeValues(docs ...map[string]any) map[string]any {
	if len(docs) == 0 {
		return map[string]any{}
	}
	user := map[string]any{}
	for _, d := range docs[1:] {
		user = MergeMaps(user, d)
	}
	return coalesce(user, docs[0], true)
}

// coalesce returns user coalesced with defaults, with the rules of Helm's
// chartutil coalesceValues (top level: a null deletes the key when the
// defaults have it) and coalesceTablesFullKey (below: a null deletes the
// key when the default is not null). Neither input is modified.
func coalesce(user, defaults map[string]any, top bool) map[string]any {
	out := make(map[string]any, len(user)+len(defaults))
	maps.Copy(out, user)
	for k, dv := range defaults {
		uv, ok := user[k]
		switch {
		case !ok:
			out[k] = dv
		case uv == nil:
			if top || dv != nil {
				delete(out, k)
			}
		default:
			um, uok := uv.(map[string]any)
			dm, dok := dv.(map[string]any)
			if uok && dok {
				out[k] = coalesce(um, dm, false)
			}
		}
	}
	return out
}

// MergeMaps is how `helm -f` merges its files before coalescing them with
// the chart's defaults (Helm's pkg/cli/values mergeMaps): b over a, a map
// merged key by key into a map, anything else replacing, nulls kept.
// Neither input is modified.
func MergeMaps(a, b map[string]any) map[string]any {
	out := make(map[string]any, len(a))
	maps.Copy(out, a)
	for k, v := range b {
		if vm, ok := v.(map[string]any); ok {
			if bv, ok := out[k]; ok {
				if bm, ok := bv.(map[string]any); ok {
					out[k] = MergeMaps(bm, vm)
					continue
				}
			}
		}
		out[k] = v
	}
	return out
}

// mergeAppend merges src into dst the way sylva-units builds a unit
// (its "merge-append" helper, applied to unit_definition_defaults, the
// unit's templates in order, then the unit's own fields): two maps merge
// recursively, two lists are concatenated, and any other value of src,
// null included, replaces dst's. dst is modified; src is copied, never
// aliased.
func mergeAppend(dst, src map[string]any) {
	for k, sv := range src {
		dv, ok := dst[k]
		if !ok {
			dst[k] = deepCopy(sv)
			continue
		}
		switch s := sv.(type) {
		case map[string]any:
			if d, ok := dv.(map[string]any); ok {
				mergeAppend(d, s)
				continue
			}
		case []any:
			if d, ok := dv.([]any); ok {
				l := make([]any, 0, len(d)+len(s))
				dst[k] = append(append(l, d...), deepCopy(s).([]any)...)
				continue
			}
		}
		dst[k] = deepCopy(sv)
	}
}

// DeepCopy copies the maps and lists of a decoded YAML or JSON value
// (map[string]any, []any, at any depth) so that the copy shares no mutable
// state with v; other values are kept as they are, and a nil map or list
// copies to an empty one. Merged results and the values handed to a
// template are such copies.
func DeepCopy[T any](v T) T {
	c, _ := deepCopy(v).(T)
	return c
}

// deepCopy is DeepCopy of any value.
func deepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		l := make([]any, len(t))
		for i, e := range t {
			l[i] = deepCopy(e)
		}
		return l
	}
	return v
}

// cleanYAMLError drops the YAML-to-JSON converter's prefix.
func cleanYAMLError(err error) error {
	msg := err.Error()
	for _, p := range []string{"error converting YAML to JSON: ", "error unmarshaling JSON: while decoding JSON: "} {
		msg = strings.TrimPrefix(msg, p)
	}
	if msg == err.Error() {
		return err
	}
	return errors.New(msg)
}

// strictDuplicate finds, in the strict decoder's message, the key given
// twice.
var strictDuplicate = regexp.MustCompile(`line ([0-9]+): key "((?:[^"\\]|\\.)*)" already set in map`)

// duplicateKey words the strict decoder's refusal of a key given twice on
// one line, as yamldoc.DuplicateKey does for the other inputs.
func duplicateKey(err error) string {
	if m := strictDuplicate.FindStringSubmatch(err.Error()); m != nil {
		return fmt.Sprintf("key %q is given twice in the same map (again on line %s); give it once", m[2], m[1])
	}
	return cleanYAMLError(err).Error()
}
