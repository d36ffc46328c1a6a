// Package cell decides how a value reads in one cell of the tables and
// one line of the text outputs people read: an empty value as "-", text
// folded onto one line. It imports nothing, so that every package with an
// output can use it, and never prints.
package cell
