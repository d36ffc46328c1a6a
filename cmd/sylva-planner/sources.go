package main

import (
	"k8s.io/client-go/rest"

	"gitlab.com/sylva-projects/sylva-planner/action"
	"gitlab.com/sylva-projects/sylva-planner/cliapp"
	"gitlab.com/sylva-projects/sylva-planner/live"
)

// This file holds where the inputs the command line names are read
// (action.Readers): files and directories, and a live cluster (package
// live). The actions choose among them (action.Sources).

// readersOf reads the files of e and connects to the clusters its
// kubeconfig rule finds.
func readersOf(e *cliapp.Env) action.Readers {
	return action.Readers{
		ReadFile: e.ReadFile, Read: e.Read, DirFS: e.DirFS,
		Cluster: func(kubeconfig, context string) action.Cluster {
			return live.Sources{Cluster: cluster(e, kubeconfig, context)}
		},
	}
}

// cluster is the live cluster the connection flags name.
func cluster(e *cliapp.Env, kubeconfig, context string) live.Cluster {
	return live.Cluster{Config: func() (*rest.Config, string, error) { return restConfig(e, kubeconfig, context) }}
}
