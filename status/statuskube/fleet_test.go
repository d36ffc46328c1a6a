package statuskube_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/internal/kubetest"
	"gitlab.com/sylva-projects/sylva-planner/status"
	"gitlab.com/sylva-projects/sylva-planner/status/statuskube"
)

func TestReadAllFromAPIServer(t *testing.T) {
	cfg := kubetest.Config(t)
	ctx := context.Background()

	done := kubetest.Namespace(t, cfg)
	createConfigMap(t, cfg, done, map[string]string{status.KeySylvaRelease: "1.6", status.KeyReleaseRevision: "4", status.KeyChartVersion: "1.6.2", status.KeyValuesChecksum: checksum})
	createFlux(t, cfg, done, kustomization(done, map[string]string{status.AnnotationTargetReleaseRevision: "4", status.AnnotationTargetValuesChecksum: checksum}), "True")
	createFlux(t, cfg, done, helmRelease(done, "sylva-units", false), "True")
	for _, u := range []*unstructured.Unstructured{
		kubetest.KubeadmControlPlane(done, done+"-control-plane", "v1.29.15"),
		kubetest.MachineDeployment(done, "md0", "v1.29.15"),
		kubetest.MachineDeployment(done, "md1", "v1.28.9"),
	} {
		if err := kubetest.CreateCAPI(cfg, u); err != nil {
			t.Fatal(err)
		}
	}

	pending := kubetest.Namespace(t, cfg)
	createConfigMap(t, cfg, pending, map[string]string{status.KeySylvaRelease: "1.6", status.KeyAdditionalReconciliationRequired: "true", status.KeyReleaseRevision: "7", status.KeyValuesChecksum: checksum})
	createFlux(t, cfg, pending, kustomization(pending, map[string]string{status.AnnotationTargetReleaseRevision: "7"}), "True")
	createFlux(t, cfg, pending, helmRelease(pending, "sylva-units", false), "True")

	malformed := kubetest.Namespace(t, cfg)
	createConfigMap(t, cfg, malformed, map[string]string{status.KeyAdditionalReconciliationRequired: "maybe"})
	createFlux(t, cfg, malformed, helmRelease(malformed, "sylva-units", false), "True")

	noHelmRelease := kubetest.Namespace(t, cfg)
	createConfigMap(t, cfg, noHelmRelease, map[string]string{status.KeySylvaRelease: "1.5", status.KeyReleaseRevision: "2"})
	createFlux(t, cfg, noHelmRelease, kustomization(noHelmRelease, map[string]string{status.AnnotationTargetReleaseRevision: "2"}), "True")
	// Objects of other names are not releases.
	createFlux(t, cfg, noHelmRelease, helmRelease(noHelmRelease, "cert-manager", false), "True")

	unrelated := kubetest.Namespace(t, cfg)
	c := kubernetes.NewForConfigOrDie(cfg)
	if _, err := c.CoreV1().ConfigMaps(unrelated).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "other"}, Data: map[string]string{"a": "b"}}, metav1.CreateOptions{FieldManager: status.ChartWriter}); err != nil {
		t.Fatal(err)
	}
	// Cluster API objects make no release namespace.
	if err := kubetest.CreateCAPI(cfg, kubetest.KubeadmControlPlane(unrelated, unrelated+"-control-plane", "v1.30.1")); err != nil {
		t.Fatal(err)
	}

	counting, n := kubetest.Counted(cfg)
	r, err := statuskube.NewReader(counting, statuskube.Options{Context: "mgmt"})
	if err != nil {
		t.Fatal(err)
	}
	all, err := r.ReadAll(ctx)
	if err != nil {
		t.Fatalf("ReadAll: %v", err)
	}
	// One List of each release kind, one discovery request, one List of
	// each Cluster API kind served (KubeadmControlPlane, MachineDeployment).
	if got := n.Count(); got != 6 {
		t.Errorf("ReadAll made %d requests (%q), want 6: one List of each kind and one discovery", got, n.Seen())
	}
	mine := map[string]status.FleetEntry{}
	var order []string
	for _, e := range all {
		order = append(order, e.Namespace)
		if slices.Contains([]string{done, pending, malformed, noHelmRelease, unrelated}, e.Namespace) {
			mine[e.Namespace] = e
		}
	}
	if !slices.IsSorted(order) {
		t.Errorf("ReadAll namespaces %q, want them sorted", order)
	}

	t.Run("a namespace without any release object is no release", func(t *testing.T) {
		if _, ok := mine[unrelated]; ok {
			t.Errorf("ReadAll lists %s, which holds only a ConfigMap named other", unrelated)
		}
	})
	t.Run("a finished release reads its three objects", func(t *testing.T) {
		e := mine[done]
		if e.Err != nil || e.Observation.ConfigMap == nil || e.Observation.Kustomization == nil || e.Observation.HelmRelease == nil || !e.Observation.FluxRead {
			t.Fatalf("entry %s = %+v, want the three objects and FluxRead", done, e)
		}
		if rep := status.Interpret(e.Observation); rep.Progress != status.PhaseDone || !rep.CanStartNow {
			t.Errorf("Interpret(%s): progress %s, can start %v (%q); want done, true", done, rep.Progress, rep.CanStartNow, rep.Reasons)
		}
	})
	t.Run("a release reads the Kubernetes minors of its Cluster API objects", func(t *testing.T) {
		cp, workers, source, ok := mine[done].Observation.KubernetesMinors()
		wantSource := "KubeadmControlPlane " + done + "/" + done + "-control-plane spec.version v1.29.15; MachineDeployment " + done + "/md1 spec.template.spec.version v1.28.9"
		if !ok || cp != "1.29" || workers != "1.28" || source != wantSource {
			t.Errorf("KubernetesMinors of %s = %q, %q, %q, %v; want 1.29, 1.28, %q, true", done, cp, workers, source, ok, wantSource)
		}
		if _, _, _, ok := mine[pending].Observation.KubernetesMinors(); ok {
			t.Errorf("%s holds no Cluster API object but reads minors", pending)
		}
	})
	t.Run("a malformed ConfigMap is its namespace's error only", func(t *testing.T) {
		e := mine[malformed]
		var ke *status.KeyError
		if !errors.As(e.Err, &ke) || ke.Key != status.KeyAdditionalReconciliationRequired {
			t.Fatalf("entry %s error = %v, want a KeyError for %s", malformed, e.Err, status.KeyAdditionalReconciliationRequired)
		}
		if !strings.Contains(e.Err.Error(), malformed+"/sylva-units-status") {
			t.Errorf("error %q does not name the ConfigMap", e.Err)
		}
		if mine[pending].Err != nil || mine[pending].Observation.ConfigMap == nil {
			t.Errorf("entry %s = %+v, want it read despite the malformed one", pending, mine[pending])
		}
	})
	t.Run("a missing HelmRelease reads as absent, not unknown", func(t *testing.T) {
		e := mine[noHelmRelease]
		if e.Err != nil || e.Observation.HelmRelease != nil || !e.Observation.FluxRead || e.Observation.Kustomization == nil {
			t.Fatalf("entry %s = %+v, want no HelmRelease, the Kustomization, FluxRead", noHelmRelease, e)
		}
		fleet := status.InterpretFleet([]status.FleetEntry{e}, envelope.Selection{})
		row := fleet.Releases[0]
		if row.CanStartNow || !slices.Contains(row.Reasons, "HelmRelease sylva-units is absent from "+noHelmRelease) {
			t.Errorf("row %+v: want it unable to start, the HelmRelease absent", row)
		}
	})
	t.Run("the fleet agrees with Read namespace by namespace", func(t *testing.T) {
		for _, ns := range []string{done, pending, noHelmRelease} {
			one := read(t, cfg, ns, statuskube.Options{})
			got := status.Interpret(mine[ns].Observation)
			want := status.Interpret(one)
			if got.Progress != want.Progress || got.CanStartNow != want.CanStartNow || got.PassPending != want.PassPending || !slices.Equal(got.Reasons, want.Reasons) {
				t.Errorf("%s: ReadAll gives %s/%v/%v %q, Read %s/%v/%v %q", ns, got.Progress, got.CanStartNow, got.PassPending, got.Reasons,
					want.Progress, want.CanStartNow, want.PassPending, want.Reasons)
			}
		}
	})

	t.Run("a client with rights in one namespace only is told to give -n", func(t *testing.T) {
		grantReadIn(t, cfg, done, "bob")
		restricted := kubetest.Impersonate(cfg, "bob")
		r, err := statuskube.NewReader(restricted, statuskube.Options{Context: "bob"})
		if err != nil {
			t.Fatal(err)
		}
		_, err = r.ReadAll(ctx)
		if err == nil || !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "give -n NAMESPACE") || !strings.Contains(err.Error(), "context bob") {
			t.Errorf("ReadAll error = %v, want a forbidden error naming the context and -n", err)
		}
		if _, err := r.Read(ctx, done); err != nil {
			t.Errorf("Read(%s) with the namespace's rights: %v", done, err)
		}
	})
}

