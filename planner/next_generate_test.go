package planner

import (
	"testing"
)

func TestGenerateCommandTakesThePlanFlagsValuesGenerateTakes(t *testing.T) {
	p := &Plan{From: Endpoint{Release: "1.4"}, To: Endpoint{Release: "1.6"}}
	for _, tt := range []struct{ name, rerun, want string }{
		{"no rerun gives the releases only", "", "sylva-planner values generate --from 1.4 --to 1.6 --kustomize transition"},
		{
			"catalog, provider and workers are kept, the rest dropped",
			"sylva-planner plan --from 1.4 --to 1.6 --as-of 2025-01-01 --catalog c.yaml --bootstrap-provider rke2 --workers 1.30 -o json",
			"sylva-planner values generate --from 1.4 --to 1.6 --catalog c.yaml --bootstrap-provider rke2 --workers 1.30 --kustomize transition",
		},
		{
			"a quoted value with a space stays one word",
			"sylva-planner plan --status s.yaml --to 1.6 --catalog 'my dir/c.yaml'",
			"sylva-planner values generate --from 1.4 --to 1.6 --catalog 'my dir/c.yaml' --kustomize transition",
		},
	} {
		if got := generateCommand(p, tt.rerun); got != tt.want {
			t.Errorf("%s: generateCommand(%q) = %q, want %q", tt.name, tt.rerun, got, tt.want)
		}
	}
}
