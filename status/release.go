package status

import (
	"strings"

	"gitlab.com/sylva-projects/sylva-planner/semver"
)

// ReleaseSource says where the installed release was read from.
type ReleaseSource string

const (
	// SourceSylvaRelease is the sylva_release key.
	SourceSylvaRelease ReleaseSource = "sylva_release"
	// SourceChartVersion is a release chart version such as 1.4.3.
	SourceChartVersion ReleaseSource = "chart-version"
	// SourceBranch is the sylva_branch key.
	SourceBranch ReleaseSource = "branch"
	// SourceNone means nothing tells the release.
	SourceNone ReleaseSource = "none"
)

// Release returns the installed Sylva release and where it comes from, in
// order of trust: sylva_release ("1.6", or "1.6-pre" for the 1.6
// development cycle); else a release chart version reduced to its minor
// (1.4.3 → 1.4; a pre-release such as 1.5.0-rc.1 gives 1.5-rc.1; a
// development chart 0.0.0-git-… or any 0.x is not a release); else the
// branch (release-1.5 → 1.5). ok is false when the release is unknown: a
// development branch such as main (source SourceBranch), or nothing at all
// (SourceNone), which means a status written before release tracking
// (Sylva ≤ 1.5). A nil Status (no ConfigMap, a fresh install) gives
// SourceNone and false.
func (s *Status) Release() (v semver.Version, src ReleaseSource, ok bool) {
	if s == nil {
		return semver.Version{}, SourceNone, false
	}
	if !s.SylvaRelease.IsZero() {
		return s.SylvaRelease, SourceSylvaRelease, true
	}
	if v, ok := chartRelease(s.ChartVersion); ok {
		return v, SourceChartVersion, true
	}
	if s.SylvaBranch != "" {
		if v, ok := branchRelease(s.SylvaBranch); ok {
			return v, SourceBranch, true
		}
		return semver.Version{}, SourceBranch, false
	}
	return semver.Version{}, SourceNone, false
}

// chartRelease maps a sylva-units chart version to the release it belongs to.
func chartRelease(s string) (semver.Version, bool) {
	if s == "" {
		return semver.Version{}, false
	}
	v, err := semver.Parse(s)
	if err != nil || isDevChart(v) {
		return semver.Version{}, false
	}
	return semver.Version{Major: v.Major, Minor: v.Minor, Pre: v.Pre}, true
}

func isDevChart(v semver.Version) bool {
	return v.Major == 0 || strings.HasPrefix(v.Pre, "git")
}

// branchRelease maps "release-1.5" to 1.5.
func branchRelease(b string) (semver.Version, bool) {
	rest, ok := strings.CutPrefix(b, "release-")
	if !ok {
		return semver.Version{}, false
	}
	v, err := semver.Parse(rest)
	if err != nil || v.HasPatch || v.Pre != "" || v.Build != "" {
		return semver.Version{}, false
	}
	return v, true
}
