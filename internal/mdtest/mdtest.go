// Package mdtest reads Markdown as a renderer does, as far as tests of the
// outputs need it: what of a document is markup, and what is shown as
// text. It is for tests only.
package mdtest

import "strings"

// Markup is md with what a CommonMark renderer shows as text put out of
// the way: a code span (a run of backticks up to the next run of the same
// length) becomes as many spaces as its opening run, a backslash-escaped
// punctuation character one space. What is left
// is what may render as structure: a <tag>, a ![image](…), a line that
// starts with # is one in Markup too. Fenced code blocks are not read:
// callers check their fences themselves.
func Markup(md string) string {
	var b strings.Builder
	for i := 0; i < len(md); {
		c := md[i]
		switch {
		case c == '\\' && i+1 < len(md) && isPunct(md[i+1]):
			b.WriteByte(' ')
			i += 2
		case c == '`':
			n := run(md[i:], '`')
			if end := closing(md[i+n:], n); end >= 0 {
				b.WriteString(strings.Repeat(" ", n))
				i += n + end + n
				continue
			}
			b.WriteString(md[i : i+n])
			i += n
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// closing is the index in s of the first run of exactly n backticks, or
// -1.
func closing(s string, n int) int {
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		m := run(s[i:], '`')
		if m == n {
			return i
		}
		i += m
	}
	return -1
}

func run(s string, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}

func isPunct(c byte) bool {
	return strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", c) >= 0
}
