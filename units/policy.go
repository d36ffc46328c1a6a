package units

import (
	"errors"
	"fmt"
	"slices"

	"gitlab.com/sylva-projects/sylva-planner/semver"
)

// ErrUnknownRelease is returned for a release the policy cannot place:
// older than its oldest release, or missing between two known ones.
var ErrUnknownRelease = errors.New("release not in the catalog")

// Policy is the upgrade-support policy the audit applies: for each known
// release, the releases it supports upgrading from. The caller builds it
// from the release catalog.
type Policy struct {
	// Releases are sorted oldest first.
	Releases []PolicyRelease
	// PastNewest says, in the words every command uses, that a release is
	// newer than the catalog's newest (catalog.Catalog.PastNewest); nil
	// says it plainly.
	PastNewest func(semver.Version) string
	// PastNewestFix is what to do about such a release.
	PastNewestFix string
}

// PolicyRelease is one release and its supported upgrade sources.
type PolicyRelease struct {
	Release     semver.Version
	UpgradeFrom []semver.Version
}

// Sources returns the supported upgrade sources of r, oldest first. For a
// release newer than the newest one known it assumes the n-2 policy (r-2
// and r-1) and reports assumed. The error wraps ErrUnknownRelease.
func (p Policy) Sources(r semver.Version) (sources []semver.Version, assumed bool, err error) {
	if len(p.Releases) == 0 {
		return nil, false, fmt.Errorf("release %s: %w (the catalog is empty)", r.Short(), ErrUnknownRelease)
	}
	for _, pr := range p.Releases {
		if pr.Release.CompareMinor(r) == 0 {
			out := make([]semver.Version, len(pr.UpgradeFrom))
			for i, s := range pr.UpgradeFrom {
				out[i] = s.MinorOnly()
			}
			slices.SortFunc(out, semver.Version.CompareMinor)
			return slices.CompactFunc(out, func(a, b semver.Version) bool { return a.CompareMinor(b) == 0 }), false, nil
		}
	}
	newest := p.Newest()
	if r.CompareMinor(newest) > 0 && r.Major == newest.Major {
		var out []semver.Version
		for _, n := range []int{-2, -1} {
			if r.Minor+n >= 0 {
				out = append(out, r.AddMinor(n))
			}
		}
		return out, true, nil
	}
	return nil, false, unknownRelease(fmt.Sprintf("release %s is not in the catalog (known: %s … %s; a later %d.x release is audited as past it)", r.Short(), p.Releases[0].Release.Short(), newest.Short(), newest.Major))
}

// unknownRelease is an error that is ErrUnknownRelease, in its own words.
type unknownRelease string

func (e unknownRelease) Error() string        { return string(e) }
func (e unknownRelease) Is(target error) bool { return target == ErrUnknownRelease }

// Newest returns the newest known release.
func (p Policy) Newest() semver.Version { return p.Releases[len(p.Releases)-1].Release.MinorOnly() }
