package yamldoc

import (
	"strings"
	"testing"
)

func TestDuplicateKey(t *testing.T) {
	tests := []struct {
		name, in, want string // want: part of the error, "" for none
	}{
		{"top level", "a: 1\nb: 2\na: 3\n", `key "a" is given twice in the same map (lines 1 and 3)`},
		{"nested", "data:\n  sylva_release: \"1.4\"\n  sylva_release: \"1.6\"\n", `key "sylva_release"`},
		{"in a list item", "items:\n- {k: 1, k: 2}\n", `key "k"`},
		{"in a later document", "a: 1\n---\nb: 1\nb: 2\n", `key "b"`},
		{"the same key in two maps is fine", "a: {k: 1}\nb: {k: 2}\n", ""},
		{"the same key in two documents is fine", "k: 1\n---\nk: 2\n", ""},
		{"merge keys are not counted", "base: &b {x: 1}\nm:\n  <<: *b\n  <<: *b\n", ""},
		{"text that is not YAML is left to its reader", "a: [\n", ""},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := DuplicateKey([]byte(tt.in))
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("DuplicateKey = %v, want nil", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("DuplicateKey = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}
