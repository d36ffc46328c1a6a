package statuskube_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"gitlab.com/sylva-projects/sylva-planner/internal/kubetest"
	"gitlab.com/sylva-projects/sylva-planner/status"
	"gitlab.com/sylva-projects/sylva-planner/status/statuskube"
)

func TestMain(m *testing.M) { os.Exit(kubetest.Main(m)) }

const checksum = kubetest.FleetChecksum

func TestReadFromAPIServer(t *testing.T) {
	cfg := kubetest.Config(t)
	ctx := context.Background()

	t.Run("a mid-transition cluster reads as a pending pass that can start", func(t *testing.T) {
		ns := kubetest.Namespace(t, cfg)
		createConfigMap(t, cfg, ns, map[string]string{
			status.KeySylvaRelease:                     "1.6",
			status.KeyAdditionalReconciliationRequired: "true",
			status.KeyReleaseRevision:                  "17",
			status.KeyChartVersion:                     "1.6.2",
			status.KeyValuesChecksum:                   checksum,
			status.KeyOneShotUnits:                     "kyverno-policies-upgrade: done\n",
			"k8s-version":                              "v1.32.4+rke2r1",
		})
		createFlux(t, cfg, ns, kustomization(ns, map[string]string{
			status.AnnotationTargetReleaseRevision: "17",
			status.AnnotationTargetChartVersion:    "1.6.2",
			status.AnnotationTargetValuesChecksum:  checksum,
		}), "True")
		createFlux(t, cfg, ns, helmRelease(ns, "sylva-units", false), "True")

		obs := read(t, cfg, ns, statuskube.Options{Context: "test"})
		if obs.ConfigMap == nil || obs.Kustomization == nil || obs.HelmRelease == nil {
			t.Fatalf("Read = %+v, want the three objects", obs)
		}
		if got := obs.ConfigMap.Unknown["k8s-version"]; got != "v1.32.4+rke2r1" {
			t.Errorf("unknown key k8s-version = %q, want it kept", got)
		}
		if obs.HelmRelease.Generation == 0 || obs.HelmRelease.ObservedGeneration != obs.HelmRelease.Generation {
			t.Errorf("HelmRelease generation %d, observed %d: want the status written at the current generation",
				obs.HelmRelease.Generation, obs.HelmRelease.ObservedGeneration)
		}
		r := status.Interpret(obs)
		if r.InstalledRelease.String() != "1.6" || !r.PassPending || !r.CanStartNow || r.Progress != status.PhaseDone {
			t.Errorf("Interpret = release %s, pending %v, can start %v, progress %s (reasons %q); want 1.6, true, true, done",
				r.InstalledRelease, r.PassPending, r.CanStartNow, r.Progress, r.Reasons)
		}
	})

	t.Run("a suspended HelmRelease under another name is read by that name", func(t *testing.T) {
		ns := kubetest.Namespace(t, cfg)
		createConfigMap(t, cfg, ns, map[string]string{status.KeySylvaRelease: "1.6", status.KeyAdditionalReconciliationRequired: "true"})
		createFlux(t, cfg, ns, kustomization(ns, nil), "True")
		createFlux(t, cfg, ns, helmRelease(ns, "wc-units", true), "True")

		obs := read(t, cfg, ns, statuskube.Options{HelmRelease: "wc-units"})
		if obs.HelmRelease == nil || !obs.HelmRelease.Suspended {
			t.Fatalf("HelmRelease = %+v, want wc-units, suspended", obs.HelmRelease)
		}
		if r := status.Interpret(obs); r.CanStartNow {
			t.Errorf("Interpret: CanStartNow = true for a suspended HelmRelease")
		}
	})

	t.Run("an empty namespace is a fresh install with every object absent", func(t *testing.T) {
		ns := kubetest.Namespace(t, cfg)
		obs := read(t, cfg, ns, statuskube.Options{})
		if obs.ConfigMap != nil || obs.Kustomization != nil || obs.HelmRelease != nil || !obs.FluxRead {
			t.Fatalf("Read = %+v, want nothing, FluxRead", obs)
		}
		if r := status.Interpret(obs); !r.FreshInstall || r.Progress != status.PhaseNotInstalled {
			t.Errorf("Interpret: FreshInstall %v, Progress %s; want true, %s", r.FreshInstall, r.Progress, status.PhaseNotInstalled)
		}
	})

	t.Run("a malformed value is an error naming the key, the object and the context", func(t *testing.T) {
		ns := kubetest.Namespace(t, cfg)
		createConfigMap(t, cfg, ns, map[string]string{status.KeyAdditionalReconciliationRequired: "maybe"})
		r, err := statuskube.NewReader(cfg, statuskube.Options{Context: "mgmt"})
		if err != nil {
			t.Fatal(err)
		}
		_, err = r.Read(ctx, ns)
		var ke *status.KeyError
		if !errors.As(err, &ke) || ke.Key != status.KeyAdditionalReconciliationRequired {
			t.Fatalf("Read error = %v, want a KeyError for %s", err, status.KeyAdditionalReconciliationRequired)
		}
		for _, want := range []string{ns + "/sylva-units-status", "context mgmt"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("Read error %q does not name %q", err, want)
			}
		}
	})

	t.Run("a client without rights gets an error naming the object, not an absence", func(t *testing.T) {
		ns := kubetest.Namespace(t, cfg)
		restricted := kubetest.Impersonate(cfg, "alice", "sylva-operators")
		r, err := statuskube.NewReader(restricted, statuskube.Options{Context: "alice"})
		if err != nil {
			t.Fatal(err)
		}
		_, err = r.Read(ctx, ns)
		if err == nil || !strings.Contains(err.Error(), "ConfigMap "+ns+"/sylva-units-status") || !strings.Contains(err.Error(), "forbidden") {
			t.Errorf("Read error = %v, want a forbidden error naming the ConfigMap", err)
		}
	})
}

