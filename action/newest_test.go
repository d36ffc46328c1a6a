package action_test

import (
	"slices"
	"testing"

	"gitlab.com/sylva-projects/sylva-planner/action"
	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/internal/catalogtest"
	"gitlab.com/sylva-projects/sylva-planner/semver"
)

// TestNewestFromIsTheNewestThatSupportsTheInstalledRelease checks the
// release a status given no --to suggests planning to: the newest that
// lists the installed release as an upgrade source, itself when none is
// newer, none when the catalog does not hold it.
func TestNewestFromIsTheNewestThatSupportsTheInstalledRelease(t *testing.T) {
	cat := catalogtest.Default(t)
	// The same catalog, but 1.7 upgrades from nothing.
	cut := *cat
	cut.Releases = slices.Clone(cat.Releases)
	last := &cut.Releases[len(cut.Releases)-1]
	last.UpgradeFrom = nil
	for _, tc := range []struct {
		name      string
		cat       *catalog.Catalog
		installed string
		want      string
	}{
		{"1.7 does not support 1.4, 1.6 does", cat, "1.4", "1.6"},
		{"1.7 supports 1.5", cat, "1.5", "1.7"},
		{"a patch release", cat, "1.6.2", "1.7"},
		{"a pre-release", cat, "1.6-pre", "1.7"},
		{"on the newest", cat, "1.7", "1.7"},
		{"no newer release supports it", &cut, "1.6", "1.6"},
		{"newer than the catalog", cat, "1.8", ""},
		{"no installed release", cat, "", ""},
		{"no catalog", nil, "1.4", ""},
	} {
		var installed semver.Version
		if tc.installed != "" {
			installed = semver.MustParse(tc.installed)
		}
		got := ""
		if v := action.NewestFrom(tc.cat, installed); !v.IsZero() {
			got = v.String()
		}
		if got != tc.want {
			t.Errorf("%s: NewestFrom(%s) = %q, want %q", tc.name, tc.installed, got, tc.want)
		}
	}
}
