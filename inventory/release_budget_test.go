package inventory

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReleasesStopAtTheBoundsOfAllReleases(t *testing.T) {
	small := storedRelease(t, "web", certManagerManifest("1.17.2"))
	configMaps := storedRelease(t, "cms", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n")
	tests := []struct {
		name     string
		before   Inventory
		stored   []byte
		objects  int
		skipped  string
		wantRead int
	}{
		{
			name:    "a release past the bytes all releases may decompress is not read",
			before:  Inventory{releaseBytes: MaxReleasesBytes - 100},
			stored:  small,
			skipped: "ns/web: decompresses past the 128 MiB all Helm releases may, with the releases read before it",
		},
		{
			name:    "once the bytes are spent, no release is decompressed",
			before:  Inventory{releaseBytes: MaxReleasesBytes},
			stored:  small,
			skipped: "ns/web: not decompressed: the releases read before it decompressed the 128 MiB all Helm releases may",
		},
		{
			name:     "objects past the count of all releases are left out",
			before:   Inventory{releaseObjects: MaxReleasesObjects - 1},
			stored:   configMaps,
			objects:  1,
			wantRead: 1,
			skipped:  "ns/web: not read whole: the releases read hold 50000 objects, as many as all Helm releases may",
		},
		{
			name:     "workloads past the YAML all releases may parse are left out",
			before:   Inventory{releaseParsed: MaxReleasesParsed - 10},
			stored:   small,
			wantRead: 1,
			skipped:  "ns/web: not read whole: its pods and workloads pass the 8 MiB of YAML all Helm releases may have parsed",
		},
		{
			name:     "config maps need no YAML parser",
			before:   Inventory{releaseParsed: MaxReleasesParsed},
			stored:   configMaps,
			objects:  2,
			wantRead: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inv := tt.before
			err := inv.AddHelmRelease("ns/web", tt.stored)
			var want []string
			if tt.skipped != "" {
				want = []string{tt.skipped}
				if err == nil {
					t.Error("AddHelmRelease = nil, want an error")
				}
			}
			if diff := cmp.Diff(want, inv.SkippedReleases); diff != "" {
				t.Errorf("SkippedReleases (-want +got):\n%s", diff)
			}
			if len(inv.Objects) != tt.objects || inv.Releases != tt.wantRead {
				t.Errorf("AddHelmRelease added %d objects, %d releases read; want %d, %d", len(inv.Objects), inv.Releases, tt.objects, tt.wantRead)
			}
		})
	}
}

func TestReleaseChecksNameWhatWasNotRead(t *testing.T) {
	if got := (&Inventory{}).ReleaseChecks(); got != nil {
		t.Errorf("ReleaseChecks() without release Secrets = %v, want none", got)
	}
	inv := &Inventory{}
	_ = inv.AddHelmRelease("bomb/sh.helm.release.v1.bomb.v1", bomb())
	_ = inv.AddHelmRelease("cert-manager/sh.helm.release.v1.cert-manager.v1", storedRelease(t, "cert-manager", certManagerManifest("1.17.2")))
	got := inv.ReleaseChecks()
	if len(got) != 1 || got[0].Required || got[0].Status != "partial" ||
		got[0].Detail != "running versions from Helm releases: 2 release secrets, 1 manifest read (the newest deployed revision of each); 1 release not read: "+
			"bomb/sh.helm.release.v1.bomb.v1: decompresses to more than 16 MiB, more than any release a Secret (at most 1 MiB) can hold" {
		t.Errorf("ReleaseChecks() = %+v", got)
	}
}

func TestNewestReleasesReadsHelmsLabelsThenTheName(t *testing.T) {
	labels := func(name, status, version string) map[string]string {
		return map[string]string{"name": name, "owner": "helm", "status": status, "version": version}
	}
	secrets := []ReleaseSecret{
		{Namespace: "a", Name: "sh.helm.release.v1.web.v1", Labels: labels("web", "superseded", "1")},
		{Namespace: "a", Name: "sh.helm.release.v1.web.v2", Labels: labels("web", "deployed", "2")},
		// Helm left two revisions deployed (an upgrade interrupted).
		{Namespace: "a", Name: "sh.helm.release.v1.web.v12", Labels: labels("web", "deployed", "12")},
		{Namespace: "a", Name: "sh.helm.release.v1.web.v13", Labels: labels("web", "pending-upgrade", "13")},
		// The same release name in another namespace is another release.
		{Namespace: "b", Name: "sh.helm.release.v1.web.v1", Labels: labels("web", "deployed", "1")},
		// No labels: the name says the release and revision.
		{Namespace: "c", Name: "sh.helm.release.v1.db.v9"},
		{Namespace: "c", Name: "sh.helm.release.v1.db.v10"},
		// A name Helm did not write is a release of its own.
		{Namespace: "c", Name: "odd"},
	}
	var got []string
	for _, i := range NewestReleases(secrets) {
		got = append(got, secrets[i].Namespace+"/"+secrets[i].Name)
	}
	want := "a/sh.helm.release.v1.web.v12 b/sh.helm.release.v1.web.v1 c/sh.helm.release.v1.db.v10 c/odd"
	if strings.Join(got, " ") != want {
		t.Errorf("NewestReleases = %s, want %s", strings.Join(got, " "), want)
	}
}
