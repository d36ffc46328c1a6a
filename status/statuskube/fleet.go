package statuskube

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"gitlab.com/sylva-projects/sylva-planner/status"
)

// ListPageSize is the number of objects ReadAll asks for per request: a
// management cluster with up to this many release namespaces is read with
// one List of each kind (kubectl pages by 500, which would take 5 requests
// of each kind for 2,000 workload clusters); a larger one in several pages
// of each kind.
const ListPageSize = 5000

// ReadAll reads every release namespace of the cluster: the
// sylva-units-status ConfigMaps, the sylva-units-status Kustomizations and
// the HelmReleases named Options.HelmRelease of all namespaces, with one
// List of each kind across the cluster (selected by metadata.name, paged by
// ListPageSize). A namespace holding any of them is a release namespace;
// entries are sorted by namespace. The Cluster API control planes and
// MachineDeployments are then listed the same way, one List of each kind
// the server serves (one discovery request says which), and added to the
// Observation of their namespace when it is a release namespace
// (status.Observation.Kubernetes interprets them); a kind not served is
// absent. No request is made per namespace. Fetch's rule holds for each namespace:
// an object or a kind absent is nil; what would make Fetch's Snapshot
// Invalid or fail for one object (a malformed value of a status ConfigMap,
// a Flux object the API types cannot hold) is its namespace's Err, not an
// error of ReadAll. Listing needs the right to list the three kinds in all
// namespaces, and the Cluster API kinds (capiKinds); a refusal
// is an error naming the kind and the right needed.
func (r *Reader) ReadAll(ctx context.Context) ([]status.FleetEntry, error) {
	// The lists run at once, each into its own result, and are merged in a
	// fixed order: the server encodes one while the client decodes another,
	// and the first error, in that order, is the one returned.
	var (
		cms    []corev1.ConfigMap
		flux   [2][]fluxItem
		capi   []status.CAPIObject
		errs   [4]error
		listWG sync.WaitGroup
	)
	fluxKinds := []fluxKind{{KustomizationKind, KustomizationResource, status.KustomizationName}, {HelmReleaseKind, HelmReleaseResource, r.opts.HelmRelease}}
	listWG.Go(func() { cms, errs[0] = r.listConfigMaps(ctx) })
	for i, k := range fluxKinds {
		listWG.Go(func() { flux[i], errs[1+i] = r.listFlux(ctx, k) })
	}
	listWG.Go(func() {
		errs[3] = r.readCAPI(ctx, func(o status.CAPIObject) { capi = append(capi, o) })
	})
	listWG.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}

	obs := map[string]*status.Observation{}
	bad := map[string]error{}
	// objects names the Flux object of a namespace's error (status.FleetEntry.Object).
	objects := map[string]string{}
	at := func(ns string) *status.Observation {
		if obs[ns] == nil {
			obs[ns] = &status.Observation{Namespace: ns, FluxRead: true, HelmReleaseName: r.opts.HelmRelease}
		}
		return obs[ns]
	}
	for i := range cms {
		cm := &cms[i]
		o := at(cm.Namespace)
		s, err := status.FromConfigMap(cm)
		if err != nil {
			bad[cm.Namespace] = &InvalidError{Object: fmt.Sprintf("ConfigMap %s/%s", cm.Namespace, cm.Name), Err: err}
			continue
		}
		o.ConfigMap = s
	}
	for i, k := range fluxKinds {
		for _, it := range flux[i] {
			o := at(it.namespace)
			if it.err != nil {
				if bad[it.namespace] == nil {
					bad[it.namespace] = fmt.Errorf("%s.%s %s/%s: %w", k.res.Resource, k.res.Group, it.namespace, it.name, it.err)
					objects[it.namespace] = status.KubectlFluxName(k.gvk.Kind, k.name)
				}
				continue
			}
			if k.gvk == HelmReleaseKind {
				o.HelmRelease = it.obj
			} else {
				o.Kustomization = it.obj
			}
		}
	}
	// Cluster API objects make no release namespace.
	for _, o := range capi {
		if at := obs[o.Namespace]; at != nil {
			at.Add(o)
		}
	}
	out := make([]status.FleetEntry, 0, len(obs))
	for _, ns := range slices.Sorted(maps.Keys(obs)) {
		if err := bad[ns]; err != nil {
			out = append(out, status.FleetEntry{Namespace: ns, Err: err, Object: objects[ns]})
			continue
		}
		out = append(out, status.FleetEntry{Namespace: ns, Observation: *obs[ns]})
	}
	return out, nil
}