func TestReadUnreachableNamesTheContext(t *testing.T) {
	cfg := &rest.Config{Host: "https://127.0.0.1:1", Timeout: 5 * time.Second}
	r, err := statuskube.NewReader(cfg, statuskube.Options{Context: "kind-mgmt"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Read(context.Background(), "sylva-system")
	if err == nil || !strings.Contains(err.Error(), "context kind-mgmt") || !strings.Contains(err.Error(), "sylva-system/sylva-units-status") {
		t.Errorf("Read error = %v, want one naming the context and the ConfigMap", err)
	}
}

func TestRESTConfig(t *testing.T) {
	dir := t.TempDir()
	a := writeKubeconfig(t, dir, "a", "https://a.example:6443", "ctx-a")
	b := writeKubeconfig(t, dir, "b", "https://b.example:6443", "ctx-b")
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	tests := []struct {
		name     string
		opts     statuskube.ConfigOptions
		host     string
		context  string
		errorHas string
	}{
		{name: "--kubeconfig wins over KUBECONFIG", opts: statuskube.ConfigOptions{Kubeconfig: a, Getenv: env(map[string]string{"KUBECONFIG": b})}, host: "https://a.example:6443", context: "ctx-a"},
		{name: "KUBECONFIG is a list whose first current context wins", opts: statuskube.ConfigOptions{Getenv: env(map[string]string{"KUBECONFIG": b + string(filepath.ListSeparator) + a})}, host: "https://b.example:6443", context: "ctx-b"},
		{name: "--context picks a context of a later file", opts: statuskube.ConfigOptions{Context: "ctx-a", Getenv: env(map[string]string{"KUBECONFIG": b + string(filepath.ListSeparator) + a})}, host: "https://a.example:6443", context: "ctx-a"},
		{name: "HOME gives ~/.kube/config", opts: statuskube.ConfigOptions{Getenv: env(map[string]string{"HOME": homeWith(t, a)})}, host: "https://a.example:6443", context: "ctx-a"},
		{name: "an unknown context is an error naming it", opts: statuskube.ConfigOptions{Kubeconfig: a, Context: "nope"}, errorHas: "nope"},
		{name: "a missing --kubeconfig file is an error naming it", opts: statuskube.ConfigOptions{Kubeconfig: filepath.Join(dir, "missing")}, errorHas: "missing"},
		{name: "no configuration at all says how to give one", opts: statuskube.ConfigOptions{}, errorHas: "--kubeconfig"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, ctxName, err := statuskube.RESTConfig(tc.opts)
			if tc.errorHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errorHas) {
					t.Fatalf("RESTConfig error = %v, want one containing %q", err, tc.errorHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Host != tc.host || ctxName != tc.context {
				t.Errorf("RESTConfig = host %s, context %s; want %s, %s", cfg.Host, ctxName, tc.host, tc.context)
			}
		})
	}
}

func homeWith(t *testing.T, kubeconfig string) string {
	t.Helper()
	home := t.TempDir()
	data, err := os.ReadFile(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(home, ".kube"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".kube", "config"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

func writeKubeconfig(t *testing.T, dir, name, server, context string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	data := `apiVersion: v1
kind: Config
clusters:
- name: ` + name + `
  cluster: {server: "` + server + `"}
users:
- name: ` + name + `
  user: {token: t}
contexts:
- name: ` + context + `
  context: {cluster: ` + name + `, user: ` + name + `}
current-context: ` + context + `
`
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func read(t *testing.T, cfg *rest.Config, ns string, opts statuskube.Options) status.Observation {
	t.Helper()
	r, err := statuskube.NewReader(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	obs, err := r.Read(context.Background(), ns)
	if err != nil {
		t.Fatalf("Read(%s): %v", ns, err)
	}
	return obs
}

func createConfigMap(t *testing.T, cfg *rest.Config, ns string, data map[string]string) {
	t.Helper()
	c := kubernetes.NewForConfigOrDie(cfg)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: status.ConfigMapName, Namespace: ns}, Data: data}
	if _, err := c.CoreV1().ConfigMaps(ns).Create(context.Background(), cm, metav1.CreateOptions{FieldManager: status.ChartWriter}); err != nil {
		t.Fatalf("create ConfigMap: %v", err)
	}
}

func kustomization(ns string, annotations map[string]string) *unstructured.Unstructured {
	return kubetest.Kustomization(ns, annotations)
}

func helmRelease(ns, name string, suspend bool) *unstructured.Unstructured {
	return kubetest.HelmRelease(ns, name, suspend)
}

// createFlux creates u and writes its status through the status
// subresource, at the generation the server gave it.
func createFlux(t *testing.T, cfg *rest.Config, ns string, u *unstructured.Unstructured, ready string) {
	t.Helper()
	ctx := context.Background()
	gv, err := schema.ParseGroupVersion(u.GetAPIVersion())
	if err != nil {
		t.Fatal(err)
	}
	resource := statuskube.KustomizationResource
	if gv.Group == statuskube.HelmReleaseResource.Group {
		resource = statuskube.HelmReleaseResource
	}
	c := dynamic.NewForConfigOrDie(cfg).Resource(resource).Namespace(ns)
	created, err := c.Create(ctx, u, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create %s %s: %v", u.GetKind(), u.GetName(), err)
	}
	gen := created.GetGeneration()
	created.Object["status"] = map[string]any{
		"observedGeneration": gen,
		"conditions": []any{map[string]any{
			"type": "Ready", "status": ready, "reason": "ReconciliationSucceeded", "message": "applied",
			"observedGeneration": gen, "lastTransitionTime": "2025-06-01T10:00:00Z",
		}},
	}
	if _, err := c.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update status of %s %s: %v", u.GetKind(), u.GetName(), err)
	}
}
