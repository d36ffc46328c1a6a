package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/client-go/rest"

	"gitlab.com/sylva-projects/sylva-planner/action"
	"gitlab.com/sylva-projects/sylva-planner/cliapp"
	"gitlab.com/sylva-projects/sylva-planner/live"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

// This file holds the sources the action package reads: files named on the
// command line, and a live cluster (package live).

// statusFile is the sylva-units-status ConfigMap (or a List with the Flux
// objects) in a file named by flag; of a List of several namespaces, those
// of namespace (-n).
type statusFile struct {
	e           *cliapp.Env
	flag, name  string
	helmRelease string
	namespace   string
}

func (s statusFile) Observation(context.Context) (status.Observation, error) {
	data, err := s.e.ReadFile(s.flag, s.name)
	if err != nil {
		return status.Observation{}, err
	}
	obs, err := status.DecodeNamespaceObservation(data, s.helmRelease, s.namespace)
	if err != nil {
		return status.Observation{}, fmt.Errorf("%s %s: %w", s.flag, s.name, err)
	}
	return obs, nil
}

func (s statusFile) Input() string { return "status " + filepath.ToSlash(s.name) }

// statusSource is the status source o names: its file, or the cluster.
func statusSource(e *cliapp.Env, o statusOptions) action.StatusSource {
	if o.file != "" {
		flag := o.fileFlag
		if flag == "" {
			flag = "--file"
		}
		return statusFile{e: e, flag: flag, name: o.file, helmRelease: o.helmRelease, namespace: o.namespace}
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
