package main

import (
	"context"
	"io"
)

// runIn is run with relative paths resolved against dir and no standard
// input.
func runIn(ctx context.Context, dir string, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	return runEnv(ctx, newEnv(dir, stdout, stderr, getenv), args)
}
