package importer

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// values is the management cluster's view of the sylva-units values: the
// management values file over the chart's values file. It reads YAML nodes,
// so that a key such as 1.30 keeps the text it was written with.
type values struct {
	ref  string
	fsys fs.FS
	// layers are the files, the one that wins first.
	layers []layer
}

type layer struct {
	path string
	root *yaml.Node
}

func readValues(ref Ref) (*values, error) {
	v := &values{ref: ref.Name, fsys: ref.FS}
	for _, p := range []string{ManagementValuesPath, ValuesPath} {
		data, err := fs.ReadFile(ref.FS, p)
		if errors.Is(err, fs.ErrNotExist) && p == ManagementValuesPath {
			continue
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: %w", ref.Name, ErrNoValues)
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%s: %w", ref.Name, p, err)
		}
		var doc yaml.Node
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return nil, fmt.Errorf("%s:%s: %w", ref.Name, p, err)
		}
		root := &doc
		if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
			root = root.Content[0]
		}
		if root.Kind != yaml.MappingNode {
			if root.Kind == 0 || (root.Kind == yaml.ScalarNode && root.Tag == "!!null") {
				continue // an empty file
			}
			return nil, fmt.Errorf("%s:%s: not a YAML mapping", ref.Name, p)
		}
		v.layers = append(v.layers, layer{path: p, root: root})
	}
	return v, nil
}

func (v *values) source(path, key string) string { return v.ref + ":" + path + "#" + key }

// child returns the value of key in mapping n, YAML aliases resolved.
func child(n *yaml.Node, key string) *yaml.Node {
	n = deref(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return deref(n.Content[i+1])
		}
	}
	return nil
}

// deref follows a YAML alias (*name) to its anchored node.
func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

func walk(n *yaml.Node, keys ...string) *yaml.Node {
	for _, k := range keys {
		n = child(n, k)
		if n == nil {
			return nil
		}
	}
	return n
}

// get returns the value at keys from the first file that sets it, and its
// source.
func (v *values) get(keys ...string) (*yaml.Node, string) {
	for _, l := range v.layers {
		if n := walk(l.root, keys...); n != nil {
			return n, v.source(l.path, strings.Join(keys, "."))
		}
	}
	return nil, ""
}

type entry struct {
	key    string
	keyTag string
	value  *yaml.Node
	source string
}

// mapEntries returns the entries of the mapping at keys, merged over the
// files as Helm merges values: a later file's entry replaces the same key
// of an earlier one. Keys are compared as written.
func (v *values) mapEntries(keys ...string) ([]entry, []Note) {
	var out []entry
	var notes []Note
	for i := len(v.layers) - 1; i >= 0; i-- {
		l := v.layers[i]
		n := walk(l.root, keys...)
		if n == nil {
			continue
		}
		base := v.source(l.path, strings.Join(keys, "."))
		if n.Kind != yaml.MappingNode {
			notes = append(notes, Note{Source: base, Text: "is not a mapping"})
			continue
		}
		for j := 0; j+1 < len(n.Content); j += 2 {
			k := n.Content[j]
			e := entry{key: k.Value, keyTag: k.Tag, value: deref(n.Content[j+1]), source: base + "." + k.Value}
			replaced := false
			for x := range out {
				if out[x].key == e.key {
					out[x], replaced = e, true
				}
			}
			if !replaced {
				out = append(out, e)
			}
		}
	}
	return out, notes
}

// unitField returns a field of a unit as sylva-units builds the unit:
// its own value, else the last of its unit_templates that sets it, else
// unit_definition_defaults. When the field is not the unit's own and its
// unit_templates need gotpl interpretation, it returns a note instead.
func (v *values) unitField(unit string, keys ...string) (*yaml.Node, string, *Note) {
	own := append([]string{"units", unit}, keys...)
	if n, src := v.get(own...); n != nil {
		return n, src, nil
	}
	tpls, tplSrc := v.get("units", unit, "unit_templates")
	if tpls != nil {
		if tpls.Kind != yaml.SequenceNode {
			return nil, "", &Note{Source: tplSrc, Text: "unit_templates needs gotpl interpretation; " + strings.Join(keys, ".") + " not read"}
		}
		for i := len(tpls.Content) - 1; i >= 0; i-- {
			name := deref(tpls.Content[i])
			if name.Kind != yaml.ScalarNode || isTemplate(name.Value) {
				return nil, "", &Note{Source: tplSrc, Text: fmt.Sprintf("unit_templates entry %q needs gotpl interpretation; %s not read", name.Value, strings.Join(keys, "."))}
			}
			if n, src := v.get(append([]string{"unit_templates", name.Value}, keys...)...); n != nil {
				return n, src, nil
			}
		}
	}
	if n, src := v.get(append([]string{"unit_definition_defaults"}, keys...)...); n != nil {
		return n, src, nil
	}
	return nil, "", nil
}
