package config_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/restmapper"

	"gitlab.com/sylva-projects/sylva-planner/internal/kubetest"
)

// TestEveryShippedObjectIsAcceptedByTheAPIServer sends every object that
// config/default, config/all-namespaces and config/prometheus build to the
// real API server, as a server-side dry run with strict field validation
// (kubectl apply --validate=strict): each kind is served (the
// ServiceMonitor, PrometheusRule, Certificate and Issuer against the CRDs
// of prometheus-operator and cert-manager), and no field is unknown,
// misspelt or of the wrong type. Only the namespaces are created.
func TestEveryShippedObjectIsAcceptedByTheAPIServer(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server (-short)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg := kubetest.Config(t)
	dyn := dynamic.NewForConfigOrDie(cfg)
	core := kubernetes.NewForConfigOrDie(cfg)
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(discovery.NewDiscoveryClientForConfigOrDie(cfg)))
	for _, dir := range []string{"default", "all-namespaces", "prometheus"} {
		t.Run(dir, func(t *testing.T) {
			objs := build(t, dir)
			for _, o := range objs {
				u := &unstructured.Unstructured{Object: o}
				gvk := u.GroupVersionKind()
				m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
				if err != nil {
					t.Errorf("%s %s: the API server does not serve the kind: %v", gvk, u.GetName(), err)
					continue
				}
				if u.GetKind() == "Namespace" {
					continue
				}
				if m.Scope.Name() == meta.RESTScopeNameNamespace && u.GetNamespace() == "" {
					t.Errorf("%s %s: namespaced, but names no namespace", gvk.Kind, u.GetName())
					continue
				}
				if ns := u.GetNamespace(); ns != "" && m.Scope.Name() == meta.RESTScopeNameNamespace {
					ensureNamespace(t, ctx, core, ns)
				}
				opts := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: metav1.FieldValidationStrict}
				if m.Scope.Name() == meta.RESTScopeNameNamespace {
					_, err = dyn.Resource(m.Resource).Namespace(u.GetNamespace()).Create(ctx, u, opts)
				} else {
					_, err = dyn.Resource(m.Resource).Create(ctx, u, opts)
				}
				// Validation comes before the existence check: an object
				// another test created passed it.
				if err != nil && !apierrors.IsAlreadyExists(err) {
					t.Errorf("%s %s: %v", gvk.Kind, u.GetName(), err)
				}
			}
		})
	}
}

func ensureNamespace(t *testing.T, ctx context.Context, core kubernetes.Interface, name string) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := core.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}
