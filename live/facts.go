package live

import (
	"context"
	"fmt"

	"gitlab.com/sylva-projects/sylva-planner/inventory"
	inventorykube "gitlab.com/sylva-projects/sylva-planner/inventory/inventorykube"
)

// Facts reads the facts of a live cluster in one pass (inventory/inventorykube's
// Collect): an action's FactsSource.
type Facts struct {
	Cluster     Cluster
	contextName string
}

// Facts reads the cluster.
func (s *Facts) Facts(ctx context.Context) (*inventory.Facts, error) {
	cfg, ctxName, err := s.Cluster.Config()
	if err != nil {
		return nil, err
	}
	s.contextName = ctxName
	if err := CheckAPIServer(ctx, cfg, ctxName); err != nil {
		return nil, err
	}
	return inventorykube.Collect(ctx, cfg, inventorykube.Options{Context: ctxName})
}

// Input names what was read.
func (s *Facts) Input() string { return fmt.Sprintf("cluster live (context %s)", s.contextName) }

// Nodes reads only the Nodes and the DaemonSets' images of a live cluster
// (inventory/inventorykube's CollectNodes): what verify checks, with no more rights
// than listing them.
type Nodes struct {
	Cluster Cluster
}

// Facts reads the cluster.
func (s *Nodes) Facts(ctx context.Context) (*inventory.Facts, error) {
	cfg, ctxName, err := s.Cluster.Config()
	if err != nil {
		return nil, err
	}
	return inventorykube.CollectNodes(ctx, cfg, inventorykube.Options{Context: ctxName})
}

// Input names what was read.
func (s *Nodes) Input() string { return "cluster live" }
