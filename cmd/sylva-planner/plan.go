package main

import "github.com/urfave/cli/v2"

func planCommand() *cli.Command {
	return &cli.Command{Name: "plan", Usage: "compute the passes of a release transition", Action: func(*cli.Context) error { return nil }}
}
