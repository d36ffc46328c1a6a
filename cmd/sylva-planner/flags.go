package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"gitlab.com/sylva-projects/sylva-planner/action"
	"gitlab.com/sylva-projects/sylva-planner/cliapp"
)

// format is an output format chosen with -o.
type format string

const (
	formatTable    format = "table"
	formatJSON     format = "json"
	formatYAML     format = "yaml"
	formatMarkdown format = "markdown"
	formatHTML     format = "html"
	formatGitLabCI format = "gitlab-ci"
)

// formats are every output format of the tool, in the order help lists them.
var formats = []format{formatTable, formatJSON, formatYAML, formatMarkdown, formatHTML, formatGitLabCI}

// outputEnv is the environment variable every command reads its output
// format from when -o is not given. One variable serves every command, so
// a value one command does not support (SYLVA_PLANNER_OUTPUT=html for
// plan) gives that command its default format instead of an error; a value
// that is no format at all is refused.
const outputEnv = "SYLVA_PLANNER_OUTPUT"

// outputFlag is -o/--output with the given formats, the first one default.
// Its environment variable (outputEnv) is read by outputOf, not by the
// flag, so that an unsupported value falls back to the default.
func outputFlag(allowed ...format) *cli.GenericFlag {
	names := make([]string, len(allowed))
	for i, a := range allowed {
		names[i] = string(a)
	}
	return &cli.GenericFlag{
		Name:    "output",
		Aliases: []string{"o"},
		Usage:   "output format: " + strings.Join(names, ", ") + " (" + outputEnv + " when it is one of these)",
		Value:   cliapp.NewEnum("output format", allowed...),
	}
}

// outputOf is the output format: -o when given; else outputEnv when the
// command supports its value; else the command's default. withOutputEnv
// has refused a value of outputEnv that is no format at all.
func outputOf(c *cli.Context) format {
	v := c.Generic("output").(*cliapp.Enum[format])
	if env := format(envOf(c).getenv(outputEnv)); !c.IsSet("output") && v.Allows(env) {
		return env
	}
	return v.Value()
}

// withOutputEnv has every command (and subcommand) with -o refuse, before
// it runs, a value of outputEnv that is no output format of the tool: a
// typo must not pass for "use the default".
func withOutputEnv(cmds []*cli.Command) {
	for _, cmd := range cmds {
		withOutputEnv(cmd.Subcommands)
		if !slices.ContainsFunc(cmd.Flags, func(f cli.Flag) bool { return slices.Contains(f.Names(), "output") }) {
			continue
		}
		cliapp.AddBefore(cmd, func(c *cli.Context) error {
			if env := envOf(c).getenv(outputEnv); env != "" {
				known := cliapp.NewEnum("output format", formats...)
				if err := known.Set(env); err != nil {
					return withCode(exitError, fmt.Errorf("%s: %w", outputEnv, err))
				}
			}
			return nil
		})
	}
}

// failOnFlag is --fail-on with the thresholds a command accepts, the
// first its default; every command reads it with failOnOf and maps the
// outcome of its result to the exit code with outcomeExit.
func failOnFlag(usage, envVar string, allowed ...action.FailOn) *cli.GenericFlag {
	return &cli.GenericFlag{
		Name:    "fail-on",
		Usage:   usage,
		Value:   cliapp.NewEnum("--fail-on value", allowed...),
		EnvVars: []string{envVar},
	}
}

// severityFailOnFlag is --fail-on of the commands whose findings have a
// severity.
func severityFailOnFlag() *cli.GenericFlag {
	return failOnFlag("lowest finding severity that makes the exit code non-zero: blocker, warning, never", "SYLVA_PLANNER_FAIL_ON",
		action.FailOnBlocker, action.FailOnWarning, action.FailOnNever)
}

func failOnOf(c *cli.Context) action.FailOn { return cliapp.EnumOf[action.FailOn](c, "fail-on") }

func asOfFlag() *cli.StringFlag {
	return &cli.StringFlag{
		Name:    "as-of",
		Usage:   "`DATE` (YYYY-MM-DD) the plan is computed for (default: today, UTC); same inputs and date give the same bytes",
		EnvVars: []string{"SYLVA_PLANNER_AS_OF"},
	}
}

// asOfOf returns --as-of, or today.
func asOfOf(c *cli.Context) (time.Time, error) {
	s := c.String("as-of")
	if s == "" {
		return envOf(c).today, nil
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("--as-of %q is not a date; use YYYY-MM-DD, for example --as-of 2026-11-30", s)
	}
	return t, nil
}

func catalogFlag() *cli.StringFlag {
	return &cli.StringFlag{
		Name:      "catalog",
		Usage:     "load the release catalog from `FILE` (or a directory of *.yaml; - for standard input; catalog list -o yaml writes one) instead of the embedded one",
		EnvVars:   []string{"SYLVA_PLANNER_CATALOG"},
		TakesFile: true,
	}
}

