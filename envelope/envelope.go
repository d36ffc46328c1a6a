package envelope

import (
	"encoding/json"
	"io"
	"time"

	"sigs.k8s.io/yaml"
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

// WriteYAML writes v as YAML with its JSON field names. Map keys are
// sorted.
func WriteYAML(w io.Writer, v any) error {
	b, err := yaml.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}
