package live

import (
	"gitlab.com/sylva-projects/sylva-planner/action"
	"gitlab.com/sylva-projects/sylva-planner/values/helmengine"
)

// Sources are the sources of a cluster the actions read (action.Cluster).
type Sources struct{ Cluster Cluster }

// Status reads the status objects of a release namespace.
func (s Sources) Status(namespace, helmRelease string) action.StatusSource {
	return &Status{Cluster: s.Cluster, Namespace: namespace, HelmRelease: helmRelease}
}

// Fleet reads the status objects of every namespace.
func (s Sources) Fleet(helmRelease string) action.FleetSource {
	return &Fleet{Cluster: s.Cluster, HelmRelease: helmRelease}
}

// Facts reads what runs.
func (s Sources) Facts() action.FactsSource { return &Facts{Cluster: s.Cluster} }

// Nodes reads the nodes and the DaemonSets' images.
func (s Sources) Nodes() action.FactsSource { return &Nodes{Cluster: s.Cluster} }

// Objects serves lookup.
func (s Sources) Objects() (helmengine.Source, error) { return NewObjects(s.Cluster) }
