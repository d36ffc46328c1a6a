package status_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestStatusIsPure keeps cluster clients and Flux API modules out of the
// status package: they belong to status/kube.
func TestStatusIsPure(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"k8s.io/", "sigs.k8s.io/controller-runtime", "github.com/fluxcd/", "net/http"} {
			if strings.HasPrefix(dep, banned) {
				t.Errorf("status imports %s (through %s); keep cluster access in status/kube", dep, banned)
			}
		}
	}
}
