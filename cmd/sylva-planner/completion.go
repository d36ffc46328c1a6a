package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/cliapp"
)

func completionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script: bash, zsh or fish",
		ArgsUsage: "bash|zsh|fish",
		Description: "Completes commands, partial flags and flag values: output formats for -o, the\n" +
			"catalog's Sylva releases for --from and --to, Kubernetes minors for --workers, file names for\n" +
			"the flags that take a file.\n\n" +
			"As `kubectl sylva-planner` (kubectl 1.26 and later), link the binary as\n" +
			"kubectl_complete-sylva_planner on the PATH: kubectl runs it to complete the plugin.\n\n" +
			"Examples:\n" +
			"  # bash, in ~/.bashrc\n" +
			"  source <(sylva-planner completion bash)\n\n" +
			"  # zsh, in ~/.zshrc\n" +
			"  source <(sylva-planner completion zsh)\n\n" +
			"  # fish, in ~/.config/fish/config.fish\n" +
			"  sylva-planner completion fish | source\n\n" +
			"Exit codes:\n" +
			"  0 the script was printed\n" +
			"  1 no shell, or one it does not know",
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return &cliapp.UsageError{Msg: "completion takes one shell: bash, zsh or fish", Hint: c.Command.HelpName}
			}
			script, ok := cliapp.Script(c.Args().First())
			if !ok {
				return &cliapp.UsageError{Msg: fmt.Sprintf("unknown shell %q (valid: bash, zsh, fish)", c.Args().First()), Hint: c.Command.HelpName}
			}
			_, err := io.WriteString(cliapp.EnvOf(c).Stdout, script)
			return err
		},
	}
}

// completer completes what only this application knows: the catalog's
// releases (--from, --to, --release, catalog show), Kubernetes minors
// (--workers, --kubernetes), the bootstrap providers and the shells.
var completer = cliapp.Completer{
	FlagValues: func(name string) ([]string, bool) {
		switch name {
		case "from", "to", "release":
			if cat, err := catalog.Default(); err == nil {
				return cat.ReleaseNames(), true
			}
		case "workers", "kubernetes":
			if cat, err := catalog.Default(); err == nil {
				return cat.KubernetesMinors(), true
			}
		case "bootstrap-provider":
			return []string{"kubeadm", "rke2"}, true
		case "bootstrap":
			return []string{"kadm", "rke2", "ck8s"}, true
		}
		return nil, false
	},
	Args: func(cmd *cli.Command) []string {
		switch cmd.Name {
		case "show":
			if cat, err := catalog.Default(); err == nil {
				return cat.ReleaseNames()
			}
		case "completion":
			return []string{"bash", "zsh", "fish"}
		}
		return nil
	},
}
