package statuskube

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"gitlab.com/sylva-projects/sylva-planner/status"
)

// capiKind is a Cluster API kind ReadAll lists: its group, kind and
// resource.
type capiKind struct {
	group, kind, resource string
}

func (k capiKind) groupResource() schema.GroupResource {
	return schema.GroupResource{Group: k.group, Resource: k.resource}
}

// capiKinds are the Cluster API kinds ReadAll lists, in the order it lists
// them: the control plane kinds of status.ControlPlaneKinds, then
// MachineDeployments.
var capiKinds = []capiKind{
	{status.ControlPlaneGroup, "KubeadmControlPlane", "kubeadmcontrolplanes"},
	{status.ControlPlaneGroup, "RKE2ControlPlane", "rke2controlplanes"},
	{status.ControlPlaneGroup, "CK8sControlPlane", "ck8scontrolplanes"},
	{status.ControlPlaneGroup, "OpenshiftAssistedControlPlane", "openshiftassistedcontrolplanes"},
	{status.ClusterAPIGroup, status.KindMachineDeployment, "machinedeployments"},
}

// capiVersions are the versions of the Cluster API kinds the reader's
// mapper knows; discovery picks the one the server prefers among those
// it serves. Without discovery (NewReaderForClient), the first is read.
var capiVersions = []string{"v1beta2", "v1beta1", "v1alpha4", "v1alpha3", "v1alpha2", "v1alpha1", "v1"}

// addCAPIKinds lets m map every Cluster API kind read, at every version
// of capiVersions, without asking the server.
func addCAPIKinds(m *meta.DefaultRESTMapper) {
	for _, k := range capiKinds {
		for _, v := range capiVersions {
			gv := schema.GroupVersion{Group: k.group, Version: v}
			m.AddSpecific(gv.WithKind(k.kind), gv.WithResource(k.resource), gv.WithResource(k.resource), meta.RESTScopeNamespace)
		}
	}
}

// servedVersions says, for each Cluster API resource the server serves,
// the version to read it at; a resource absent from the map is not
// served.
type servedVersions func(ctx context.Context) (map[schema.GroupResource]string, error)

// discoverCAPI returns the servedVersions of the server cfg points at:
// one request for the aggregated discovery of /apis (every group, version
// and resource), or, from a server that does not serve it, one for each
// version of the two Cluster API groups.
func discoverCAPI(cfg *rest.Config) (servedVersions, rest.Interface, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, nil, err
	}
	rc := dc.RESTClient()
	return func(ctx context.Context) (map[schema.GroupResource]string, error) {
		raw, err := rc.Get().AbsPath("/apis").SetHeader("Accept", discovery.AcceptV2+","+discovery.AcceptV1).Do(ctx).Raw()
		if apierrors.IsNotFound(err) {
			// A server that serves no API group serves no Cluster API
			// kind (what else it is, the other reads say).
			return map[schema.GroupResource]string{}, nil
		}
		if err != nil {
			return nil, err
		}
		var head metav1.TypeMeta
		if err := json.Unmarshal(raw, &head); err != nil {
			return nil, fmt.Errorf("decode /apis: %w", err)
		}
		served := map[schema.GroupResource]string{}
		want := func(gr schema.GroupResource, v string) {
			if _, seen := served[gr]; seen || !slices.Contains(capiVersions, v) {
				return
			}
			for _, k := range capiKinds {
				if k.groupResource() == gr {
					served[gr] = v
				}
			}
		}
		if head.Kind == "APIGroupDiscoveryList" {
			var list apidiscoveryv2.APIGroupDiscoveryList
			if err := json.Unmarshal(raw, &list); err != nil {
				return nil, fmt.Errorf("decode /apis: %w", err)
			}
			// Versions are listed in the server's order of preference.
			for _, g := range list.Items {
				for _, v := range g.Versions {
					for _, r := range v.Resources {
						want(schema.GroupResource{Group: g.Name, Resource: r.Resource}, v.Version)
					}
				}
			}
			return served, nil
		}
		var groups metav1.APIGroupList
		if err := json.Unmarshal(raw, &groups); err != nil {
			return nil, fmt.Errorf("decode /apis: %w", err)
		}
		for _, g := range groups.Groups {
			if g.Name != status.ControlPlaneGroup && g.Name != status.ClusterAPIGroup {
				continue
			}
			for _, v := range g.Versions {
				var list metav1.APIResourceList
				err := rc.Get().AbsPath("/apis", g.Name, v.Version).Do(ctx).Into(&list)
				if apierrors.IsNotFound(err) {
					continue
				}
				if err != nil {
					return nil, err
				}
				for _, r := range list.APIResources {
					want(schema.GroupResource{Group: g.Name, Resource: r.Name}, v.Version)
				}
			}
		}
		return served, nil
	}, rc, nil
}

