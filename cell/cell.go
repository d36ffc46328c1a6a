package cell

import (
	"strconv"
	"strings"
)

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

// Plural is one when n is 1, else many: the word that goes with a count.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Count is n with its word: "1 pod", "2 pods", "0 pods".
func Count(n int, one, many string) string {
	return strconv.Itoa(n) + " " + Plural(n, one, many)
}
