package helmengine

import (
	"fmt"
	"io"

	"gitlab.com/sylva-projects/sylva-planner/envelope"
)

// WriteYAML writes rendered values as YAML (keys sorted).
func WriteYAML(w io.Writer, vals map[string]any) error {
	if err := envelope.WriteYAML(w, vals); err != nil {
		return fmt.Errorf("write values: %w", err)
	}
	return nil
}

// WriteJSON writes rendered values as indented JSON (keys sorted).
func WriteJSON(w io.Writer, vals map[string]any) error {
	if err := envelope.WriteJSON(w, vals); err != nil {
		return fmt.Errorf("write values: %w", err)
	}
	return nil
}
