package cell

import "testing"

func TestVisible(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain text is left as it is", "verdict: ready ✔ ✘ → │", "verdict: ready ✔ ✘ → │"},
		{"line feeds and tabs stay", "a\tb\nc", "a\tb\nc"},
		{"an escape sequence is shown, not run", "\x1b[2J\x1b]0;title\x07", `\x1b[2J\x1b]0;title\x07`},
		{"a carriage return is shown", "BLOCKED\rREADY  ", `BLOCKED\rREADY  `},
		{"DEL and NUL are shown", "a\x7fb\x00", `a\x7fb\x00`},
		{"a C1 control is shown as its code point", "a\u009b2Jb\u0085", `a\u009b2Jb\u0085`},
		{"bidirectional overrides and isolates are shown", "a\u202eb\u2066c\u2069\u200f", `a\u202eb\u2066c\u2069\u200f`},
		{"a byte that is not UTF-8 is shown as a byte", "a\xffb\xc3", `a\xffb\xc3`},
		{"an escaped string stays as it is", `\x1b[31m`, `\x1b[31m`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Visible(tt.in)
			if got != tt.want {
				t.Errorf("Visible(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if again := Visible(got); again != got {
				t.Errorf("Visible(Visible(%q)) = %q, want %q", tt.in, again, got)
			}
		})
	}
}

func TestMarkdown(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain text is left as it is", "1.4 → 1.6 (pass 1)", "1.4 → 1.6 (pass 1)"},
		{"a newline cannot start a heading", "web:1.0\n# READY nothing to do", "web:1.0 # READY nothing to do"},
		{"a heading at the start is escaped", "# READY", `\# READY`},
		{"a list marker at the start is escaped", "- item", `\- item`},
		{"the dash of an empty cell stays", "-", "-"},
		{"an ordered list marker at the start is escaped", "1. item", `1\. item`},
		{"a version at the start is no list", "1.4 and 1.5", "1.4 and 1.5"},
		{"HTML is shown, not rendered", `<img src=x onerror="alert(1)">`, `&lt;img src=x onerror="alert(1)"&gt;`},
		{"an entity is shown as written", "&lt; & >=1.28", "&amp;lt; &amp; &gt;=1.28"},
		{"links and images are shown as written", "![x](https://evil.example/p.png) [y](z)", `!\[x\](https://evil.example/p.png) \[y\](z)`},
		{"emphasis, code, strike and pipes are escaped", "*a* `b` ~~c~~ d|e \\", "\\*a\\* \\`b\\` \\~\\~c\\~\\~ d\\|e \\\\"},
		{"an underscore inside a word stays", "k8s_version_short", "k8s_version_short"},
		{"an underscore that could emphasise is escaped", "_x_ a_ _b", `\_x\_ a\_ \_b`},
		{"control characters are shown", "a\x1b[2Jb", `a\\x1b\[2Jb`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Markdown(tt.in); got != tt.want {
				t.Errorf("Markdown(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestMarkdownSpans(t *testing.T) {
	tests := []struct{ name, in, want, cell string }{
		{"the tool's code spans stay", "run `sylva-planner plan --from 1.4` again", "run `sylva-planner plan --from 1.4` again", ""},
		{"a code span shows HTML as text", "image `<img src=x>` is not <b>pinned</b>", "image `<img src=x>` is not &lt;b&gt;pinned&lt;/b&gt;", ""},
		{"a backtick in a value cannot carry HTML out of a span", "image `x` <img src=x onerror=y> `y` used", "image `x` &lt;img src=x onerror=y&gt; `y` used", ""},
		{"a backtick without its pair is escaped", "a `b", "a \\`b", ""},
		{"an empty span is dropped", "a `` b", "a  b", ""},
		{"a pipe in a span is escaped in a cell only", "`a|b` c|d", "`a|b` c\\|d", "`a\\|b` c\\|d"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MarkdownSpans(tt.in); got != tt.want {
				t.Errorf("MarkdownSpans(%q) = %q, want %q", tt.in, got, tt.want)
			}
			want := tt.cell
			if want == "" {
				want = tt.want
			}
			if got := MarkdownCell(tt.in); got != want {
				t.Errorf("MarkdownCell(%q) = %q, want %q", tt.in, got, want)
			}
		})
	}
}

func TestMarkdownCode(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"a name is one span", "monitoring", "`monitoring`"},
		{"nothing is no span", "", ""},
		{"backticks inside take a longer fence", "a`b``c", "```a`b``c```"},
		{"a backtick at an end is padded", "`x", "`` `x ``"},
		{"a pipe is escaped and a line folded", "a|b\nc", "`a\\|b c`"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MarkdownCode(tt.in); got != tt.want {
				t.Errorf("MarkdownCode(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestFence(t *testing.T) {
	if got := Fence("a: b\n"); got != "```" {
		t.Errorf("Fence(plain) = %q, want three backticks", got)
	}
	if got := Fence("a: |\n  ````\n"); got != "`````" {
		t.Errorf("Fence(four backticks) = %q, want five", got)
	}
}
