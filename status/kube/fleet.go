package kube

import (
	"context"
	"fmt"
	"maps"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"gitlab.com/sylva-projects/sylva-planner/status"
)

// ListPageSize is the number of objects ReadAll asks for per request, as
// kubectl pages its lists: a cluster with more release namespaces than
// this is read in several pages of each kind.
const ListPageSize = 500

// ReadAll reads every release namespace of the cluster: the
// sylva-units-status ConfigMaps, the sylva-units-status Kustomizations and
// the HelmReleases named Options.HelmRelease of all namespaces, with one
// List of each kind across the cluster (selected by metadata.name, paged by
// ListPageSize). A namespace holding any of them is a release namespace;
// entries are sorted by namespace. An object that does not decode (a
// malformed value of a status ConfigMap, say) is its namespace's Err, not
// an error of ReadAll. A Flux kind the cluster does not serve reads as
// absent in every namespace, as Read has it. Listing needs the right to
// list the three kinds in all namespaces; a refusal is an error naming the
// kind and how to read one namespace instead.
func (r *Reader) ReadAll(ctx context.Context) ([]status.FleetEntry, error) {
	obs := map[string]*status.Observation{}
	errs := map[string]error{}
	at := func(ns string) *status.Observation {
		if obs[ns] == nil {
			obs[ns] = &status.Observation{Namespace: ns, FluxRead: true}
		}
		return obs[ns]
	}
	sel := fields.OneTermEqualSelector("metadata.name", status.ConfigMapName).String()
	opts := metav1.ListOptions{FieldSelector: sel, Limit: ListPageSize}
	for {
		list, err := r.core.CoreV1().ConfigMaps(metav1.NamespaceAll).List(ctx, opts)
		if err != nil {
			// ConfigMaps are core: a 404 here is no absence but a server
			// that is not a Kubernetes API server.
			return nil, r.listError("ConfigMaps named "+status.ConfigMapName, err)
		}
		for i := range list.Items {
			cm := &list.Items[i]
			o := at(cm.Namespace)
			s, err := status.FromConfigMap(cm)
			if err != nil {
				errs[cm.Namespace] = fmt.Errorf("ConfigMap %s/%s: %w", cm.Namespace, cm.Name, err)
				continue
			}
			o.ConfigMap = s
		}
		if opts.Continue = list.Continue; opts.Continue == "" {
			break
		}
	}
	for _, k := range []struct {
		gvr  schema.GroupVersionResource
		name string
	}{{KustomizationResource, status.KustomizationName}, {HelmReleaseResource, r.opts.HelmRelease}} {
		opts := metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", k.name).String(), Limit: ListPageSize}
		for {
			list, err := r.dynamic.Resource(k.gvr).Namespace(metav1.NamespaceAll).List(ctx, opts)
			if apierrors.IsNotFound(err) {
				// The kind is not served (no Flux CRD): absent everywhere.
				break
			}
			if err != nil {
				return nil, r.listError(fmt.Sprintf("%s.%s named %s", k.gvr.Resource, k.gvr.Group, k.name), err)
			}
			for i := range list.Items {
				u := &list.Items[i]
				f, err := r.fluxObject(k.gvr, u)
				if err != nil {
					if errs[u.GetNamespace()] == nil {
						errs[u.GetNamespace()] = err
					}
					at(u.GetNamespace())
					continue
				}
				o := at(u.GetNamespace())
				if k.gvr == HelmReleaseResource {
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
	out := make([]status.FleetEntry, 0, len(obs))
	for _, ns := range slices.Sorted(maps.Keys(obs)) {
		if err := errs[ns]; err != nil {
			out = append(out, status.FleetEntry{Namespace: ns, Err: err})
			continue
		}
		out = append(out, status.FleetEntry{Namespace: ns, Observation: *obs[ns]})
	}
	return out, nil
}

// fluxObject converts a listed Flux object; the error names it.
func (r *Reader) fluxObject(gvr schema.GroupVersionResource, u *unstructured.Unstructured) (*status.FluxObject, error) {
	f, err := convertFlux(gvr, u.Object)
	if err != nil {
		return nil, fmt.Errorf("%s.%s %s/%s: %w", gvr.Resource, gvr.Group, u.GetNamespace(), u.GetName(), err)
	}
	return f, nil
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
