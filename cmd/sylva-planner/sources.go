package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"gitlab.com/sylva-projects/sylva-planner/action"
	"gitlab.com/sylva-projects/sylva-planner/inventory"
	inventorykube "gitlab.com/sylva-projects/sylva-planner/inventory/kube"
	"gitlab.com/sylva-projects/sylva-planner/status"
	"gitlab.com/sylva-projects/sylva-planner/status/kube"
)

// This file holds the sources the action package reads: files named on the
// command line, and a live cluster.

// statusFile is the sylva-units-status ConfigMap (or a List with the Flux
// objects) in a file named by flag.
type statusFile struct {
	e           *env
	flag, name  string
	helmRelease string
}

func (s statusFile) Observation(context.Context) (status.Observation, error) {
	data, err := s.e.readFile(s.flag, s.name)
	if err != nil {
		return status.Observation{}, err
	}
	obs, err := status.DecodeObservation(data, s.helmRelease)
	if err != nil {
		return status.Observation{}, fmt.Errorf("%s %s: %w", s.flag, s.name, err)
	}
	return obs, nil
}

func (s statusFile) Input() string { return "status " + filepath.ToSlash(s.name) }

// statusLive reads the ConfigMap, Kustomization and HelmRelease of a release
// namespace.
type statusLive struct {
	e                      *env
	kubeconfig, context    string
	namespace, helmRelease string
	contextName            string
}

func (s *statusLive) Observation(ctx context.Context) (status.Observation, error) {
	cfg, ctxName, err := s.e.restConfig(s.kubeconfig, s.context)
	if err != nil {
		return status.Observation{}, err
	}
	s.contextName = ctxName
	r, err := kube.NewReader(cfg, kube.Options{HelmRelease: s.helmRelease, Context: ctxName})
	if err != nil {
		return status.Observation{}, err
	}
	obs, err := r.Read(ctx, s.namespace)
	if err == nil && obs.ConfigMap == nil {
		// Nothing found is a fresh install only on a Kubernetes API
		// server: any other server answers 404 to everything.
		err = checkAPIServer(ctx, cfg, ctxName)
	}
	return obs, err
}

// checkAPIServer refuses a server that is no Kubernetes API server (one
// that answers 404 to everything, GET /version included), whose "not
// found" would otherwise read as "no object". Other errors are left to the
// reads that follow.
func checkAPIServer(ctx context.Context, cfg *rest.Config, contextName string) error {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	_, err = cs.Discovery().RESTClient().Get().AbsPath("/version").DoRaw(ctx)
	if apierrors.IsNotFound(err) {
		where := cfg.Host
		if contextName != "" {
			where += " (context " + contextName + ")"
		}
		return fmt.Errorf("the server at %s is not a Kubernetes API server: GET /version answered 404 Not Found, so the resources it reads are not served; check --kubeconfig and --context", where)
	}
	return nil
}

func (s *statusLive) Input() string {
	return fmt.Sprintf("status live %s/%s (context %s)", s.namespace, status.ConfigMapName, s.contextName)
}

// statusSource is the status source o names: its file, or the cluster.
func statusSource(e *env, o statusOptions) action.StatusSource {
	if o.file != "" {
		flag := o.fileFlag
		if flag == "" {
			flag = "--file"
		}
		return statusFile{e: e, flag: flag, name: o.file, helmRelease: o.helmRelease}
	}
	return &statusLive{e: e, kubeconfig: o.kubeconfig, context: o.context, namespace: o.namespace, helmRelease: o.helmRelease}
}

// clusterFacts reads the facts of a live cluster in one pass.
type clusterFacts struct {
	e                   *env
	kubeconfig, context string
	contextName         string
}

func (s *clusterFacts) Facts(ctx context.Context) (*inventory.Facts, error) {
	cfg, ctxName, err := s.e.restConfig(s.kubeconfig, s.context)
	if err != nil {
		return nil, err
	}
	s.contextName = ctxName
	if err := checkAPIServer(ctx, cfg, ctxName); err != nil {
		return nil, err
	}
	return inventorykube.Collect(ctx, cfg, inventorykube.Options{Context: ctxName})
}

func (s *clusterFacts) Input() string { return fmt.Sprintf("cluster live (context %s)", s.contextName) }

// manifests is the manifests directory given with flag, refused when it is
// not a readable directory.
func manifests(e *env, flag, dir string) (action.Manifests, error) {
	if st, err := os.Stat(e.path(dir)); err != nil || !st.IsDir() {
		return action.Manifests{}, fmt.Errorf("%s %s: not a readable directory", flag, dir)
	}
	return action.Manifests{FS: e.dirFS(dir), Dir: filepath.ToSlash(dir), Flag: flag}, nil
}

// liveSource reads objects from a cluster, read-only.
type liveSource struct {
	dyn    dynamic.Interface
	mapper meta.RESTMapper
}

func newLiveSource(e *env, kubeconfig, context string) (*liveSource, error) {
	cfg, _, err := e.restConfig(kubeconfig, context)
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
	return &liveSource{dyn: dyn, mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))}, nil
}

func (s *liveSource) resource(apiVersion, kind, namespace string) (dynamic.ResourceInterface, error) {
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

func (s *liveSource) Get(ctx context.Context, apiVersion, kind, namespace, name string) (map[string]any, bool, error) {
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

func (s *liveSource) List(ctx context.Context, apiVersion, kind, namespace string) ([]map[string]any, error) {
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
