package status_test

import (
	"bytes"
	"strings"
	"testing"

	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

// TestNextNamesTheReleaseToPlanTo checks the Next of a release that no
// pass keeps busy: a plan to --to, else to the newest release the catalog
// lets it go to (Report.Newest), else what to fill in, said in words; never
// a placeholder left for the user to guess.
func TestNextNamesTheReleaseToPlanTo(t *testing.T) {
	const on14 = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: sylva-units-status, namespace: wc1}\ndata: {sylva_release: \"1.4\"}\n"
	const noRelease = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: sylva-units-status, namespace: wc1}\ndata: {release-revision: \"3\"}\n"
	const fresh = "apiVersion: v1\nkind: List\nitems: []\n"
	const deleted = `apiVersion: v1
kind: List
items:
- apiVersion: kustomize.toolkit.fluxcd.io/v1
  kind: Kustomization
  metadata: {name: sylva-units-status, namespace: wc1, generation: 1, annotations: {target-release-revision: "17"}}
  spec: {interval: 30m, prune: true}
  status:
    observedGeneration: 1
    conditions:
    - {type: Ready, status: "True", reason: ReconciliationSucceeded, message: applied, observedGeneration: 1, lastTransitionTime: "2025-06-01T10:00:00Z"}
- apiVersion: helm.toolkit.fluxcd.io/v2
  kind: HelmRelease
  metadata: {name: sylva-units, namespace: wc1, generation: 5}
  spec: {interval: 30m}
  status:
    observedGeneration: 5
    conditions:
    - {type: Ready, status: "True", reason: UpgradeSucceeded, message: ok, observedGeneration: 5, lastTransitionTime: "2025-06-01T10:00:00Z"}
`
	cat := envelope.Selection{Catalog: "my cat.yaml"}
	file := envelope.Selection{Catalog: "my cat.yaml", State: "cm.yaml"}
	to16 := envelope.Selection{Catalog: "my cat.yaml", To: "1.6"}
	for _, tc := range []struct {
		name   string
		input  string
		sel    envelope.Selection
		newest string
		want   string
	}{
		{"the newest release it can go to", on14, cat, "1.7", "sylva-planner plan --from 1.4 --to 1.7 --catalog 'my cat.yaml'"},
		{"from the same file", on14, file, "1.7", "sylva-planner plan --to 1.7 --catalog 'my cat.yaml' --status cm.yaml"},
		{"the target given", on14, to16, "1.7", "sylva-planner plan --from 1.4 --to 1.6 --catalog 'my cat.yaml'"},
		{"on the newest already", on14, cat, "1.4", "none: the release is on 1.4, and the catalog has no newer release it can go to"},
		{"a release the catalog does not hold", on14, cat, "", "plan to the release to go to (fill it in; the catalog does not hold 1.4): sylva-planner plan --from 1.4 --to <the release to go to> --catalog 'my cat.yaml'"},
		{"a status that names no release", noRelease, file, "", "plan from the release the cluster runs, which the status does not name, to the release to go to (fill both in): sylva-planner plan --from <the release installed> --to <the release to go to> --catalog 'my cat.yaml'"},
		{"a status that names no release, with a target", noRelease, to16, "", "plan from the release the cluster runs, which the status does not name (fill it in): sylva-planner plan --from <the release installed> --to 1.6 --catalog 'my cat.yaml'"},
		{"a fresh install", fresh, file, "1.7", "nothing to plan from yet: no release has completed its install (no sylva-units-status ConfigMap); once one has, check again: sylva-planner status --catalog 'my cat.yaml'"},
		{"a deleted status", deleted, cat, "", "let the sylva-units-status unit write the status back (flux reconcile kustomization sylva-units-status -n wc1), then check again: sylva-planner status --catalog 'my cat.yaml'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obs, err := status.DecodeObservation([]byte(tc.input), status.DefaultHelmRelease)
			if err != nil {
				t.Fatal(err)
			}
			rep := status.Interpret(obs)
			rep.Selection = tc.sel
			if tc.newest != "" {
				rep.Newest = semver.MustParse(tc.newest)
			}
			var b bytes.Buffer
			if err := rep.WriteTable(&b); err != nil {
				t.Fatal(err)
			}
			_, got, _ := strings.Cut(b.String(), "\nNext: ")
			if got = strings.TrimSuffix(got, "\n"); got != tc.want {
				t.Errorf("Next: %s\nwant:  %s", got, tc.want)
			}
		})
	}
}
