package envelope

import (
	"path/filepath"
	"strings"
)

// DefaultProgram is how the tool is run when Selection.Program is empty.
const DefaultProgram = "sylva-planner"

// Selection is what a command was told to read: the flags that select the
// cluster (--kubeconfig, --context), the release namespace (-n), the
// catalog (--catalog), the chart (--chart), the target release (--to) and
// the file holding the cluster's state (the sylva-units-status ConfigMap:
// status -f, plan --status), as given on the command line. Every command a
// result suggests ("Next:" and hints) repeats them, so that it reads the
// same cluster, namespace, catalog, chart and target, and only those.
//
// The zero Selection suggests commands with no selecting flag, run as
// DefaultProgram. An empty field is a flag not given. A command suggested
// to run in another directory (a hint that starts "in your
// environment-values directory, …") takes the selection of Abs, whose
// paths do not depend on the directory.
type Selection struct {
	// Program is how the user runs the tool: "sylva-planner", or
	// "kubectl sylva-planner" for the kubectl plugin.
	Program    string
	Kubeconfig string
	Context    string
	Namespace  string
	Catalog    string
	Chart      string
	To         string
	// HelmRelease is the name of the sylva-units HelmRelease when it is
	// not the default (--helmrelease).
	HelmRelease string
	// State is the file that holds the cluster's state (a
	// sylva-units-status ConfigMap, or a List with the Flux objects), read
	// instead of the cluster.
	State string
	// Dir is the absolute directory the command ran in, which the relative
	// paths of the selection (Kubeconfig, Catalog, Chart, State) are
	// relative to; empty when unknown. The caller sets it from the
	// command's environment; only Abs reads it.
	Dir string
}

// Selecting flags, in the order a suggested command lists them.
const (
	flagKubeconfig  = "--kubeconfig"
	flagContext     = "--context"
	flagNamespace   = "-n"
	flagCatalog     = "--catalog"
	flagChart       = "--chart"
	flagTo          = "--to"
	flagHelmRelease = "--helmrelease"
)

// takes lists, for each command a result may suggest, the selecting flags
// it takes and the name of its flag for Selection.State ("" when it reads
// no state file). A command missing here takes none.
var takes = map[string]struct {
	flags []string
	state string
}{
	"plan":            {[]string{flagKubeconfig, flagContext, flagNamespace, flagCatalog, flagTo}, "--status"},
	"report":          {[]string{flagKubeconfig, flagContext, flagNamespace, flagCatalog, flagTo}, "--status"},
	"status":          {[]string{flagKubeconfig, flagContext, flagNamespace, flagHelmRelease, flagCatalog, flagTo}, "-f"},
	"reconcile":       {[]string{flagKubeconfig, flagContext, flagNamespace, flagHelmRelease, flagCatalog, flagTo}, ""},
	"verify":          {[]string{flagKubeconfig, flagContext, flagNamespace, flagCatalog, flagTo}, "--status"},
	"drain-check":     {[]string{flagKubeconfig, flagContext}, ""},
	"prune-audit":     {[]string{flagCatalog, flagChart}, ""},
	"ci-matrix":       {[]string{flagCatalog}, ""},
	"values generate": {[]string{flagNamespace, flagCatalog, flagChart, flagTo}, ""},
	"values check":    {[]string{flagNamespace, flagCatalog, flagChart, flagTo}, ""},
	"values render":   {[]string{flagKubeconfig, flagContext, flagNamespace, flagCatalog, flagChart, flagTo}, "--status"},
	"catalog list":    {[]string{flagCatalog}, ""},
	"catalog show":    {[]string{flagCatalog}, ""},
}

// SelectingFlags returns the selecting flags command takes (the long name
// of -n is --namespace) and its flag for Selection.State, "" for none.
// Tests use it to check the list against the command line.
func SelectingFlags(command string) (flags []string, state string) {
	t := takes[command]
	for _, f := range t.flags {
		if f == flagNamespace {
			f = "--namespace"
		}
		flags = append(flags, f)
	}
	return flags, t.state
}

// Command returns the command line that runs the tool's command (such as
// "status" or "values generate") with args, then the selecting flags of s
// that command takes and args do not already give, each value quoted for a
// POSIX shell. args are written as given: quote them with ShellQuote.
func (s Selection) Command(command string, args ...string) string {
	parts := append([]string{s.program(), command}, args...)
	given := func(flag string) bool {
		for _, a := range args {
			if a == flag || (flag == flagNamespace && a == "--namespace") || (flag == "-f" && a == "--file") {
				return true
			}
		}
		return false
	}
	t := takes[command]
	for _, f := range t.flags {
		if v := s.value(f); v != "" && !given(f) {
			parts = append(parts, f, ShellQuote(v))
		}
	}
	if t.state != "" && s.State != "" && !given(t.state) {
		parts = append(parts, t.state, ShellQuote(s.State))
	}
	return strings.Join(parts, " ")
}

// Kubectl returns the kubectl command that reads the cluster of s: kubectl
// with its --kubeconfig and --context.
func (s Selection) Kubectl() string {
	parts := []string{"kubectl"}
	if s.Kubeconfig != "" {
		parts = append(parts, flagKubeconfig, ShellQuote(s.Kubeconfig))
	}
	if s.Context != "" {
		parts = append(parts, flagContext, ShellQuote(s.Context))
	}
	return strings.Join(parts, " ")
}

// Abs is s for a command that runs in another directory than the one s
// was given in: each relative path (Kubeconfig, Catalog, Chart, State)
// joined to Dir, so that the command reads the same files from anywhere.
// With no Dir, s as it is.
func (s Selection) Abs() Selection {
	if s.Dir == "" {
		return s
	}
	abs := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(s.Dir, p)
	}
	s.Kubeconfig, s.Catalog, s.Chart, s.State = abs(s.Kubeconfig), abs(s.Catalog), abs(s.Chart), abs(s.State)
	return s
}

// HasState reports whether s reads the cluster's state from a file.
func (s Selection) HasState() bool { return s.State != "" }

// Live is s without its state file: the selection of a command that
// follows the cluster over time (wait, then check again; follow the
// passes), which a file read once cannot show.
func (s Selection) Live() Selection {
	s.State = ""
	return s
}

func (s Selection) program() string {
	if s.Program == "" {
		return DefaultProgram
	}
	return s.Program
}

func (s Selection) value(flag string) string {
	switch flag {
	case flagKubeconfig:
		return s.Kubeconfig
	case flagContext:
		return s.Context
	case flagNamespace:
		return s.Namespace
	case flagCatalog:
		return s.Catalog
	case flagChart:
		return s.Chart
	case flagTo:
		return s.To
	case flagHelmRelease:
		return s.HelmRelease
	}
	return ""
}

// RepeatFlag is flag given once per value, each value quoted for a shell
// (ShellQuote): the arguments of Selection.Command for a repeatable flag
// such as -f.
func RepeatFlag(flag string, values []string) []string {
	args := make([]string, 0, 2*len(values))
	for _, v := range values {
		args = append(args, flag, ShellQuote(v))
	}
	return args
}

// ShellQuote quotes s for a POSIX shell when it holds anything but
// letters, digits and -_./:=,+@%.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
