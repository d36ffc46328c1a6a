package semver

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestParseAcceptsTheFormsSeenAroundSylva(t *testing.T) {
	tests := []struct {
		in                  string
		major, minor, patch int
		hasPatch            bool
		pre, build          string
	}{
		{"1.31", 1, 31, 0, false, "", ""},
		{"1.31.8", 1, 31, 8, true, "", ""},
		{"v1.31.8", 1, 31, 8, true, "", ""},
		{"v1.31.8+rke2r1", 1, 31, 8, true, "", "rke2r1"},
		{"1.6-pre", 1, 6, 0, false, "pre", ""},
		{"1.6.0-rc.1", 1, 6, 0, true, "rc.1", ""},
		{"0.0.0-git-c2cf24ef+9675be9d", 0, 0, 0, true, "git-c2cf24ef", "9675be9d"},
		{"108.2.1+up1.10.2", 108, 2, 1, true, "", "up1.10.2"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			v, err := Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse(%q) error = %v", tt.in, err)
			}
			if v.Major != tt.major || v.Minor != tt.minor || v.Patch != tt.patch || v.HasPatch != tt.hasPatch || v.Pre != tt.pre || v.Build != tt.build {
				t.Errorf("Parse(%q) = %+v", tt.in, v)
			}
			if v.String() != tt.in {
				t.Errorf("Parse(%q).String() = %q, want the input back", tt.in, v.String())
			}
		})
	}
}

func TestParseRefusesWhatIsNotAVersion(t *testing.T) {
	for _, in := range []string{"", "main", "1", "1.", ".1", "1.2.3.4", "1.x", "v", "1.02", "1.2-", "1.2+", "1.2-a..b", "-1.2", "1.2_3"} {
		t.Run(in, func(t *testing.T) {
			_, err := Parse(in)
			if err == nil {
				t.Fatalf("Parse(%q) succeeded, want an error", in)
			}
			if in != "" && !strings.Contains(err.Error(), in) {
				t.Errorf("Parse(%q) error %q does not name the input", in, err)
			}
		})
	}
}

func TestParseSaysWhatIsWrongWithANumber(t *testing.T) {
	tests := []struct{ in, want string }{
		{"1.-4", `version "1.-4": the minor "-4" is negative; want MAJOR.MINOR or MAJOR.MINOR.PATCH of non-negative numbers`},
		{"-1.4", `version "-1.4": the major "-1" is negative; want MAJOR.MINOR or MAJOR.MINOR.PATCH of non-negative numbers`},
		{"v1.4.-1", `version "v1.4.-1": the patch "-1" is negative; want MAJOR.MINOR or MAJOR.MINOR.PATCH of non-negative numbers`},
		{"1..4", `version "1..4": the minor is empty; want MAJOR.MINOR or MAJOR.MINOR.PATCH of non-negative numbers`},
		{".4", `version ".4": the major is empty; want MAJOR.MINOR or MAJOR.MINOR.PATCH of non-negative numbers`},
		{"banana", `version "banana": want MAJOR.MINOR or MAJOR.MINOR.PATCH`},
	}
	for _, tt := range tests {
		if _, err := Parse(tt.in); err == nil || err.Error() != tt.want {
			t.Errorf("Parse(%q) error = %v, want %s", tt.in, err, tt.want)
		}
	}
	// A '-' inside the pre-release is the pre-release's.
	for _, in := range []string{"1.6-rc.-1", "1.6.0-rc.1", "1.6.0-a-b"} {
		if _, err := Parse(in); err != nil {
			t.Errorf("Parse(%q) = %v, want a version", in, err)
		}
	}
}

func TestCompareOrdersAsSemanticVersions(t *testing.T) {
	ordered := []string{"0.0.0-git-c2cf24ef+9675be9d", "1.4-pre", "1.4", "1.4.3", "1.5-pre", "1.5", "1.6.0-rc.1", "1.6.0-rc.2", "1.6.0-rc.10", "1.6", "1.10"}
	for i := range ordered {
		for j := range ordered {
			a, b := MustParse(ordered[i]), MustParse(ordered[j])
			want := cmpInt(i, j)
			if got := a.Compare(b); got != want {
				t.Errorf("Compare(%s, %s) = %d, want %d", a, b, got, want)
			}
		}
	}
}

func TestBuildMetadataDoesNotChangeOrder(t *testing.T) {
	if !MustParse("v1.31.8+rke2r1").Equal(MustParse("1.31.8")) {
		t.Error("v1.31.8+rke2r1 and 1.31.8 should compare equal")
	}
}

func TestShortGivesMajorMinor(t *testing.T) {
	if got := MustParse("v1.31.8+rke2r1").Short(); got != "1.31" {
		t.Errorf("Short() = %q, want 1.31", got)
	}
}

func TestUnmarshalJSONRefusesNumbersAndSaysToQuote(t *testing.T) {
	var v Version
	err := json.Unmarshal([]byte(`1.3`), &v)
	if !errors.Is(err, ErrNumericVersion) {
		t.Fatalf("Unmarshal(1.3) error = %v, want ErrNumericVersion", err)
	}
	if !strings.Contains(err.Error(), "quote") {
		t.Errorf("error %q does not say to quote the value", err)
	}
	if err := json.Unmarshal([]byte(`"1.30"`), &v); err != nil || v.Minor != 30 {
		t.Errorf("Unmarshal(\"1.30\") = %v, %v", v, err)
	}
	if err := json.Unmarshal([]byte(`null`), &v); err == nil {
		t.Error("Unmarshal(null) succeeded, want an error")
	}
}

func TestMinorsTo(t *testing.T) {
	n, err := MustParse("1.31").MinorsTo(MustParse("1.33"))
	if err != nil || n != 2 {
		t.Errorf("MinorsTo = %d, %v; want 2", n, err)
	}
	if _, err := MustParse("1.31").MinorsTo(MustParse("2.0")); err == nil {
		t.Error("MinorsTo across majors succeeded, want an error")
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"1.31", "v1.31.8+rke2r1", "1.6-pre", "1.6.0-rc.1", "0.0.0-git-c2cf24ef+9675be9d", "main", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := Parse(s)
		if err != nil {
			if s != "" && !strings.Contains(err.Error(), s) && !strings.Contains(err.Error(), "empty") {
				t.Fatalf("Parse(%q) error %q does not name the input", s, err)
			}
			return
		}
		again, err := Parse(v.String())
		if err != nil || again.Compare(v) != 0 {
			t.Fatalf("Parse(%q) does not round-trip: %v, %v", s, again, err)
		}
	})
}
