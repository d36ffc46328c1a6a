package cell

import "testing"

func TestOrDash(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"an empty value reads as a dash", "", "-"},
		{"a value reads as itself", "1.4, 1.5", "1.4, 1.5"},
		{"a space is a value", " ", " "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := OrDash(tt.in); got != tt.want {
				t.Errorf("OrDash(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestOneLine(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"line breaks and tabs fold into spaces", "a\n\tb\r\nc", "a b c"},
		{"runs of spaces fold into one", "a   b", "a b"},
		{"both ends are trimmed", "  a b \n", "a b"},
		{"only whitespace gives nothing", " \n\t", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := OneLine(tt.in); got != tt.want {
				t.Errorf("OneLine(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0 pods", 1: "1 pod", 2: "2 pods"} {
		if got := Count(n, "pod", "pods"); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}
