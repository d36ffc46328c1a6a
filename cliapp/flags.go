package cliapp

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/urfave/cli/v2"
)

// The flags every command that takes them declares the same way: -o (its
// formats in output.go), --fail-on, --as-of, -n, and the Kubernetes
// connection flags, with the same names, environment variables and
// meaning in every command.

// FailOnFlag is --fail-on with the thresholds a command accepts, the
// first its default, read from envVar when not given; FailOnOf reads it.
func FailOnFlag[T ~string](usage, envVar string, allowed ...T) *cli.GenericFlag {
	return &cli.GenericFlag{
		Name:    "fail-on",
		Usage:   usage,
		Value:   NewEnum("--fail-on value", allowed...),
		EnvVars: []string{envVar},
	}
}

// FailOnOf is the --fail-on threshold of c.
func FailOnOf[T ~string](c *cli.Context) T { return EnumOf[T](c, "fail-on") }

// AsOfFlag is --as-of (SYLVA_PLANNER_AS_OF), the date of the result and
// of its documents' metadata.asOf: every command that writes a document
// declares it, so that its output can be pinned.
func AsOfFlag() *cli.StringFlag {
	return &cli.StringFlag{
		Name:    "as-of",
		Usage:   "`DATE` (YYYY-MM-DD) the result is computed for, its metadata.asOf (default: today, UTC); same inputs and date give the same bytes",
		EnvVars: []string{"SYLVA_PLANNER_AS_OF"},
	}
}

// AsOfOf is --as-of, or the day of the run (Env.Today).
func AsOfOf(c *cli.Context) (time.Time, error) {
	s := c.String("as-of")
	if s == "" {
		return EnvOf(c).Today, nil
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s %q is not a date; use YYYY-MM-DD, for example --as-of 2026-11-30", FlagName(c, "as-of"), s)
	}
	return t, nil
}

// The Kubernetes connection flags, declared once: every command that reads
// a cluster takes them with the same names, environment variables and
// meaning, kubectl's loading rule: --kubeconfig, else the files listed in
// KUBECONFIG, else ~/.kube/config, else the pod's service account; the
// current context unless --context; --as and --as-group impersonate.

// KubeconfigFlag is --kubeconfig (SYLVA_PLANNER_KUBECONFIG). A command
// that reads a cluster declares it; WithConnectionFlags then adds the rest
// of the connection flags.
func KubeconfigFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "kubeconfig", Usage: "kubeconfig `FILE` (default: the files in KUBECONFIG, then ~/.kube/config, then in-cluster); it and the files it names must be regular files of at most 16 MiB, and an exec plugin must answer within --request-timeout", EnvVars: []string{"SYLVA_PLANNER_KUBECONFIG"}, TakesFile: true}
}

// contextFlag is --context, the kubeconfig context.
func contextFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "context", Usage: "kubeconfig `CONTEXT` (default: the current context)", EnvVars: []string{"SYLVA_PLANNER_CONTEXT"}}
}

// Connection is the cluster a command reads, as its flags name it:
// --kubeconfig and --context (Flags binds them), and --live where the
// command stays offline unless asked (LiveFlags binds it too).
type Connection struct {
	Live                bool
	Kubeconfig, Context string
}

// Flags are --kubeconfig and --context, bound to k (WithConnectionFlags
// moves --context among the other connection flags it adds).
func (k *Connection) Flags() []cli.Flag {
	kc, ctx := KubeconfigFlag(), contextFlag()
	kc.Destination, ctx.Destination = &k.Kubeconfig, &k.Context
	return []cli.Flag{kc, ctx}
}

// LiveFlags are Flags and --live (LiveFlag of reads), bound to k.
func (k *Connection) LiveFlags(reads string) []cli.Flag {
	live := LiveFlag(reads)
	live.Destination = &k.Live
	return append([]cli.Flag{live}, k.Flags()...)
}

// Asked reports whether a command that stays offline unless asked reads a
// cluster: --live, --kubeconfig or --context. KUBECONFIG alone does not
// make it live.
func (k Connection) Asked() bool { return k.Live || k.Kubeconfig != "" || k.Context != "" }

// connectionFlags are the connection flags beside --kubeconfig: --context,
// --as, --as-group and --request-timeout.
func connectionFlags() []cli.Flag {
	return []cli.Flag{
		contextFlag(),
		&cli.StringFlag{Name: "as", Usage: "`USER` every request impersonates, as kubectl --as"},
		&cli.StringSliceFlag{Name: "as-group", Usage: "`GROUP` every request impersonates, as kubectl --as-group (repeat for several)"},
		&cli.DurationFlag{Name: "request-timeout", Usage: "`DURATION` after which one API request fails (an unreachable or silent cluster is an error, exit 1)", Value: DefaultRequestTimeout, EnvVars: []string{"SYLVA_PLANNER_REQUEST_TIMEOUT"}},
	}
}

// DefaultRequestTimeout bounds each API request, so that a silent or
// unreachable cluster fails instead of hanging.
const DefaultRequestTimeout = 30 * time.Second

// LiveFlag is --live for the commands that stay offline unless asked: with
// it, or with an explicit --kubeconfig or --context, they read the cluster
// of the connection flags.
func LiveFlag(reads string) *cli.BoolFlag {
	return &cli.BoolFlag{Name: "live", Usage: "read " + reads + " from the cluster of the kubeconfig rule (implied by --kubeconfig or --context)"}
}

