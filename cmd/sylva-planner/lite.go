//go:build lite

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/urfave/cli/v2"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/skew"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

// The lite build (`go build -tags lite`, what `make build` installs as
// sylva-planner) links no cluster client and no Helm engine, so that the
// offline commands start in a few milliseconds. The commands that read a
// cluster or render with Helm run in the full build, installed beside it as
// sylva-planner-cluster: the lite binary replaces itself with that one,
// with the same arguments, environment and streams.

func delegated(name, usage string) *cli.Command {
	return &cli.Command{
		Name:            name,
		Usage:           usage,
		SkipFlagParsing: true,
		Action:          func(c *cli.Context) error { return delegate(c) },
	}
}

func statusCommand() *cli.Command {
	return delegated("status", "say which Sylva release a cluster runs and whether another reconciliation pass is pending")
}

func valuesCommand() *cli.Command {
	return delegated("values", "generate, render and check the sylva-units helper values that implement a plan")
}

func reconcileCommand() *cli.Command {
	return delegated("reconcile", "request the next reconciliation pass of the sylva-units HelmRelease, once per request")
}

func controllerCommand() *cli.Command {
	return delegated("controller", "run the controller that requests each sylva-units pass once, driven by watches")
}

func verifyCommand() *cli.Command {
	return delegated("verify", "check that a cluster reached the final state of a transition's plan")
}

func drainCheckCommand() *cli.Command {
	return delegated("drain-check", "check that node drains during the rollout cannot hang or drop traffic, and find removed APIs in use")
}

// runElsewhere hands plan and report to the full build when they need a
// cluster (the installed release read live or from a status file, live
// checks) or the manifest checks of --inventory.
func runElsewhere(c *cli.Context, opts gateOptions) (bool, error) {
	if opts.from == "" || opts.live.kubeconfig != "" || opts.live.context != "" || opts.inventory != "" {
		return true, delegate(c)
	}
	return false, nil
}

// delegate execs the full build with this process's arguments.
func delegate(c *cli.Context) error {
	e := envOf(c)
	path, err := companionPath()
	if err != nil {
		return withCode(exitError, err)
	}
	argv := append([]string{path}, e.args[1:]...)
	if e.dir != "" {
		// In-process runs (tests) cannot be replaced: run it as a child.
		cmd := exec.CommandContext(c.Context, path, e.args[1:]...)
		cmd.Dir, cmd.Stdout, cmd.Stderr, cmd.Stdin = e.dir, e.stdout, e.stderr, os.Stdin
		err := cmd.Run()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return withCode(exit.ExitCode(), nil)
		}
		return err
	}
	return fmt.Errorf("run %s: %w", path, syscall.Exec(path, argv, os.Environ()))
}

func companionPath() (string, error) {
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), companion)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	if p, err := exec.LookPath(companion); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("this command reads a cluster or renders with Helm, which %s does (install it beside sylva-planner: make build)", companion)
}

// The full build's helpers that plan and report reach only through
// runElsewhere.

func statusObservation(context.Context, *env, statusOptions) (status.Observation, error) {
	return status.Observation{}, errors.New("reading the status needs " + companion)
}

func addLiveChecks(*cli.Context, *env, *catalog.Catalog, *planner.Input, gateOptions) error {
	return nil
}

func readInventory(*env, *catalog.Catalog, string) (*planner.Observed, skew.Version, bool, error) {
	return nil, skew.Version{}, false, errors.New("reading an inventory needs " + companion)
}
