package live

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"

	"gitlab.com/sylva-projects/sylva-planner/values/helmengine"
)

var _ helmengine.ServedSource = (*Objects)(nil)

// Objects reads objects from a cluster, read-only, for lookup: a
// helmengine.Source. Kinds the cluster does not serve read as absent.
type Objects struct {
	dyn    dynamic.Interface
	disc   discovery.CachedDiscoveryInterface
	mapper meta.RESTMapper
}

// NewObjects connects to the cluster.
func NewObjects(c Cluster) (*Objects, error) {
	cfg, _, err := c.Config()
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("cluster client: %w", err)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("discovery client: %w", err)
	}
	cached := memory.NewMemCacheClient(dc)
	return &Objects{dyn: dyn, disc: cached, mapper: restmapper.NewDeferredDiscoveryRESTMapper(cached)}, nil
}

// APIVersions are the API versions the cluster serves, as helm-controller
// gives them to a render (.Capabilities.APIVersions): "group/version" and
// "group/version/Kind" of each resource (helmengine.ServedSource). A group
// that fails discovery is left out, as Helm leaves it.
func (s *Objects) APIVersions() ([]string, error) {
	_, lists, err := discovery.ServerGroupsAndResources(s.disc)
	if err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
		return nil, err
	}
	var out []string
	for _, l := range lists {
		out = append(out, l.GroupVersion)
		for _, r := range l.APIResources {
			out = append(out, l.GroupVersion+"/"+r.Kind)
		}
	}
	return out, nil
}

func (s *Objects) resource(apiVersion, kind, namespace string) (dynamic.ResourceInterface, error) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, err
	}
	m, err := s.mapper.RESTMapping(gv.WithKind(kind).GroupKind(), gv.Version)
	if err != nil {
		return nil, err
	}
	r := s.dyn.Resource(m.Resource)
	if m.Scope.Name() == meta.RESTScopeNameNamespace && namespace != "" {
		return r.Namespace(namespace), nil
	}
	return r, nil
}

// Get reads one object.
func (s *Objects) Get(ctx context.Context, apiVersion, kind, namespace, name string) (map[string]any, bool, error) {
	r, err := s.resource(apiVersion, kind, namespace)
	if meta.IsNoMatchError(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	obj, err := r.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return obj.Object, true, nil
}

// List lists the objects of a kind in namespace (every namespace when
// empty).
func (s *Objects) List(ctx context.Context, apiVersion, kind, namespace string) ([]map[string]any, error) {
	r, err := s.resource(apiVersion, kind, namespace)
	if meta.IsNoMatchError(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	list, err := r.List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, 0, len(list.Items))
	for _, it := range list.Items {
		out = append(out, it.Object)
	}
	return out, nil
}
