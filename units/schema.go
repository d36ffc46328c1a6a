package units

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// SchemaInfoPath is the JSON Pointer (RFC 6901) of the unit `info` object's
// properties in the sylva-units chart's values.schema.json (and in
// values.schema.yaml, its source): every release from 1.0 on defines the
// info block once, as $defs.unit_info, with additionalProperties: false.
const SchemaInfoPath = "/$defs/unit_info/properties"

// SchemaProperty is the JSON-schema property that allows
// info.transitional-unit. Its pattern accepts leading zeros (from-01.4),
// which the audit reports as malformed.
var SchemaProperty = map[string]any{
	"type":        "string",
	"pattern":     `^from-[0-9]+\.[0-9]+$`,
	"description": "Marks a transitional unit: from-X.Y means the unit is needed while upgrades from Sylva X.Y are supported. sylva-planner prune-audit reports when it can be deleted.",
}

// SchemaPatch is the JSON Patch (RFC 6902) that adds SchemaProperty to the
// chart's schema. Its one "add" operation fails, as RFC 6902 requires, on a
// schema without SchemaInfoPath, rather than creating it.
var SchemaPatch = func() string {
	var b bytes.Buffer
	op := []map[string]any{{"op": "add", "path": SchemaInfoPath + "/" + TransitionalKey, "value": SchemaProperty}}
	if err := encodeJSON(&b, op, "", "  "); err != nil {
		panic(err) // a constant value always encodes
	}
	return b.String()
}()

// ErrSchemaLayout is returned by PatchSchema for a schema that has no
// SchemaInfoPath object, or already has the property.
var ErrSchemaLayout = errors.New("not a sylva-units values schema this patch applies to")

// PatchSchema applies SchemaPatch to a values.schema.json and returns the
// patched document. Everything but the inserted property is kept byte for
// byte (key order, indentation, escapes), so the change reviews as a few
// added lines; the property is indented like its siblings.
func PatchSchema(schema []byte) ([]byte, error) {
	end, err := objectEnd(schema, strings.Split(strings.TrimPrefix(SchemaInfoPath, "/"), "/"))
	if err != nil {
		return nil, err
	}
	// Insert after the object's last member, before the whitespace and
	// the closing brace.
	at := end
	for at > 0 && isSpace(schema[at-1]) {
		at--
	}
	closing := lineIndent(schema, end)
	step := indentStep(schema)
	member := closing + step
	var val bytes.Buffer
	if err := encodeJSON(&val, SchemaProperty, member, step); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	out.Grow(len(schema) + 512)
	out.Write(schema[:at])
	if schema[at-1] != '{' {
		out.WriteByte(',')
	}
	fmt.Fprintf(&out, "\n%s%q: %s", member, TransitionalKey, strings.TrimSuffix(val.String(), "\n"))
	if schema[at-1] == '{' {
		out.WriteString("\n" + closing)
		at = end
	}
	out.Write(schema[at:])
	return out.Bytes(), nil
}

// objectEnd returns the offset of the closing brace of the object at path,
// checking that it has no member called TransitionalKey.
func objectEnd(doc []byte, path []string) (int, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	type frame struct {
		object bool
		key    string // the member being read, in an object
		want   bool   // a value is expected next
	}
	var stack []frame
	var at []string // the keys of the objects being read
	match := func() bool {
		return len(at) == len(path) && strings.Join(at, "/") == strings.Join(path, "/")
	}
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return 0, fmt.Errorf("%w: no object at %s", ErrSchemaLayout, SchemaInfoPath)
		}
		if err != nil {
			return 0, fmt.Errorf("schema is not valid JSON: %w", err)
		}
		top := len(stack) - 1
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				// at holds one key per container below the root; an
				// array element has none that a path can name.
				switch {
				case top < 0:
				case stack[top].object:
					at = append(at, stack[top].key)
					stack[top].want = false
				default:
					at = append(at, "\x00")
				}
				stack = append(stack, frame{object: t == '{'})
			case '}', ']':
				if t == '}' && match() {
					return int(dec.InputOffset()) - 1, nil
				}
				stack = stack[:top]
				if len(at) > 0 {
					at = at[:len(at)-1]
				}
			}
		default:
			if top < 0 || !stack[top].object {
				continue
			}
			if !stack[top].want {
				key, _ := t.(string)
				stack[top].key, stack[top].want = key, true
				if match() && key == TransitionalKey {
					return 0, fmt.Errorf("%w: %s already has %s", ErrSchemaLayout, SchemaInfoPath, TransitionalKey)
				}
				continue
			}
			stack[top].want = false
		}
	}
}

// lineIndent returns the spaces or tabs that start the line holding off.
func lineIndent(doc []byte, off int) string {
	start := bytes.LastIndexByte(doc[:off], '\n') + 1
	end := start
	for end < len(doc) && (doc[end] == ' ' || doc[end] == '\t') {
		end++
	}
	return string(doc[start:end])
}

// indentStep returns the indentation of the document's first indented line
// ("  " for the chart's schema), or two spaces.
func indentStep(doc []byte) string {
	for _, line := range bytes.Split(doc, []byte("\n"))[1:] {
		trimmed := bytes.TrimLeft(line, " \t")
		if len(trimmed) > 0 && len(trimmed) < len(line) {
			return string(line[:len(line)-len(trimmed)])
		}
	}
	return "  "
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func encodeJSON(w io.Writer, v any, prefix, indent string) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, indent)
	return enc.Encode(v)
}