// ClusterAPI reads the Cluster API objects that say which Kubernetes
// minors a cluster runs: each control plane kind of capiKinds and the
// MachineDeployments, at the version the server serves.
type ClusterAPI struct {
	client client.Reader
	// raw, when set, lists through the REST client of a configuration
	// and decodes only the fields read (listRaw); nil lists through
	// client as unstructured objects.
	raw rest.Interface
	// served says which kinds the server serves, at which version; nil
	// reads each at the first of capiVersions.
	served servedVersions
}

// NewClusterAPI reads the Cluster API objects through c, asking mapper
// which version of each kind the server serves (the controller's
// mapper, which discovers each group once and caches it).
func NewClusterAPI(c client.Reader, mapper meta.RESTMapper) *ClusterAPI {
	return &ClusterAPI{client: c, served: func(context.Context) (map[schema.GroupResource]string, error) {
		served := map[schema.GroupResource]string{}
		for _, k := range capiKinds {
			m, err := mapper.RESTMapping(schema.GroupKind{Group: k.group, Kind: k.kind}, capiVersions...)
			switch {
			case meta.IsNoMatchError(err):
				continue
			case err != nil:
				return nil, err
			}
			served[k.groupResource()] = m.Resource.Version
		}
		return served, nil
	}}
}

// NewClusterAPIForConfig reads the Cluster API objects through c, asking
// the server cfg points at which versions it serves (discoverCAPI) once:
// a command that reads several times (reconcile --wait, one read per pass)
// discovers them on its first read only.
func NewClusterAPIForConfig(cfg *rest.Config, c client.Reader) (*ClusterAPI, error) {
	served, raw, err := discoverCAPI(cfg)
	if err != nil {
		return nil, err
	}
	return &ClusterAPI{client: c, raw: raw, served: rememberServed(served)}, nil
}

// rememberServed answers with the first answer of served that was not an
// error.
func rememberServed(served servedVersions) servedVersions {
	var mu sync.Mutex
	var known map[schema.GroupResource]string
	return func(ctx context.Context) (map[schema.GroupResource]string, error) {
		mu.Lock()
		defer mu.Unlock()
		if known != nil {
			return known, nil
		}
		m, err := served(ctx)
		if err == nil {
			known = m
		}
		return m, err
	}
}

// list lists each Cluster API kind the server serves once in namespace
// (across the cluster when namespace is empty), paged by ListPageSize,
// and gives each object to add, kind by kind in the order of capiKinds.
// The kinds are listed at once. A kind not served has no object. An error
// names the kind and where it was listed (the first kind's, in that
// order); wrap adds the context.
func (c *ClusterAPI) list(ctx context.Context, namespace string, wrap func(string, error) error, add func(status.CAPIObject)) error {
	var served map[schema.GroupResource]string
	if c.served != nil {
		var err error
		if served, err = c.served(ctx); err != nil {
			return wrap("discover the Cluster API kinds the server serves", err)
		}
	}
	where := "in all namespaces"
	if namespace != "" {
		where = "in namespace " + namespace
	}
	objs := make([][]status.CAPIObject, len(capiKinds))
	errs := make([]error, len(capiKinds))
	var wg sync.WaitGroup
	for i, k := range capiKinds {
		version := capiVersions[0]
		if served != nil {
			v, ok := served[k.groupResource()]
			if !ok {
				continue
			}
			version = v
		}
		wg.Go(func() {
			gvk := schema.GroupVersionKind{Group: k.group, Version: version, Kind: k.kind + "List"}
			objs[i], errs[i] = c.listKind(ctx, gvk, namespace)
			if errs[i] != nil {
				errs[i] = &capiListError{what: k.resource + "." + k.group, err: wrap("list "+k.resource+"."+k.group+" "+where, errs[i])}
			}
		})
	}
	wg.Wait()
	for i := range capiKinds {
		if errs[i] != nil {
			return errs[i]
		}
	}
	for _, kind := range objs {
		for _, o := range kind {
			add(o)
		}
	}
	return nil
}

