package units_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportsStayPure enforces the architecture: units imports skew,
// envelope (the header of its report), cell (its table cells) and
// sigs.k8s.io/yaml only, no cluster client, no other package of the module.
func TestImportsStayPure(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Skipf("go list unavailable: %v", err)
	}
	allowed := map[string]bool{
		"gitlab.com/sylva-projects/sylva-planner/units":    true,
		"gitlab.com/sylva-projects/sylva-planner/skew":     true,
		"gitlab.com/sylva-projects/sylva-planner/envelope": true,
		"gitlab.com/sylva-projects/sylva-planner/cell":     true,
		"sigs.k8s.io/yaml":   true,
		"go.yaml.in/yaml/v2": true,
	}
	for _, p := range strings.Fields(string(out)) {
		if !allowed[p] {
			t.Errorf("units depends on %s; it may import only skew, envelope, cell and sigs.k8s.io/yaml", p)
		}
	}
}
