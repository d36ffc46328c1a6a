package cell

import "strings"

// OrDash returns s, or "-" when s is empty, so that an empty cell still
// reads as one.
func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// OneLine folds the whitespace of s (spaces, tabs, line breaks) into
// single spaces, trimmed at both ends.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
