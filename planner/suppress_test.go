package planner_test

import (
	"errors"
	"path"
	"strings"
	"testing"

	"gitlab.com/sylva-projects/sylva-planner/planner"
)

func TestValidateSuppressions(t *testing.T) {
	tests := []struct {
		name  string
		rules []planner.Suppression
		// want are the parts the error names; nil means no error.
		want []string
	}{
		{name: "no rules are valid"},
		{
			name: "plain, glob, star and empty subjects are valid",
			rules: []planner.Suppression{
				{Code: "drain-hang", Subject: "kyverno"},
				{Code: "*", Subject: "pass *"},
				{Code: "drain-hang", Subject: "*"},
				{Code: "drain-hang"},
				{Code: "x", Subject: `1.7\[rc]`},
			},
		},
		{
			name:  "an unclosed bracket is refused, naming the rule, its code and the subject",
			rules: []planner.Suppression{{Code: "drain-hang", Subject: "kyverno"}, {Code: "component-k8s-range", Subject: "[1.7"}},
			want:  []string{"suppression #2", "code component-k8s-range", `subject "[1.7"`},
		},
		{
			name:  "a trailing backslash is refused",
			rules: []planner.Suppression{{Code: "drain-hang", Subject: `pdb shop-prod/web\`}},
			want:  []string{"suppression #1", `subject "pdb shop-prod/web\\"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := planner.ValidateSuppressions(tt.rules)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("ValidateSuppressions(%s) = %v, want nil", tt.name, err)
				}
				return
			}
			if !errors.Is(err, path.ErrBadPattern) {
				t.Fatalf("ValidateSuppressions(%s) = %v, want an error wrapping path.ErrBadPattern", tt.name, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("ValidateSuppressions(%s) = %q, want it to name %s", tt.name, err, w)
				}
			}
		})
	}
}