// listConfigMaps lists the status ConfigMaps of all namespaces, paged.
func (r *Reader) listConfigMaps(ctx context.Context) ([]corev1.ConfigMap, error) {
	var out []corev1.ConfigMap
	opts := &client.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", status.ConfigMapName), Limit: ListPageSize}
	for {
		list := &corev1.ConfigMapList{}
		if err := r.client.List(ctx, list, opts); err != nil {
			// ConfigMaps are core: a 404 here is no absence but a server
			// that is not a Kubernetes API server.
			return nil, r.listError("ConfigMaps named "+status.ConfigMapName, err)
		}
		out = append(out, list.Items...)
		if opts.Continue = list.Continue; opts.Continue == "" {
			return out, nil
		}
	}
}

// fluxKind is a Flux kind ReadAll lists, and the name of its objects.
type fluxKind struct {
	gvk  schema.GroupVersionKind
	res  schema.GroupVersionResource
	name string
}

// fluxItem is one Flux object listed: the object, or why the API types
// cannot hold it.
type fluxItem struct {
	namespace, name string
	obj             *status.FluxObject
	err             error
}

// listFlux lists the objects of kind k named k.name in all namespaces,
// paged; none when the kind is not served (no Flux CRD). The list is
// decoded into the Flux API types at once; when one object does not fit
// them, it is listed again as unstructured objects and each is converted
// on its own, so that the one that does not fit is its namespace's error.
func (r *Reader) listFlux(ctx context.Context, k fluxKind) ([]fluxItem, error) {
	items, err := r.listFluxTyped(ctx, k)
	var answered apierrors.APIStatus
	if err == nil || absent(err) || errors.As(err, &answered) || ctx.Err() != nil {
		return items, r.fluxListError(k, err)
	}
	return r.listFluxEach(ctx, k)
}

// fluxListError names the Flux kind that could not be listed; nil for no
// error or a kind not served.
func (r *Reader) fluxListError(k fluxKind, err error) error {
	if err == nil || absent(err) {
		return nil
	}
	return r.listError(fmt.Sprintf("%s.%s named %s", k.res.Resource, k.res.Group, k.name), err)
}

// listFluxTyped lists the objects of k into the Flux API types.
func (r *Reader) listFluxTyped(ctx context.Context, k fluxKind) ([]fluxItem, error) {
	var out []fluxItem
	opts := &client.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", k.name), Limit: ListPageSize}
	for {
		var list client.ObjectList
		if k.gvk == HelmReleaseKind {
			list = &helmv2.HelmReleaseList{}
		} else {
			list = &kustomizev1.KustomizationList{}
		}
		if err := r.client.List(ctx, list, opts); err != nil {
			return nil, err
		}
		switch l := list.(type) {
		case *helmv2.HelmReleaseList:
			for i := range l.Items {
				out = append(out, fluxItem{namespace: l.Items[i].Namespace, name: l.Items[i].Name, obj: status.FromHelmRelease(&l.Items[i])})
			}
		case *kustomizev1.KustomizationList:
			for i := range l.Items {
				out = append(out, fluxItem{namespace: l.Items[i].Namespace, name: l.Items[i].Name, obj: status.FromKustomization(&l.Items[i])})
			}
		}
		if opts.Continue = list.GetContinue(); opts.Continue == "" {
			return out, nil
		}
	}
}

// listFluxEach lists the objects of k as unstructured objects and
// converts each on its own.
func (r *Reader) listFluxEach(ctx context.Context, k fluxKind) ([]fluxItem, error) {
	var out []fluxItem
	opts := &client.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", k.name), Limit: ListPageSize}
	for {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(k.gvk.GroupVersion().WithKind(k.gvk.Kind + "List"))
		if err := r.client.List(ctx, list, opts); err != nil {
			return nil, r.fluxListError(k, err)
		}
		for i := range list.Items {
			u := &list.Items[i]
			f, err := convertFlux(k.gvk.Kind, u.Object)
			out = append(out, fluxItem{namespace: u.GetNamespace(), name: u.GetName(), obj: f, err: err})
		}
		if opts.Continue = list.GetContinue(); opts.Continue == "" {
			return out, nil
		}
	}
}

// listError names what could not be listed and the context; a refusal
// says how to read one namespace instead.
func (r *Reader) listError(what string, err error) error {
	err = r.wrap("list "+what+" in all namespaces", err)
	if apierrors.IsForbidden(err) {
		return fmt.Errorf("%w; reading every namespace needs the right to list them cluster-wide: give -n NAMESPACE to read one", err)
	}
	return err
}
