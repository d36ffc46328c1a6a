package main

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/client-go/rest"

	"gitlab.com/sylva-projects/sylva-planner/action"
	"gitlab.com/sylva-projects/sylva-planner/cliapp"
	"gitlab.com/sylva-projects/sylva-planner/live"
)

// This file holds the sources the action package reads: files named on the
// command line, and a live cluster (package live).

// fileReader is the flag that named o's file (--file unless o says) and
// a reader of the files given with it, whose errors name the flag.
func (o statusOptions) fileReader(e *cliapp.Env) (string, func(string) ([]byte, error)) {
	flag := cmp.Or(o.fileFlag, "--file")
	return flag, func(name string) ([]byte, error) { return e.ReadFile(flag, name) }
}

// statusSource is the status source o names: its file, or the cluster.
func statusSource(e *cliapp.Env, o statusOptions) action.StatusSource {
	if o.file != "" {
		flag, read := o.fileReader(e)
		return action.StatusFile{Read: read, Flag: flag, Name: o.file, HelmRelease: o.helmRelease, Namespace: o.namespace}
	}
	return &live.Status{Cluster: cluster(e, o.kubeconfig, o.context), Namespace: o.namespace, HelmRelease: o.helmRelease}
}

// cluster is the live cluster the connection flags name.
func cluster(e *cliapp.Env, kubeconfig, context string) live.Cluster {
	return live.Cluster{Config: func() (*rest.Config, string, error) { return restConfig(e, kubeconfig, context) }}
}

// manifests is the manifests directory given with flag, refused when it is
// not a readable directory.
func manifests(e *cliapp.Env, flag, dir string) (action.Manifests, error) {
	if st, err := os.Stat(e.Path(dir)); err != nil || !st.IsDir() {
		return action.Manifests{}, fmt.Errorf("%s %s: not a readable directory", flag, dir)
	}
	return action.Manifests{FS: e.DirFS(dir), Dir: filepath.ToSlash(dir), Flag: flag}, nil
}
