package units

import (
	"errors"
	"fmt"
	"strings"

	"gitlab.com/sylva-projects/sylva-planner/semver"
)

// ErrNoRelease is returned by ReleaseOf when the values do not say which
// Sylva release they belong to (the audit can still run without one). A
// release that is written but unusable is another error.
var ErrNoRelease = errors.New("no Sylva release in the values")

// DetectedRelease is the release values belong to and where it was read.
type DetectedRelease struct {
	// Release is MAJOR.MINOR, without pre-release ("1.7-pre" gives 1.7).
	Release semver.Version
	// From says where it was read, such as `sylva_release "1.7-pre"`.
	From string
}

// ReleaseOf reads the Sylva release from the values, in this order:
// sylva_release ("1.7-pre" is 1.7: the release main is preparing),
// _internal.sylva_branch ("release-1.6" is 1.6; "main" says nothing), then
// chartVersion (the sylva-units chart version, "" when unknown; a 0.x
// development chart says nothing). When none names a release the error
// wraps ErrNoRelease and says what to pass instead, with example (such as
// "for example --release 1.7"); a sylva_release that is not a release is
// another error.
func ReleaseOf(v *Values, chartVersion, example string) (DetectedRelease, error) {
	if v.releaseProblem != "" {
		return DetectedRelease{}, errors.New(v.releaseProblem)
	}
	if s := v.SylvaRelease; s != "" {
		r, err := semver.Parse(strings.TrimSpace(s))
		if err != nil {
			return DetectedRelease{}, fmt.Errorf("sylva_release %q is not a release such as 1.7 or 1.7-pre; fix it or pass --release", s)
		}
		return DetectedRelease{Release: r.MinorOnly(), From: fmt.Sprintf("sylva_release %q", s)}, nil
	}
	if b := v.SylvaBranch; b != "" {
		if rest, ok := strings.CutPrefix(b, "release-"); ok {
			if r, err := semver.Parse(rest); err == nil {
				return DetectedRelease{Release: r.MinorOnly(), From: fmt.Sprintf("_internal.sylva_branch %q", b)}, nil
			}
		}
		if chartVersion == "" {
			return DetectedRelease{}, fmt.Errorf("%w: _internal.sylva_branch is %q, which names no release; pass --release (%s) or set sylva_release", ErrNoRelease, b, example)
		}
	}
	if chartVersion != "" {
		r, err := semver.Parse(chartVersion)
		if err == nil && r.Major > 0 {
			return DetectedRelease{Release: r.MinorOnly(), From: fmt.Sprintf("chart version %q", chartVersion)}, nil
		}
		return DetectedRelease{}, fmt.Errorf("%w: chart version %q is a development version; pass --release (%s)", ErrNoRelease, chartVersion, example)
	}
	return DetectedRelease{}, fmt.Errorf("%w: pass --release (%s) or set sylva_release in the values", ErrNoRelease, example)
}
