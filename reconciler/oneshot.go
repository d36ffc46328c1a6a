package reconciler

import (
	"fmt"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"gitlab.com/sylva-projects/sylva-planner/status/statuskube"
)

// NewOneShot is the Applier of a one-shot command (reconcile): a client
// of the cluster cfg points at, reading from the API server, and the
// Event recorder to Close once done. It reads the Cluster API objects of
// the namespace too (Applier.ClusterAPI). where names the cluster in errors
// (" (context NAME)").
func NewOneShot(cfg *rest.Config, userAgent, where string, now func() time.Time) (*Applier, *OneShotRecorder, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.UserAgent = userAgent
	cl, err := client.New(cfg, client.Options{Scheme: Scheme()})
	if err != nil {
		return nil, nil, fmt.Errorf("build a client%s: %w", where, err)
	}
	core, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("build a client%s: %w", where, err)
	}
	capi, err := statuskube.NewClusterAPIForConfig(cfg, cl)
	if err != nil {
		return nil, nil, fmt.Errorf("build a discovery client%s: %w", where, err)
	}
	rec := NewOneShotRecorder(core.CoreV1(), "sylva-planner")
	return &Applier{Reader: cl, Writer: cl, ClusterAPI: capi, Recorder: rec, Now: now}, rec, nil
}
