// Package cell decides how a value reads in one cell of the tables and
// one line of the text outputs people read: an empty value as "-", text
// folded onto one line, and text from outside made harmless, to a
// terminal (Visible) and to Markdown and HTML (Markdown and its kin). It
// imports nothing of the module, so that every package with an output can
// use it, and never prints.
package cell