// The Kubernetes connection flags, declared once: every command that reads
// a cluster takes them with the same names, environment variables and
// meaning, kubectl's loading rule: --kubeconfig, else the files listed in
// KUBECONFIG, else ~/.kube/config, else the pod's service account; the
// current context unless --context; --as and --as-group impersonate.

// kubeconfigFlag is --kubeconfig (SYLVA_PLANNER_KUBECONFIG). A command
// that reads a cluster declares it; withConnectionFlags then adds the rest
// of the connection flags.
func kubeconfigFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "kubeconfig", Usage: "kubeconfig `FILE` (default: the files in KUBECONFIG, then ~/.kube/config, then in-cluster)", EnvVars: []string{"SYLVA_PLANNER_KUBECONFIG"}, TakesFile: true}
}

// connectionFlags are the connection flags beside --kubeconfig: --context,
// --as, --as-group and --request-timeout.
func connectionFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "context", Usage: "kubeconfig `CONTEXT` (default: the current context)", EnvVars: []string{"SYLVA_PLANNER_CONTEXT"}},
		&cli.StringFlag{Name: "as", Usage: "`USER` every request impersonates, as kubectl --as"},
		&cli.StringSliceFlag{Name: "as-group", Usage: "`GROUP` every request impersonates, as kubectl --as-group (repeat for several)"},
		requestTimeoutFlag(),
	}
}

// liveFlag is --live for the commands that stay offline unless asked: with
// it, or with an explicit --kubeconfig or --context, they read the cluster
// connectionFlags select.
func liveFlag(reads string) *cli.BoolFlag {
	return &cli.BoolFlag{Name: "live", Usage: "read " + reads + " from the cluster of the kubeconfig rule (implied by --kubeconfig or --context)"}
}

// liveAsked reports whether a command that stays offline unless asked
// reads a cluster: --live, --kubeconfig or --context. KUBECONFIG alone
// does not make it live.
func liveAsked(c *cli.Context) bool {
	return c.Bool("live") || c.String("kubeconfig") != "" || c.String("context") != ""
}

// namespaceFlag is -n/--namespace (SYLVA_PLANNER_NAMESPACE) with the
// default value, "" for none.
func namespaceFlag(usage, value string) *cli.StringFlag {
	return &cli.StringFlag{Name: "namespace", Aliases: []string{"n"}, Usage: usage, Value: value, EnvVars: []string{"SYLVA_PLANNER_NAMESPACE"}}
}

// namespaceOf is -n/--namespace, refused when set empty (an empty -n or
// SYLVA_PLANNER_NAMESPACE=): an empty namespace would mean every namespace
// to the API, and a command must never widen what it reads by accident.
func namespaceOf(c *cli.Context) (string, error) {
	ns := c.String("namespace")
	if ns == "" {
		return "", fmt.Errorf("--namespace is empty (-n '' or SYLVA_PLANNER_NAMESPACE= set empty); give the release namespace, for example -n sylva-system, or unset SYLVA_PLANNER_NAMESPACE")
	}
	return ns, nil
}

// defaultRequestTimeout bounds each API request, so that a silent or
// unreachable cluster fails instead of hanging.
const defaultRequestTimeout = 30 * time.Second

// requestTimeoutFlag is --request-timeout (SYLVA_PLANNER_REQUEST_TIMEOUT).
func requestTimeoutFlag() *cli.DurationFlag {
	return &cli.DurationFlag{Name: "request-timeout", Usage: "`DURATION` after which one API request fails (an unreachable or silent cluster is an error, exit 1)", Value: defaultRequestTimeout, EnvVars: []string{"SYLVA_PLANNER_REQUEST_TIMEOUT"}}
}

// withConnectionFlags adds connectionFlags to every command (and
// subcommand) that takes --kubeconfig, and has it read --request-timeout,
// --as and --as-group into the environment before the command runs.
func withConnectionFlags(cmds []*cli.Command) {
	for _, cmd := range cmds {
		withConnectionFlags(cmd.Subcommands)
		if !slices.ContainsFunc(cmd.Flags, func(f cli.Flag) bool { return slices.Contains(f.Names(), "kubeconfig") }) {
			continue
		}
		cmd.Flags = append(cmd.Flags, connectionFlags()...)
		before := cmd.Before
		cmd.Before = func(c *cli.Context) error {
			d := c.Duration("request-timeout")
			if d <= 0 {
				return withCode(exitError, fmt.Errorf("--request-timeout %s: want a positive duration such as 30s", d))
			}
			e := envOf(c)
			e.requestTimeout, e.as, e.asGroups = d, c.String("as"), c.StringSlice("as-group")
			if len(e.asGroups) > 0 && e.as == "" {
				return withCode(exitError, errors.New("--as-group needs --as (the user the groups belong to), as with kubectl"))
			}
			if before != nil {
				return before(c)
			}
			return nil
		}
	}
}
