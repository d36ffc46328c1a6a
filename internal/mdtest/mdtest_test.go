package mdtest

import "testing"

func TestMarkup(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"text is markup-free and kept", "a <b>", "a <b>"},
		{"a code span is dropped", "a `<img>` b", "a   b"},
		{"a longer fence holds backticks", "a ``x`<img>`` b", "a    b"},
		{"an unclosed run stays", "a ` <img>", "a ` <img>"},
		{"an escaped character is dropped", `\<img> \# \` + "`", " img>    "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Markup(tt.in); got != tt.want {
				t.Errorf("Markup(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