// listKind lists the objects of the list kind gvk in namespace (all when
// empty), paged; none when the kind is not served (no CRD).
func (c *ClusterAPI) listKind(ctx context.Context, gvk schema.GroupVersionKind, namespace string) ([]status.CAPIObject, error) {
	if c.raw != nil {
		return c.listRaw(ctx, gvk, namespace)
	}
	var out []status.CAPIObject
	opts := &client.ListOptions{Namespace: namespace, Limit: ListPageSize}
	for {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk)
		err := c.client.List(ctx, list, opts)
		if absent(err) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		for i := range list.Items {
			if o, ok := status.CAPIObjectFromMap(list.Items[i].Object); ok {
				out = append(out, o)
			}
		}
		if opts.Continue = list.GetContinue(); opts.Continue == "" {
			return out, nil
		}
	}
}

// capiList is a page of a Cluster API list, as far as it is read: each
// object's name, namespace and the two places a Kubernetes version is
// written (status.CAPIObjectFromMap). The versions are read as any, so
// that a value of another type is read as none, as from a map.
type capiList struct {
	Metadata struct {
		Continue string `json:"continue"`
	} `json:"metadata"`
	Items []struct {
		Metadata struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"metadata"`
		Spec struct {
			Version  any `json:"version"`
			Template struct {
				Spec struct {
					Version any `json:"version"`
				} `json:"spec"`
			} `json:"template"`
		} `json:"spec"`
	} `json:"items"`
}

// listRaw is listKind through the REST client: the JSON of each page
// decoded into capiList, rather than into maps of every field (across a
// fleet of two thousand clusters, most of the reading's time).
func (c *ClusterAPI) listRaw(ctx context.Context, gvk schema.GroupVersionKind, namespace string) ([]status.CAPIObject, error) {
	kind := strings.TrimSuffix(gvk.Kind, "List")
	var resource string
	for _, k := range capiKinds {
		if k.group == gvk.Group && k.kind == kind {
			resource = k.resource
		}
	}
	var out []status.CAPIObject
	cont := ""
	for {
		req := c.raw.Get().AbsPath("/apis", gvk.Group, gvk.Version).Resource(resource).Param("limit", strconv.Itoa(ListPageSize))
		if namespace != "" {
			req = req.Namespace(namespace)
		}
		if cont != "" {
			req = req.Param("continue", cont)
		}
		raw, err := req.SetHeader("Accept", "application/json").Do(ctx).Raw()
		if absent(err) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		var page capiList
		if err := json.Unmarshal(raw, &page); err != nil {
			return nil, fmt.Errorf("decode the %s list: %w", kind, err)
		}
		for _, it := range page.Items {
			v := it.Spec.Version
			if kind == status.KindMachineDeployment {
				v = it.Spec.Template.Spec.Version
			}
			version, _ := v.(string)
			out = append(out, status.CAPIObject{Kind: kind, Namespace: it.Metadata.Namespace, Name: it.Metadata.Name, Version: version})
		}
		if cont = page.Metadata.Continue; cont == "" {
			return out, nil
		}
	}
}

// capiListError is a Cluster API kind that could not be listed.
type capiListError struct {
	what string
	err  error
}

func (e *capiListError) Error() string { return e.err.Error() }
func (e *capiListError) Unwrap() error { return e.err }

// readCAPI lists the Cluster API objects across the cluster and gives
// each to add.
func (r *Reader) readCAPI(ctx context.Context, add func(status.CAPIObject)) error {
	err := r.capi.list(ctx, "", r.wrap, add)
	var le *capiListError
	if errors.As(err, &le) && apierrors.IsForbidden(err) {
		return fmt.Errorf("%w; reading every release reads each cluster's Kubernetes minors from its Cluster API objects and needs the right to list %s cluster-wide", err, le.what)
	}
	return err
}

// readNamespaceCAPI adds the Cluster API objects of obs's namespace to
// obs. A refusal is not an error: the observation then says that the
// minors could not be read (ClusterAPIUnread), and what right is needed.
func readNamespaceCAPI(ctx context.Context, c *ClusterAPI, t Target, obs *status.Observation) error {
	err := c.list(ctx, t.Namespace, func(what string, err error) error {
		return fmt.Errorf("%s%s: %w", what, contextText(t.Context), err)
	}, obs.Add)
	var le *capiListError
	if errors.As(err, &le) && apierrors.IsForbidden(err) {
		obs.ControlPlanes, obs.MachineDeployments = nil, nil
		obs.ClusterAPIUnread = fmt.Sprintf("%v; the cluster's Kubernetes minors are read from its Cluster API objects and need the right to list %s in %s", err, le.what, t.Namespace)
		return nil
	}
	return err
}
