// Package cliapp is what the sylva-planner command line does around its
// commands, over urfave/cli v2: arguments read as kubectl users expect
// (NormalizeArgs), one-line usage errors, shell completion in the format
// kubectl reads from a plugin (Completer), and man pages (ManPages). It
// knows no command; the commands and their flags are in cmd/sylva-planner.
package cliapp
