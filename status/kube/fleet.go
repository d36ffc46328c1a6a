package kube

import (
	"context"
	"fmt"
	"maps"
	"slices"

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
// namespaces, and the Cluster API kinds (ClusterAPIResources); a refusal
// is an error naming the kind and the right needed.
func (r *Reader) ReadAll(ctx context.Context) ([]status.FleetEntry, error) {
	obs := map[string]*status.Observation{}
	errs := map[string]error{}
	// objects names the Flux object of a namespace's error (status.FleetEntry.Object).
	objects := map[string]string{}
	at := func(ns string) *status.Observation {
		if obs[ns] == nil {
			obs[ns] = &status.Observation{Namespace: ns, FluxRead: true, HelmReleaseName: r.opts.HelmRelease}
		}
		return obs[ns]
	}
	opts := &client.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", status.ConfigMapName), Limit: ListPageSize}
	for {
		list := &corev1.ConfigMapList{}
		if err := r.client.List(ctx, list, opts); err != nil {
			// ConfigMaps are core: a 404 here is no absence but a server
			// that is not a Kubernetes API server.
			return nil, r.listError("ConfigMaps named "+status.ConfigMapName, err)
		}
		for i := range list.Items {
			cm := &list.Items[i]
			o := at(cm.Namespace)
			s, err := status.FromConfigMap(cm)
			if err != nil {
				errs[cm.Namespace] = &InvalidError{Object: fmt.Sprintf("ConfigMap %s/%s", cm.Namespace, cm.Name), Err: err}
				continue
			}
			o.ConfigMap = s
		}
		if opts.Continue = list.Continue; opts.Continue == "" {
			break
		}
	}
	for _, k := range []struct {
		gvk  schema.GroupVersionKind
		res  schema.GroupVersionResource
		name string
	}{{KustomizationKind, KustomizationResource, status.KustomizationName}, {HelmReleaseKind, HelmReleaseResource, r.opts.HelmRelease}} {
		opts := &client.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", k.name), Limit: ListPageSize}
		for {
			list := &unstructured.UnstructuredList{}
			list.SetGroupVersionKind(k.gvk.GroupVersion().WithKind(k.gvk.Kind + "List"))
			err := r.client.List(ctx, list, opts)
			if absent(err) {
				// The kind is not served (no Flux CRD): absent everywhere.
				break
			}
			if err != nil {
				return nil, r.listError(fmt.Sprintf("%s.%s named %s", k.res.Resource, k.res.Group, k.name), err)
			}
			for i := range list.Items {
				u := &list.Items[i]
				f, err := convertFlux(k.gvk.Kind, u.Object)
				o := at(u.GetNamespace())
				if err != nil {
					if errs[u.GetNamespace()] == nil {
						errs[u.GetNamespace()] = fmt.Errorf("%s.%s %s/%s: %w", k.res.Resource, k.res.Group, u.GetNamespace(), u.GetName(), err)
						objects[u.GetNamespace()] = status.KubectlFluxName(k.gvk.Kind, k.name)
					}
					continue
				}
				if k.gvk == HelmReleaseKind {
					o.HelmRelease = f
				} else {
					o.Kustomization = f
				}
			}
			if opts.Continue = list.GetContinue(); opts.Continue == "" {
				break
			}
		}
	}
	if err := r.readCAPI(ctx, obs); err != nil {
		return nil, err
	}
	out := make([]status.FleetEntry, 0, len(obs))
	for _, ns := range slices.Sorted(maps.Keys(obs)) {
		if err := errs[ns]; err != nil {
			out = append(out, status.FleetEntry{Namespace: ns, Err: err, Object: objects[ns]})
			continue
		}
		out = append(out, status.FleetEntry{Namespace: ns, Observation: *obs[ns]})
	}
	return out, nil
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
