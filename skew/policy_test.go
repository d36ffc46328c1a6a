package skew

import (
	"testing"

	"gitlab.com/sylva-projects/sylva-planner/semver"
)

func code(v *Violation) string {
	if v == nil {
		return ""
	}
	return v.Code
}

func TestControlPlaneStep(t *testing.T) {
	tests := []struct {
		name, from, to, want string
	}{
		{"one minor up is allowed", "1.31", "1.32", ""},
		{"staying on the same minor is allowed", "1.31", "1.31", ""},
		{"a patch upgrade is allowed", "v1.31.4", "v1.31.8+rke2r1", ""},
		{"skipping a minor is refused", "1.31", "1.33", CodeMinorSkip},
		{"going back a minor is refused", "1.32", "1.31", CodeDowngrade},
		{"a major change is refused", "1.31", "2.0", CodeMajorChange},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := code(ControlPlaneStep(semver.MustParse(tt.from), semver.MustParse(tt.to))); got != tt.want {
				t.Errorf("ControlPlaneStep(%s, %s) = %q, want %q", tt.from, tt.to, got, tt.want)
			}
		})
	}
}

func TestKubeletSkew(t *testing.T) {
	tests := []struct {
		name, apiserver, kubelet, want string
	}{
		{"same minor is allowed", "1.31", "1.31", ""},
		{"three minors behind is allowed from 1.28", "1.31", "1.28", ""},
		{"four minors behind is refused", "1.32", "1.28", CodeKubeletSkew},
		{"three minors behind is refused before 1.28", "1.27", "1.24", CodeKubeletSkew},
		{"two minors behind is allowed before 1.28", "1.27", "1.25", ""},
		{"three behind 1.28 itself is allowed", "1.28", "1.25", ""},
		{"a kubelet newer than the apiserver is refused", "1.31", "1.32", CodeKubeletNewer},
		{"a major difference is refused", "2.0", "1.31", CodeMajorChange},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := code(KubeletSkew(semver.MustParse(tt.apiserver), semver.MustParse(tt.kubelet))); got != tt.want {
				t.Errorf("KubeletSkew(%s, %s) = %q, want %q", tt.apiserver, tt.kubelet, got, tt.want)
			}
		})
	}
}

func TestMinorStepFollowsLonghornUpgradePath(t *testing.T) {
	tests := []struct {
		name, from, to, want string
	}{
		{"next minor is allowed", "1.8.1", "1.9.2", ""},
		{"a patch within a minor is allowed", "1.8.1", "1.8.2", ""},
		{"any patch of the next minor is allowed", "1.9.2", "1.10.0", ""},
		{"staying put is allowed", "1.9.2", "1.9.2", ""},
		{"skipping a minor is refused", "1.8.2", "1.10.2", CodeMinorSkip},
		{"a patch downgrade is refused", "1.8.2", "1.8.1", CodeDowngrade},
		{"a minor downgrade is refused", "1.9.0", "1.8.2", CodeDowngrade},
		{"a major change is refused", "1.11.2", "2.0.0", CodeMajorChange},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := code(MinorStep("longhorn", semver.MustParse(tt.from), semver.MustParse(tt.to))); got != tt.want {
				t.Errorf("MinorStep(%s, %s) = %q, want %q", tt.from, tt.to, got, tt.want)
			}
		})
	}
}

func TestKubeletMaxLag(t *testing.T) {
	for _, tt := range []struct {
		v    string
		want int
	}{{"1.27", 2}, {"1.28", 3}, {"1.35", 3}} {
		if got := KubeletMaxLag(semver.MustParse(tt.v)); got != tt.want {
			t.Errorf("KubeletMaxLag(%s) = %d, want %d", tt.v, got, tt.want)
		}
	}
}

func TestRangeContains(t *testing.T) {
	tests := []struct {
		name string
		r    Range
		v    string
		want bool
	}{
		{"unbounded contains everything", Range{}, "1.10", true},
		{"below min is outside", Range{Min: semver.MustParse("1.25")}, "1.24", false},
		{"min itself is inside", Range{Min: semver.MustParse("1.25")}, "1.25.3", true},
		{"max itself is inside, any patch", Range{Max: semver.MustParse("1.33")}, "v1.33.9+rke2r1", true},
		{"above max is outside", Range{Min: semver.MustParse("1.25"), Max: semver.MustParse("1.33")}, "1.34", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.r.Contains(semver.MustParse(tt.v)); got != tt.want {
				t.Errorf("%s.Contains(%s) = %v, want %v", tt.r, tt.v, got, tt.want)
			}
		})
	}
	if err := (Range{Min: semver.MustParse("1.30"), Max: semver.MustParse("1.29")}).Validate(); err == nil {
		t.Error("Validate of an inverted range succeeded")
	}
}
