package reconciler

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"
)

// TestConfigManifestsAreConsistent checks config/ without kustomize: every
// resource a kustomization.yaml lists exists, the Deployment runs the
// controller with the flags and probes the manifests rely on, and it
// watches the namespaces its RoleBinding grants it rights in.
func TestConfigManifestsAreConsistent(t *testing.T) {
	root := filepath.Join("..", "config")
	for _, dir := range []string{"default", "manager", "rbac", "prometheus", "all-namespaces"} {
		b, err := os.ReadFile(filepath.Join(root, dir, "kustomization.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		var k struct {
			Resources []string `json:"resources"`
		}
		if err := yaml.Unmarshal(b, &k); err != nil {
			t.Fatalf("config/%s/kustomization.yaml: %v", dir, err)
		}
		if len(k.Resources) == 0 {
			t.Errorf("config/%s/kustomization.yaml lists no resources", dir)
		}
		for _, r := range k.Resources {
			if _, err := os.Stat(filepath.Join(root, dir, r)); err != nil {
				t.Errorf("config/%s/kustomization.yaml: resource %s: %v", dir, r, err)
			}
		}
	}

	b, err := os.ReadFile(filepath.Join(root, "manager", "deployment.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var d appsv1.Deployment
	if err := yaml.UnmarshalStrict(b, &d); err != nil {
		t.Fatalf("config/manager/deployment.yaml: %v", err)
	}
	c := d.Spec.Template.Spec.Containers[0]
	// config/all-namespaces replaces the second argument with
	// --all-namespaces.
	scope, ok := "", len(c.Args) > 1
	if ok {
		scope, ok = strings.CutPrefix(c.Args[1], "--namespace=")
	}
	if !ok {
		t.Errorf("the Deployment's second argument is not --namespace=…: %v", c.Args)
	}
	var binding struct {
		Metadata struct {
			Namespace string `json:"namespace"`
		} `json:"metadata"`
	}
	b, err = os.ReadFile(filepath.Join(root, "rbac", "role_binding.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &binding); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(strings.Split(scope, ","), binding.Metadata.Namespace) {
		t.Errorf("the Deployment watches %q but its RoleBinding is in namespace %q", scope, binding.Metadata.Namespace)
	}
	for _, want := range []string{"controller", "--leader-elect", "--metrics-bind-address=:8443", "--metrics-secure=true", "--health-probe-bind-address=:8081"} {
		if !slices.Contains(c.Args, want) {
			t.Errorf("the Deployment's args %v lack %s", c.Args, want)
		}
	}
	if c.LivenessProbe == nil || c.LivenessProbe.HTTPGet.Path != "/healthz" || c.ReadinessProbe == nil || c.ReadinessProbe.HTTPGet.Path != "/readyz" {
		t.Errorf("the Deployment does not probe /healthz and /readyz")
	}
	if sa := d.Spec.Template.Spec.ServiceAccountName; !strings.HasPrefix(sa, "sylva-planner") {
		t.Errorf("the Deployment runs as service account %q", sa)
	}
}