// grantReadIn lets user get and list the three kinds in ns only.
func grantReadIn(t *testing.T, cfg *rest.Config, ns, user string) {
	t.Helper()
	ctx := context.Background()
	c := kubernetes.NewForConfigOrDie(cfg)
	role := &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "read-sylva-units", Namespace: ns},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list"}},
			{APIGroups: []string{statuskube.KustomizationResource.Group}, Resources: []string{statuskube.KustomizationResource.Resource}, Verbs: []string{"get", "list"}},
			{APIGroups: []string{statuskube.HelmReleaseResource.Group}, Resources: []string{statuskube.HelmReleaseResource.Resource}, Verbs: []string{"get", "list"}},
		},
	}
	if _, err := c.RbacV1().Roles(ns).Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	rb := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "read-sylva-units", Namespace: ns},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	}
	if _, err := c.RbacV1().RoleBindings(ns).Create(ctx, rb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// RBAC is enforced from the authorizer's cache: wait until the grant
	// is seen.
	restricted := kubernetes.NewForConfigOrDie(kubetest.Impersonate(cfg, user))
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := restricted.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the grant to %s in %s is not effective: %v", user, ns, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestReadAllWithoutFluxKinds: a cluster that does not serve the Flux kinds
// (no CRD) reads them as absent in every namespace, as Read does.
func TestReadAllWithoutFluxKinds(t *testing.T) {
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: status.ConfigMapName, Namespace: "wc1"},
		Data:       map[string]string{status.KeySylvaRelease: "1.6"},
	}
	c := fake.NewClientBuilder().WithScheme(statuskube.Scheme()).WithObjects(cm).WithInterceptorFuncs(interceptor.Funcs{
		List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, _ ...client.ListOption) error {
			if u, ok := list.(*unstructured.UnstructuredList); ok {
				return apierrors.NewNotFound(schema.GroupResource{Group: u.GroupVersionKind().Group}, "")
			}
			// The fake client needs an index for a field selector; the
			// only ConfigMap is the status one.
			return c.List(ctx, list)
		},
	}).Build()
	all, err := statuskube.NewReaderForClient(c, statuskube.Options{}).ReadAll(context.Background())
	if err != nil {
		t.Fatalf("ReadAll: %v", err)
	}
	if len(all) != 1 || all[0].Namespace != "wc1" || all[0].Observation.ConfigMap == nil || !all[0].Observation.FluxRead ||
		all[0].Observation.Kustomization != nil || all[0].Observation.HelmRelease != nil {
		t.Errorf("ReadAll = %+v, want wc1 with its ConfigMap, the Flux objects absent", all)
	}
}

