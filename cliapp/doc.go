// Package cliapp is what the sylva-planner command line does around its
// commands, over urfave/cli v2: the environment a command may read (Env),
// the flags every command declares the same way (-o and its writers,
// --fail-on, --as-of, -n, the connection flags), the render budget
// (Budgeted) and progress lines, arguments read as kubectl users expect
// (NormalizeArgs), one-line usage errors, shell completion in the format
// kubectl reads from a plugin (Completer), and man pages (HelpManPages). It
// knows no command; the commands and their own flags are in
// cmd/sylva-planner.
package cliapp
