package live

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"gitlab.com/sylva-projects/sylva-planner/status"
	"gitlab.com/sylva-projects/sylva-planner/status/statuskube"
)

// Status reads the ConfigMap, Kustomization and HelmRelease of a release
// namespace (statuskube.Reader.Read): an action's StatusSource.
type Status struct {
	Cluster                Cluster
	Namespace, HelmRelease string
	contextName            string
}

// Observation reads the objects. Nothing found is a fresh install only on
// a Kubernetes API server: any other server answers 404 to everything.
func (s *Status) Observation(ctx context.Context) (status.Observation, error) {
	cfg, ctxName, err := s.Cluster.Config()
	if err != nil {
		return status.Observation{}, err
	}
	s.contextName = ctxName
	r, err := statuskube.NewReader(cfg, statuskube.Options{HelmRelease: s.HelmRelease, Context: ctxName})
	if err != nil {
		return status.Observation{}, err
	}
	obs, err := r.Read(ctx, s.Namespace)
	if err == nil && obs.ConfigMap == nil {
		err = CheckAPIServer(ctx, cfg, ctxName)
	}
	return obs, err
}

// Input names what was read.
func (s *Status) Input() string {
	return fmt.Sprintf("status live %s/%s (context %s)", s.Namespace, status.ConfigMapName, s.contextName)
}

// Fleet lists the objects of every namespace of a cluster
// (statuskube.Reader.ReadAll): an action's FleetSource.
type Fleet struct {
	Cluster     Cluster
	HelmRelease string
	contextName string
}

// Fleet reads every release namespace.
func (s *Fleet) Fleet(ctx context.Context) ([]status.FleetEntry, error) {
	cfg, ctxName, err := s.Cluster.Config()
	if err != nil {
		return nil, err
	}
	s.contextName = ctxName
	r, err := statuskube.NewReader(cfg, statuskube.Options{HelmRelease: s.HelmRelease, Context: ctxName})
	if err != nil {
		return nil, err
	}
	entries, err := r.ReadAll(ctx)
	if apierrors.IsNotFound(err) {
		// ConfigMaps are always served by a Kubernetes API server.
		if e := CheckAPIServer(ctx, cfg, ctxName); e != nil {
			return nil, e
		}
	}
	return entries, err
}

// Input names what was read.
func (s *Fleet) Input() string {
	return fmt.Sprintf("status live all namespaces (context %s)", s.contextName)
}
