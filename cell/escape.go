package cell

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Visible is s with every character that could drive a terminal or
// reorder what it shows written out as visible text, in the notation of
// Go's quoted strings: a C0 control byte other than line feed and tab, and
// DEL, as \x1b; a carriage return as \r; a C1 control (U+0080 to U+009F)
// and a bidirectional control (U+202A to U+202E, U+2066 to U+2069, and
// the marks U+061C, U+200E, U+200F) as \u202e; a byte that is not UTF-8 as
// \xff. Everything else, ✔, ✘, arrows and box lines included, is left as
// it is. The escapes are printable ASCII, so Visible of Visible(s) is
// Visible(s); a backslash of s is not escaped, so the output is read, not
// decoded.
func Visible(s string) string {
	i := firstHidden(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			writeHex(&b, `\x`, uint32(s[i]), 2)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 && r != '\n' && r != '\t', r == 0x7f:
			writeHex(&b, `\x`, uint32(r), 2)
		case hiddenRune(r):
			writeHex(&b, `\u`, uint32(r), 4)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// firstHidden is the index of the first byte of s that Visible escapes,
// or -1.
func firstHidden(s string) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || hiddenRune(r) {
			return i
		}
		i += size
	}
	return -1
}

// hiddenRune reports whether r, above ASCII, is a C1 control or a
// bidirectional control: what a terminal acts on, or what reorders the
// text around it ("Trojan Source", CVE-2021-42574).
func hiddenRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return r == 0x061c || r == 0x200e || r == 0x200f
}

func writeHex(b *strings.Builder, prefix string, v uint32, width int) {
	b.WriteString(prefix)
	h := strconv.FormatUint(uint64(v), 16)
	for range width - len(h) {
		b.WriteByte('0')
	}
	b.WriteString(h)
}

// Markdown is s as Markdown text that shows s and nothing else, on one
// line: its characters escaped as Visible does, its whitespace folded
// (OneLine), every character that could start Markdown or HTML structure
// escaped (\ ` * _ [ ] | ~ with a backslash; < > & as the entities &lt;
// &gt; &amp;; a #, -, +, =, or a number followed by . or ) that would
// start a block at the beginning of a line, except a lone "-", the empty
// cell of OrDash). An underscore between two
// letters or digits is left as it is: it cannot open or close emphasis.
// The result fits a table cell as well as running text.
func Markdown(s string) string {
	s = OneLine(Visible(s))
	var b strings.Builder
	b.Grow(len(s) + 8)
	markdownText(&b, s)
	return b.String()
}

// MarkdownSpans is Markdown, except that the `spans` of s, the code marks
// the tool writes into its own messages, stay Markdown code spans (with
// their content shown as it is). A backtick without its pair is escaped.
// For a table cell, use MarkdownCell.
func MarkdownSpans(s string) string { return markdownSpans(s, false) }

// MarkdownCell is MarkdownSpans for a table cell: a | in a code span is
// escaped too, as GitLab and GitHub tables need.
func MarkdownCell(s string) string { return markdownSpans(s, true) }

// MarkdownCode is s as one Markdown code span in a table cell, on one
// line, however many backticks s holds; "" for an empty s.
func MarkdownCode(s string) string {
	s = OneLine(Visible(s))
	if s == "" {
		return ""
	}
	s = strings.ReplaceAll(s, "|", `\|`)
	// A span is opened and closed by a run of backticks longer than any in
	// its content, with a space between when the content starts or ends
	// with one (CommonMark's code spans).
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if s[0] == '`' || s[len(s)-1] == '`' {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// Fence is the line that opens and closes a Markdown code block holding
// text: three backticks, or more than the longest run of backticks in
// text, so that no line of text closes the block.
func Fence(text string) string { return strings.Repeat("`", max(3, longestRun(text, '`')+1)) }

func longestRun(s string, c byte) int {
	longest, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			longest = max(longest, n)
		} else {
			n = 0
		}
	}
	return longest
}

func markdownSpans(s string, inCell bool) string {
	s = OneLine(Visible(s))
	parts := strings.Split(s, "`")
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i, part := range parts {
		switch {
		case i%2 == 0:
			markdownText(&b, part)
		case i == len(parts)-1:
			// The backtick that opened it has no pair.
			b.WriteString("\\`")
			markdownText(&b, part)
		case part != "":
			if inCell {
				part = strings.ReplaceAll(part, "|", `\|`)
			}
			b.WriteString("`" + part + "`")
		}
	}
	return b.String()
}

// markdownText writes s, one line, as Markdown text; a block marker is
// escaped when s starts b.
func markdownText(b *strings.Builder, s string) {
	at := -1
	if b.Len() == 0 {
		at = blockMarker(s)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if i == at {
			b.WriteByte('\\')
		}
		switch c {
		case '\\', '`', '*', '[', ']', '|', '~':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '_':
			if i > 0 && i < len(s)-1 && alnum(s[i-1]) && alnum(s[i+1]) {
				b.WriteByte(c)
			} else {
				b.WriteString(`\_`)
			}
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		default:
			b.WriteByte(c)
		}
	}
}

// blockMarker is the index of the character of s to escape so that s, at
// the start of a line, starts no heading, list item, thematic break or
// setext underline, or -1; < (HTML) and > (quote) are entities anyway, `
// and ~ (fences) escaped.
func blockMarker(s string) int {
	if s == "" || s == "-" {
		// "-" is the empty cell of OrDash, which no line starts with.
		return -1
	}
	switch s[0] {
	case '#', '-', '+', '=':
		return 0
	}
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	// An ordered list item: digits, then . or ), then a space or the end
	// of the line; escaping the delimiter undoes it.
	if n > 0 && n < len(s) && (s[n] == '.' || s[n] == ')') && (n+1 == len(s) || s[n+1] == ' ') {
		return n
	}
	return -1
}

func alnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
