//go:build !lite

package main

import "github.com/urfave/cli/v2"

// runElsewhere is the lite build's hand-over to the full build; the full
// build runs everything itself.
func runElsewhere(*cli.Context, gateOptions) (bool, error) { return false, nil }
