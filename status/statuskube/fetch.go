package statuskube

import (
	"context"
	"fmt"
	"sync"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"gitlab.com/sylva-projects/sylva-planner/status"
)

// Kinds of the Flux objects read.
var (
	KustomizationKind = kustomizev1.GroupVersion.WithKind(kustomizev1.KustomizationKind)
	HelmReleaseKind   = helmv2.GroupVersion.WithKind(helmv2.HelmReleaseKind)
)

// Scheme returns the scheme of the kinds read and written: Kubernetes'
// own, helm-controller's HelmRelease and kustomize-controller's
// Kustomization. It is built on first use, so that commands that never
// talk to a cluster do not pay for it.
var Scheme = sync.OnceValue(func() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(helmv2.AddToScheme(s))
	utilruntime.Must(kustomizev1.AddToScheme(s))
	return s
})

// restMapper maps the kinds Fetch and ReadAll read (and the Cluster API
// kinds ReadAll lists, at each version it may read them) to their
// resources without asking the server (no discovery request): a kind the
// server does not serve is then its 404 on the read itself.
func restMapper() meta.RESTMapper {
	m := meta.NewDefaultRESTMapper(nil)
	m.Add(corev1.SchemeGroupVersion.WithKind("ConfigMap"), meta.RESTScopeNamespace)
	m.Add(KustomizationKind, meta.RESTScopeNamespace)
	m.Add(HelmReleaseKind, meta.RESTScopeNamespace)
	addCAPIKinds(m)
	return m
}

// Target names the objects of one release namespace.
type Target struct {
	Namespace string
	// HelmRelease is the name of the sylva-units HelmRelease;
	// status.DefaultHelmRelease when empty.
	HelmRelease string
	// Context is the kubeconfig context the reader talks to, named in
	// errors; empty names none.
	Context string
	// ClusterAPI, when set, reads the namespace's Cluster API objects (its
	// control plane and MachineDeployments), which say the cluster's
	// Kubernetes minors; nil reads none.
	ClusterAPI *ClusterAPI
}

// HelmReleaseName is t.HelmRelease, or status.DefaultHelmRelease when
// empty.
func (t Target) HelmReleaseName() string {
	if t.HelmRelease == "" {
		return status.DefaultHelmRelease
	}
	return t.HelmRelease
}

// Snapshot is what Fetch read.
type Snapshot struct {
	// Observation holds the objects as plain values; FluxRead is true and
	// an absent object is nil.
	Observation status.Observation
	// Invalid is set when the status ConfigMap was read but a value of it
	// is malformed: an *InvalidError naming the object, with the
	// *status.KeyError in its chain. Observation.ConfigMap then holds what
	// decoded.
	Invalid error
	// HelmRelease is the object as read; nil when absent.
	HelmRelease *helmv2.HelmRelease
	// ConfigMapVersion is the status ConfigMap's resourceVersion; empty
	// when absent.
	ConfigMapVersion string
}

// InvalidError is an object that was read but does not decode.
type InvalidError struct {
	// Object names it, "ConfigMap sylva-system/sylva-units-status", with
	// the context when the Target names one.
	Object string
	Err    error
}

func (e *InvalidError) Error() string { return e.Object + ": " + e.Err.Error() }
func (e *InvalidError) Unwrap() error { return e.Err }

// Fetch reads the status ConfigMap, the sylva-units-status Kustomization
// and the HelmRelease of t through r, and its Cluster API objects through
// t.ClusterAPI when set: the one reader of a release namespace, for the
// status, verify and reconcile commands and the controller (whose r is its
// cache). Its rule:
//
//   - an object that does not exist, or whose kind the server does not
//     serve (no Flux CRD), is nil in the Observation;
//   - a status ConfigMap whose values do not decode (the one object whose
//     content no schema checks) is Snapshot.Invalid, not an error: the
//     caller says what it means (status and verify refuse it, reconcile and
//     the controller decide ConclusionInvalid, ReadAll makes it its
//     namespace's error);
//   - Cluster API objects the reader may not list leave the cluster's
//     minors unread (Observation.ClusterAPIUnread says why), not an error:
//     the plan then takes them from flags or the catalog;
//   - any other failure (unreachable, forbidden, a Flux object the API
//     types cannot hold) is an error naming the object and t.Context.
func Fetch(ctx context.Context, r client.Reader, t Target) (Snapshot, error) {
	ns := t.Namespace
	s := Snapshot{Observation: status.Observation{Namespace: ns, FluxRead: true, HelmReleaseName: t.HelmReleaseName()}}

	cm := &corev1.ConfigMap{}
	switch err := r.Get(ctx, client.ObjectKey{Namespace: ns, Name: status.ConfigMapName}, cm); {
	case apierrors.IsNotFound(err):
	case err != nil:
		return Snapshot{}, fmt.Errorf("read ConfigMap %s/%s%s: %w", ns, status.ConfigMapName, contextText(t.Context), err)
	default:
		s.ConfigMapVersion = cm.ResourceVersion
		decoded, err := status.FromConfigMap(cm)
		if err != nil {
			s.Invalid = &InvalidError{Object: fmt.Sprintf("ConfigMap %s/%s%s", ns, status.ConfigMapName, contextText(t.Context)), Err: err}
		}
		s.Observation.ConfigMap = decoded
	}

	ks := &kustomizev1.Kustomization{}
	found, err := get(ctx, r, t, status.KustomizationName, ks)
	if err != nil {
		return Snapshot{}, err
	}
	if found {
		s.Observation.Kustomization = status.FromKustomization(ks)
	}

	hr := &helmv2.HelmRelease{}
	found, err = get(ctx, r, t, t.HelmReleaseName(), hr)
	if err != nil {
		return Snapshot{}, err
	}
	if found {
		s.Observation.HelmRelease, s.HelmRelease = status.FromHelmRelease(hr), hr
	}
	if t.ClusterAPI != nil {
		if err := readNamespaceCAPI(ctx, t.ClusterAPI, t, &s.Observation); err != nil {
			return Snapshot{}, err
		}
	}
	return s, nil
}

// get reads one Flux object into obj; false when it, or its kind, does not
// exist.
func get(ctx context.Context, r client.Reader, t Target, name string, obj client.Object) (bool, error) {
	err := r.Get(ctx, client.ObjectKey{Namespace: t.Namespace, Name: name}, obj)
	switch {
	case absent(err):
		return false, nil
	case err != nil:
		kind := KustomizationKind.Kind
		if _, ok := obj.(*helmv2.HelmRelease); ok {
			kind = HelmReleaseKind.Kind
		}
		return false, fmt.Errorf("read %s %s/%s%s: %w", kind, t.Namespace, name, contextText(t.Context), err)
	}
	return true, nil
}

// absent reports whether err says the object, or its kind, does not
// exist: a 404, or a kind the client's mapper does not know.
func absent(err error) bool {
	return apierrors.IsNotFound(err) || meta.IsNoMatchError(err)
}