// NamespaceEnv is the environment variable that sets -n.
const NamespaceEnv = "SYLVA_PLANNER_NAMESPACE"

// NamespaceFlag is -n/--namespace (NamespaceEnv) with the default value,
// "" for none.
func NamespaceFlag(usage, value string) *cli.StringFlag {
	return &cli.StringFlag{Name: "namespace", Aliases: []string{"n"}, Usage: usage, Value: value, EnvVars: []string{NamespaceEnv}}
}

// NamespaceOf is -n/--namespace, refused when set empty (an empty -n or
// SYLVA_PLANNER_NAMESPACE=): an empty namespace would mean every namespace
// to the API, and a command must never widen what it reads by accident.
func NamespaceOf(c *cli.Context) (string, error) {
	ns := c.String("namespace")
	if ns == "" {
		return "", fmt.Errorf("--namespace is empty (-n '' or SYLVA_PLANNER_NAMESPACE= set empty); give the release namespace, for example -n sylva-system, or unset SYLVA_PLANNER_NAMESPACE")
	}
	return ns, nil
}

// WithConnectionFlags adds the connection flags to every command (and
// subcommand) that takes --kubeconfig, and has it read --request-timeout,
// --as and --as-group into the environment before the command runs.
func WithConnectionFlags(cmds []*cli.Command) {
	for _, cmd := range cmds {
		WithConnectionFlags(cmd.Subcommands)
		if !slices.ContainsFunc(cmd.Flags, func(f cli.Flag) bool { return slices.Contains(f.Names(), "kubeconfig") }) {
			continue
		}
		for _, f := range connectionFlags() {
			// One the command declares (bound, by Connection.Flags) takes
			// the place of the default, after the command's own flags.
			if i := slices.IndexFunc(cmd.Flags, func(g cli.Flag) bool { return slices.Contains(g.Names(), f.Names()[0]) }); i >= 0 {
				f = cmd.Flags[i]
				cmd.Flags = slices.Delete(cmd.Flags, i, i+1)
			}
			cmd.Flags = append(cmd.Flags, f)
		}
		AddBefore(cmd, func(c *cli.Context) error {
			d := c.Duration("request-timeout")
			if d <= 0 {
				return fmt.Errorf("--request-timeout %s: want a positive duration such as 30s", d)
			}
			e := EnvOf(c)
			e.RequestTimeout, e.As, e.AsGroups = d, c.String("as"), c.StringSlice("as-group")
			if len(e.AsGroups) > 0 && e.As == "" {
				return errors.New("--as-group needs --as (the user the groups belong to), as with kubectl")
			}
			return nil
		})
	}
}

// FromEnv returns the environment variable the value of string flag name came
// from, when it came from one rather than from the command line: one of
// the flag's variables is set and the flag's value is that variable's (a
// flag typed with the same value reads the same either way).
func FromEnv(c *cli.Context, name string) (string, bool) {
	for _, ctx := range c.Lineage() {
		var flags []cli.Flag
		switch {
		case ctx.Command != nil:
			flags = ctx.Command.Flags
		case ctx.App != nil:
			flags = ctx.App.Flags
		}
		for _, f := range flags {
			ev, ok := f.(interface{ GetEnvVars() []string })
			if !ok || !slices.Contains(f.Names(), name) {
				continue
			}
			for _, v := range ev.GetEnvVars() {
				if val := EnvOf(c).Getenv(v); val != "" && val == c.String(name) {
					return v, true
				}
			}
			return "", false
		}
	}
	return "", false
}

// Typed reports whether flag name was given on the command line, not only
// through its environment variable. Where two flags cannot go together,
// one set in the environment yields to one typed (the environment holds
// defaults, the command line what this run asks).
func Typed(c *cli.Context, name string) bool {
	if !c.IsSet(name) {
		return false
	}
	_, env := FromEnv(c, name)
	return !env
}

// FlagName is how an error names the input of flag name: --name, or the
// environment variable its value came from.
func FlagName(c *cli.Context, name string) string {
	if v, ok := FromEnv(c, name); ok {
		return v
	}
	return "--" + name
}

// OneSource settles two ways of giving the same input, each a group of
// string flags (a file, and --kubeconfig/--context): both typed on the
// command line, or both set only in the environment, is a usage error
// saying conflict; a group set only in the environment yields to one
// typed. It returns each flag's value as the run takes it ("" for the
// flags of a group that yielded).
func OneSource(c *cli.Context, a, b []string, conflict string) (func(name string) string, error) {
	given := func(group []string) (set, typed bool) {
		for _, n := range group {
			if c.String(n) != "" {
				set = true
				typed = typed || Typed(c, n)
			}
		}
		return set, typed
	}
	aSet, aTyped := given(a)
	bSet, bTyped := given(b)
	var drop []string
	switch {
	case !aSet || !bSet:
	case aTyped && !bTyped:
		drop = b
	case bTyped && !aTyped:
		drop = a
	default:
		return nil, FlagError(c, errors.New(conflict))
	}
	return func(name string) string {
		if slices.Contains(drop, name) {
			return ""
		}
		return c.String(name)
	}, nil
}