// BenchmarkReadAll500Namespaces measures ReadAll on a real API server
// holding 500 release namespaces, each with its status ConfigMap and every
// other one with its Kustomization and HelmRelease, against reading them
// namespace by namespace with Read: requests per read and wall time. The
// ConfigMaps take two pages when there are ListPageSize of them or more
// (the second one holds what is left, possibly nothing).
func BenchmarkReadAll500Namespaces(b *testing.B) {
	const namespaces = 500
	cfg := kubetest.Config(b)
	cfg.QPS, cfg.Burst = 1000, 1000
	names := populate(b, cfg, namespaces)

	b.Run("ReadAll", func(b *testing.B) {
		counting, n := kubetest.Counted(cfg)
		r, err := statuskube.NewReader(counting, statuskube.Options{})
		if err != nil {
			b.Fatal(err)
		}
		n.Reset()
		b.ResetTimer()
		for b.Loop() {
			all, err := r.ReadAll(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			if len(all) < namespaces {
				b.Fatalf("ReadAll found %d namespaces, want at least %d", len(all), namespaces)
			}
		}
		b.ReportMetric(float64(n.Count())/float64(b.N), "requests/op")
	})
	b.Run("ReadAll+InterpretFleet+WriteTable", func(b *testing.B) {
		// What status -A does past the command line.
		counting, n := kubetest.Counted(cfg)
		r, err := statuskube.NewReader(counting, statuskube.Options{})
		if err != nil {
			b.Fatal(err)
		}
		n.Reset()
		b.ResetTimer()
		for b.Loop() {
			all, err := r.ReadAll(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			if err := status.InterpretFleet(all, envelope.Selection{}).WriteTable(io.Discard); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(n.Count())/float64(b.N), "requests/op")
	})
	b.Run("Read-per-namespace", func(b *testing.B) {
		counting, n := kubetest.Counted(cfg)
		r, err := statuskube.NewReader(counting, statuskube.Options{})
		if err != nil {
			b.Fatal(err)
		}
		n.Reset()
		b.ResetTimer()
		for b.Loop() {
			for _, ns := range names {
				if _, err := r.Read(context.Background(), ns); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(n.Count())/float64(b.N), "requests/op")
	})
}

// populate creates count release namespaces: a status ConfigMap in each,
// the Kustomization and the HelmRelease (Ready) in every other one.
func populate(b *testing.B, cfg *rest.Config, count int) []string {
	b.Helper()
	start := time.Now()
	names := make([]string, count)
	for i := range names {
		names[i] = kubetest.Namespace(b, cfg)
	}
	var wg sync.WaitGroup
	errs := make(chan error, count)
	sem := make(chan struct{}, 8)
	for i, ns := range names {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			c := kubernetes.NewForConfigOrDie(cfg)
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: status.ConfigMapName, Namespace: ns}, Data: map[string]string{
				status.KeySylvaRelease: "1.6", status.KeyReleaseRevision: fmt.Sprint(i), status.KeyValuesChecksum: checksum,
			}}
			if _, err := c.CoreV1().ConfigMaps(ns).Create(context.Background(), cm, metav1.CreateOptions{FieldManager: status.ChartWriter}); err != nil {
				errs <- err
				return
			}
			if i%2 == 0 {
				for _, u := range []*unstructured.Unstructured{
					kustomization(ns, map[string]string{status.AnnotationTargetReleaseRevision: fmt.Sprint(i)}),
					helmRelease(ns, "sylva-units", false),
				} {
					if err := kubetest.CreateReady(cfg, ns, u); err != nil {
						errs <- err
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	b.Logf("populated %d namespaces in %s", count, time.Since(start).Round(time.Millisecond))
	return names
}

// TestReadAllAFluxObjectTheTypesCannotHold: the Flux objects are listed
// into the Flux API types at once; when one does not fit them (the decode
// of the typed list fails), the kind is listed again as unstructured
// objects and only the object that does not fit is its namespace's error.
func TestReadAllAFluxObjectTheTypesCannotHold(t *testing.T) {
	hr := func(ns string, interval any) unstructured.Unstructured {
		return unstructured.Unstructured{Object: map[string]any{
			"apiVersion": statuskube.HelmReleaseKind.GroupVersion().String(), "kind": statuskube.HelmReleaseKind.Kind,
			"metadata": map[string]any{"name": status.DefaultHelmRelease, "namespace": ns},
			"spec":     map[string]any{"interval": interval, "chart": map[string]any{"spec": map[string]any{"chart": "sylva-units", "sourceRef": map[string]any{"kind": "GitRepository", "name": "sylva-core"}}}},
		}}
	}
	typed := 0
	c := fake.NewClientBuilder().WithScheme(statuskube.Scheme()).WithInterceptorFuncs(interceptor.Funcs{
		List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, _ ...client.ListOption) error {
			switch l := list.(type) {
			case *unstructured.UnstructuredList:
				if l.GroupVersionKind().Kind == statuskube.HelmReleaseKind.Kind+"List" {
					l.Items = []unstructured.Unstructured{hr("wc1", "10m"), hr("wc2", int64(5))}
					return nil
				}
				return apierrors.NewNotFound(schema.GroupResource{Group: l.GroupVersionKind().Group}, "")
			case *helmv2.HelmReleaseList:
				typed++
				return errors.New("json: cannot unmarshal number into Go struct field HelmReleaseSpec.spec.interval of type string")
			}
			return c.List(ctx, list)
		},
	}).Build()
	all, err := statuskube.NewReaderForClient(c, statuskube.Options{}).ReadAll(context.Background())
	if err != nil {
		t.Fatalf("ReadAll: %v", err)
	}
	if typed != 1 || len(all) != 2 {
		t.Fatalf("ReadAll listed the typed HelmReleases %d times and read %d namespaces (%+v); want once, and wc1 and wc2", typed, len(all), all)
	}
	if all[0].Err != nil || all[0].Observation.HelmRelease == nil {
		t.Errorf("wc1 = %+v, want its HelmRelease read", all[0])
	}
	if all[1].Err == nil || !strings.Contains(all[1].Err.Error(), "helmreleases.helm.toolkit.fluxcd.io wc2/sylva-units") {
		t.Errorf("wc2 error = %v, want the HelmRelease that does not fit the API types named", all[1].Err)
	}
}
