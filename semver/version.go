package semver

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrNumericVersion is returned when a version arrives as a YAML or JSON
// number instead of a string: the number 1.30 reads as 1.3, so it can never
// be trusted.
var ErrNumericVersion = errors.New("version written as a number")

// Version is a parsed version string. It accepts the forms seen around a
// Sylva cluster: "1.31", "1.31.8", "v1.31.8", "v1.31.8+rke2r1", "1.6-pre",
// "1.6.0-rc.1" and "0.0.0-git-c2cf24ef+9675be9d".
//
// The zero Version is not valid; IsZero reports it.
type Version struct {
	Major int
	Minor int
	// Patch is 0 when the string had no patch part; HasPatch tells the two apart.
	Patch    int
	HasPatch bool
	// Pre is the pre-release part without its leading '-', such as "pre" or "rc.1".
	Pre string
	// Build is the build metadata without its leading '+', such as "rke2r1".
	Build string
	raw   string
}

// Parse parses s as a Version. A leading "v" is accepted. The error names s.
func Parse(s string) (Version, error) {
	raw := s
	if s == "" {
		return Version{}, errors.New("empty version")
	}
	s = strings.TrimPrefix(s, "v")
	if err := negativeNumber(s); err != nil {
		return Version{}, fmt.Errorf("version %q: %w", raw, err)
	}
	var v Version
	v.raw = raw
	if i := strings.IndexByte(s, '+'); i >= 0 {
		v.Build = s[i+1:]
		s = s[:i]
		if v.Build == "" || !validIdents(v.Build) {
			return Version{}, fmt.Errorf("version %q: invalid build metadata", raw)
		}
	}
	if i := strings.IndexByte(s, '-'); i >= 0 {
		v.Pre = s[i+1:]
		s = s[:i]
		if v.Pre == "" || !validIdents(v.Pre) {
			return Version{}, fmt.Errorf("version %q: invalid pre-release", raw)
		}
	}
	parts := strings.Split(s, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return Version{}, fmt.Errorf("version %q: want MAJOR.MINOR or MAJOR.MINOR.PATCH", raw)
	}
	nums := make([]int, len(parts))
	for i, p := range parts {
		if p == "" {
			return Version{}, fmt.Errorf("version %q: the %s is empty; %s", raw, partNames[i], wantForm)
		}
		n, err := parseNumber(p)
		if err != nil {
			return Version{}, fmt.Errorf("version %q: %w", raw, err)
		}
		nums[i] = n
	}
	v.Major, v.Minor = nums[0], nums[1]
	if len(nums) == 3 {
		v.Patch, v.HasPatch = nums[2], true
	}
	return v, nil
}

// MustParse is Parse for constants in tests and tables; it panics on error.
func MustParse(s string) Version {
	v, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return v
}

// wantForm is the form of a version, said when a part is wrong.
const wantForm = "want MAJOR.MINOR or MAJOR.MINOR.PATCH of non-negative numbers"

// partNames name the numbers of a version in errors.
var partNames = [...]string{"major", "minor", "patch"}

// negativeNumber refuses a '-' that starts a number (s without its
// leading "v"): "1.-4" would otherwise read as "1." with the pre-release
// "4", and be refused for an empty minor that the user did not type. The
// first '-' after any other character starts the pre-release, where
// "rc.-1" is left to the pre-release rules.
func negativeNumber(s string) error {
	core, _, _ := strings.Cut(s, "+")
	for i := 0; i < len(core); i++ {
		if core[i] != '-' {
			continue
		}
		if i > 0 && core[i-1] != '.' {
			return nil
		}
		dots := strings.Count(core[:i], ".")
		if dots >= len(partNames) {
			return nil
		}
		num := core[i:]
		if j := strings.IndexByte(num[1:], '.'); j >= 0 {
			num = num[:j+1]
		}
		return fmt.Errorf("the %s %q is negative; %s", partNames[dots], num, wantForm)
	}
	return nil
}

func parseNumber(p string) (int, error) {
	if p == "" {
		return 0, errors.New("empty number")
	}
	if len(p) > 1 && p[0] == '0' {
		return 0, fmt.Errorf("number %q has a leading zero", p)
	}
	for _, r := range p {
		if r < '0' || r > '9' {
			return 0, fmt.Errorf("%q is not a number", p)
		}
	}
	n, err := strconv.Atoi(p)
	if err != nil || n > 1<<20 {
		return 0, fmt.Errorf("number %q out of range", p)
	}
	return n, nil
}

