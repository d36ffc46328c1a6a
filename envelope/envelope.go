package envelope

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"time"

	yaml "go.yaml.in/yaml/v2"
)

// APIVersion is the apiVersion of every document the tool writes and of
// the catalog files it reads.
const APIVersion = "planner.sylva/v1alpha1"

// Metadata is the metadata every JSON and YAML document carries. Documents
// that need more embed it, so that its fields stay first and keep their
// names.
type Metadata struct {
	ToolVersion    string `json:"toolVersion"`
	CatalogVersion string `json:"catalogVersion"`
	// AsOf is the date (YYYY-MM-DD, UTC) the document was computed for:
	// --as-of, or the day the command ran.
	AsOf string `json:"asOf"`
}

// Header is how a document starts: apiVersion, kind and metadata. A
// document type embeds it first.
type Header struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Metadata   Metadata `json:"metadata"`
}

// NewHeader is the header of a document of kind with metadata md.
func NewHeader(kind string, md Metadata) Header {
	return Header{APIVersion: APIVersion, Kind: kind, Metadata: md}
}

// NewMetadata returns the metadata for a document computed by toolVersion
// from catalogVersion for the day of asOf (UTC).
func NewMetadata(toolVersion, catalogVersion string, asOf time.Time) Metadata {
	return Metadata{ToolVersion: toolVersion, CatalogVersion: catalogVersion, AsOf: asOf.UTC().Format(time.DateOnly)}
}

// WriteJSON writes v as JSON indented by two spaces, without escaping
// HTML characters, followed by a newline. Map keys are sorted.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// WriteYAML writes v as YAML with its JSON field names, in the order
// WriteJSON writes them: a struct's fields in their declared order (a
// document's apiVersion, kind and metadata first), map keys sorted. A value
// has the type it has in JSON: a string stays a string, quoted where YAML
// would read it otherwise.
func WriteYAML(w io.Writer, v any) error {
	j, err := json.Marshal(v)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.UseNumber()
	tree, err := ordered(dec)
	if err != nil {
		return err
	}
	b, err := yaml.Marshal(tree)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// ordered reads the next JSON value of dec as a YAML tree that keeps the
// order of object keys (yaml.MapSlice); numbers are integers when they
// are whole, as YAML reads them.
func ordered(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			m := yaml.MapSlice{}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := ordered(dec)
				if err != nil {
					return nil, err
				}
				m = append(m, yaml.MapItem{Key: k, Value: v})
			}
			_, err := dec.Token()
			return m, err
		}
		s := []any{}
		for dec.More() {
			v, err := ordered(dec)
			if err != nil {
				return nil, err
			}
			s = append(s, v)
		}
		_, err := dec.Token()
		return s, err
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i, nil
		}
		if u, err := strconv.ParseUint(t.String(), 10, 64); err == nil {
			return u, nil
		}
		return t.Float64()
	}
	return tok, nil
}
