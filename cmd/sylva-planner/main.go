// Command sylva-planner plans and drives Sylva release transitions: it
// computes the reconciliation passes of the sylva-units HelmRelease that take
// a cluster from one Sylva release to another, and gates the upgrade.
//
// Exit codes: 0 done, 1 operational error, 2 blocked, 3 the gate could not
// evaluate, 4 held. See docs/cli.md.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}