func validIdents(s string) bool {
	for _, id := range strings.Split(s, ".") {
		if id == "" {
			return false
		}
		for _, r := range id {
			if (r < '0' || r > '9') && (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && r != '-' {
				return false
			}
		}
	}
	return true
}

// IsZero reports whether v is the zero Version (never parsed).
func (v Version) IsZero() bool { return v.raw == "" && v == Version{} }

// String returns the version as it was written, or a canonical form for a
// Version built by hand.
func (v Version) String() string {
	if v.raw != "" {
		return v.raw
	}
	s := fmt.Sprintf("%d.%d", v.Major, v.Minor)
	if v.HasPatch {
		s += "." + strconv.Itoa(v.Patch)
	}
	if v.Pre != "" {
		s += "-" + v.Pre
	}
	if v.Build != "" {
		s += "+" + v.Build
	}
	return s
}

// Short returns "MAJOR.MINOR", the form of Sylva's k8s_version_short.
func (v Version) Short() string { return fmt.Sprintf("%d.%d", v.Major, v.Minor) }

// MinorOnly returns v reduced to its major and minor parts.
func (v Version) MinorOnly() Version { return Version{Major: v.Major, Minor: v.Minor} }

// IsPrerelease reports whether v carries a pre-release part ("1.6-pre").
func (v Version) IsPrerelease() bool { return v.Pre != "" }

// Compare orders versions as semantic versions: major, minor, patch, then a
// pre-release sorts before the release it precedes. Build metadata is ignored.
// A missing patch counts as 0.
func (v Version) Compare(o Version) int {
	if c := cmpInt(v.Major, o.Major); c != 0 {
		return c
	}
	if c := cmpInt(v.Minor, o.Minor); c != 0 {
		return c
	}
	if c := cmpInt(v.Patch, o.Patch); c != 0 {
		return c
	}
	return comparePre(v.Pre, o.Pre)
}

// CompareMinor orders versions by major and minor only.
func (v Version) CompareMinor(o Version) int {
	if c := cmpInt(v.Major, o.Major); c != 0 {
		return c
	}
	return cmpInt(v.Minor, o.Minor)
}

// MinorsTo returns how many minors separate v from o within the same major
// (positive when o is newer). Across majors it returns an error: no
// component this package models has crossed a major.
func (v Version) MinorsTo(o Version) (int, error) {
	if v.Major != o.Major {
		return 0, fmt.Errorf("versions %s and %s: different major versions", v, o)
	}
	return o.Minor - v.Minor, nil
}

// AddMinor returns the MAJOR.MINOR version n minors after v.
func (v Version) AddMinor(n int) Version { return Version{Major: v.Major, Minor: v.Minor + n} }

// Equal reports whether v and o are the same version, ignoring build metadata.
func (v Version) Equal(o Version) bool { return v.Compare(o) == 0 }

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func comparePre(a, b string) int {
	switch {
	case a == b:
		return 0
	case a == "":
		return 1
	case b == "":
		return -1
	}
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		an, aerr := strconv.Atoi(as[i])
		bn, berr := strconv.Atoi(bs[i])
		switch {
		case aerr == nil && berr == nil:
			if c := cmpInt(an, bn); c != 0 {
				return c
			}
		case aerr == nil:
			return -1
		case berr == nil:
			return 1
		default:
			if c := strings.Compare(as[i], bs[i]); c != 0 {
				return c
			}
		}
	}
	return cmpInt(len(as), len(bs))
}

// MarshalText writes the version as a string.
func (v Version) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// UnmarshalJSON accepts only a JSON string. A number is refused with
// ErrNumericVersion, because YAML turns 1.30 into the number 1.3 before this
// code can see it; the error says to quote the value.
func (v *Version) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] != '"' {
		if string(b) == "null" {
			return errors.New("version is null")
		}
		return fmt.Errorf("%w: %s; quote it (for example \"1.30\", not 1.30, which YAML reads as 1.3)", ErrNumericVersion, b)
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	p, err := Parse(s)
	if err != nil {
		return err
	}
	*v = p
	return nil
}
