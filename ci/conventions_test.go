package ci

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	yaml "go.yaml.in/yaml/v3"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/internal/golden"
	"gitlab.com/sylva-projects/sylva-planner/internal/sylvacore"
	"gitlab.com/sylva-projects/sylva-planner/semver"
)

// ciFiles is a .gitlab/ci in the shape of sylva-core's: infrastructure
// templates (.capd only deploys, as sylva-core's), scenario templates (one
// per upgrade source, and an alias for the default one) and the
// publish-wait template.
var ciFiles = fstest.MapFS{
	".gitlab/ci/deployments-base.yml": {Data: []byte(`
.default-deploy-config:
  stage: deploy
  trigger: {forward: {pipeline_variables: true}}
.wait-publish-jobs:
  needs: [{job: push-helm-artifacts}]
.capo:
  extends: [.default-deploy-config]
  trigger: {include: .gitlab/ci/pipeline-deploy-capo.yml, strategy: depend}
.capm3:
  extends: [.default-deploy-config]
  trigger:
    include: .gitlab/ci/pipeline-deploy-capm3-virt-equinix.yml
.capd:
  extends: .default-deploy-config
  trigger: {include: .gitlab/ci/pipeline-deploy-capd.yml}
  variables: {DEPLOY_MGMT_CLUSTER: "true", UPDATE_MGMT_CLUSTER: "false"}
.rolling-upgrade-timeout:
  variables: {MGMT_WATCH_TIMEOUT_MIN: "45"}
.scenario_sylva-upgrade:
  extends: .scenario_sylva-upgrade-from-1.6.x
.scenario_sylva-upgrade-from-1.6.x:
  extends: [.rolling-upgrade-timeout]
  variables:
    MGMT_INITIAL_REVISION: release-1.6
    MGMT_UPDATE_REVISION: ""
    WC_INITIAL_REVISION: release-1.6
.scenario_sylva-upgrade-from-1.5.2:
  variables:
    MGMT_INITIAL_REVISION: "1.5.2"
    WC_INITIAL_REVISION: "1.5.2"
.scenario_simple-update:
  variables: {MGMT_UPDATE_ADDITIONAL_VALUES: simple-update.yml}
`)},
	".gitlab/ci/common.yml": {Data: []byte(`
.summary:
  script:
    - !reference [.x, y]
job:
  script: [echo]
`)},
}

func TestTemplatesFindTheScenarioOfEachSource(t *testing.T) {
	tpls, err := ReadTemplates(ciFiles)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, from, template, revision string
		ok                             bool
	}{
		{"a release branch scenario serves its minor", "1.6", ".scenario_sylva-upgrade-from-1.6.x", "release-1.6", true},
		{"a tag scenario serves its minor", "1.5", ".scenario_sylva-upgrade-from-1.5.2", "1.5.2", true},
		{"a minor without a scenario has none", "1.4", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, ok := tpls.ForSource(semver.MustParse(tt.from))
			if ok != tt.ok || s.Template != tt.template || s.InitialRevision != tt.revision {
				t.Errorf("ForSource(%s) = %+v, %v; want %s with %s", tt.from, s, ok, tt.template, tt.revision)
			}
		})
	}
	if d, ok := tpls.DefaultUpgrade(); !ok || d.Template != ".scenario_sylva-upgrade-from-1.6.x" {
		t.Errorf("DefaultUpgrade() = %+v, want the template .scenario_sylva-upgrade extends", d)
	}
	if v, ok := tpls.Variable(".scenario_sylva-upgrade", "MGMT_WATCH_TIMEOUT_MIN"); !ok || v != "45" {
		t.Errorf("inherited variable = %q, %v; want 45 through two extends", v, ok)
	}
}

func TestConventionsJobsForAReleaseWithoutAScenarioForEverySource(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	tpls, err := ReadTemplates(ciFiles)
	if err != nil {
		t.Fatal(err)
	}
	// 1.7 supports 1.5 (a tag scenario exists) and 1.6 (a branch one).
	m, err := Compute(cat, Target{Branch: "main", Release: semver.MustParse("1.7-pre")}, Options{
		ToolVersion: "test", AsOf: asOf, Source: "test",
		Conventions: &Conventions{Templates: tpls, Infra: "capo", Bootstrap: "rke2", OS: "ubuntu"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := m.WriteGitLabCI(&out, ".ignored"); err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, out.Bytes(), "conventions-main-1.7-pre.gitlab-ci.yml")
	checkJobs(t, out.Bytes(), tpls)

	// 1.6 supports 1.4, which has no scenario: the job extends the default
	// upgrade scenario and sets its initial revision.
	m, err = Compute(cat, Target{Branch: "release-1.6", Release: semver.MustParse("1.6")}, Options{
		AsOf: asOf, Conventions: &Conventions{Templates: tpls, Infra: "capo", Bootstrap: "kadm", OS: "suse"},
	})
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := m.WriteGitLabCI(&out, ""); err != nil {
		t.Fatal(err)
	}
	jobs := checkJobs(t, out.Bytes(), tpls)
	j, ok := jobs["☁capo 🚀kadm 🎬sylva-upgrade-from-1.4.x 🐧suse"]
	if !ok {
		t.Fatalf("no job for 1.4 in %v", jobs)
	}
	if j.Variables["MGMT_INITIAL_REVISION"] != "release-1.4" || j.Extends[1] != ".scenario_sylva-upgrade-from-1.6.x" {
		t.Errorf("1.4 job = %+v, want release-1.4 over the default scenario", j)
	}
}

func TestCheckInfraAcceptsTheTemplatesThatDeployAndUpgrade(t *testing.T) {
	tpls, err := ReadTemplates(ciFiles)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, infra, wantErr string }{
		{"capo starts its deployment pipeline", "capo", ""},
		{"capm3 starts its deployment pipeline", "capm3", ""},
		{"capd turns the management cluster's update off", "capd", `.capd sets UPDATE_MGMT_CLUSTER "false"`},
		{"a template that starts no pipeline is no infrastructure", "default-deploy-config", ".default-deploy-config starts no deployment pipeline"},
		{"a scenario is no infrastructure", "scenario_simple-update", ".scenario_simple-update starts no deployment pipeline"},
		{"a template the files lack", "nope", ".gitlab/ci has no .nope template"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tpls.CheckInfra(tt.infra)
			if (err == nil) != (tt.wantErr == "") || (err != nil && !strings.HasPrefix(err.Error(), tt.wantErr)) {
				t.Errorf("CheckInfra(%q) = %v, want %q", tt.infra, err, tt.wantErr)
			}
		})
	}
	if diff := cmp.Diff([]string{"capm3", "capo"}, tpls.Infrastructures()); diff != "" {
		t.Errorf("Infrastructures() (-want +got):\n%s", diff)
	}
}

type job struct {
	Extends   []string          `yaml:"extends"`
	Variables map[string]string `yaml:"variables"`
}

// checkJobs parses a generated pipeline and checks that every template a
// job extends exists in tpls; it returns the jobs by name.
func checkJobs(t *testing.T, pipeline []byte, tpls *Templates) map[string]job {
	t.Helper()
	var doc map[string]yaml.Node
	if err := yaml.Unmarshal(pipeline, &doc); err != nil {
		t.Fatalf("the pipeline does not parse: %v\n%s", err, pipeline)
	}
	if _, ok := doc["include"]; !ok {
		t.Errorf("the pipeline includes no CI file:\n%s", pipeline)
	}
	jobs := map[string]job{}
	for name, n := range doc {
		if name == "include" {
			continue
		}
		var j job
		if err := n.Decode(&j); err != nil {
			t.Fatalf("job %q: %v", name, err)
		}
		for _, e := range j.Extends {
			if _, ok := tpls.Get(e); !ok {
				t.Errorf("job %q extends %s, which the checkout does not define", name, e)
			}
		}
		if j.Variables["DEPLOYMENT_SCENARIO"] == "" || !strings.Contains(name, "🎬"+j.Variables["DEPLOYMENT_SCENARIO"]+" ") {
			t.Errorf("job %q does not name its scenario %q", name, j.Variables["DEPLOYMENT_SCENARIO"])
		}
		jobs[name] = j
	}
	if len(jobs) == 0 {
		t.Errorf("no job in:\n%s", pipeline)
	}
	return jobs
}

// TestConventionsOnTheBundle runs ci-matrix's reading on sylva-core's own
// main and release-1.3.
func TestConventionsOnTheBundle(t *testing.T) {
	if os.Getenv(sylvacore.EnvDir) != "" {
		t.Skip("needs the bundle's main and release-1.3")
	}
	dir := sylvacore.Repo(t)
	ctx := context.Background()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	repo, err := ReadRepo(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	mainRelease, _, _ := repo.MainRelease()
	tests := []struct {
		name, branch string
		release      semver.Version
		wantJob      string
		wantRevision string
	}{
		{"main (1.4) tests the upgrade from release-1.3 with its own 1.3.x scenario", "main", mainRelease, "☁capo 🚀rke2 🎬sylva-upgrade-from-1.3.x 🐧ubuntu", "release-1.3"},
		{"release-1.3 tests the upgrade from tag 1.2.1, as its scenario does", "release-1.3", semver.MustParse("1.3"), "☁capo 🚀rke2 🎬sylva-upgrade-from-1.2.1 🐧ubuntu", "1.2.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			commit, err := Checkout{Dir: dir}.Resolve(ctx, tt.branch)
			if err != nil {
				t.Fatal(err)
			}
			tpls, err := ReadTemplates(Checkout{Dir: dir}.FS(ctx, commit))
			if err != nil {
				t.Fatal(err)
			}
			// .capd only deploys (UPDATE_MGMT_CLUSTER "false"): the
			// infrastructures an upgrade job can extend are the other two.
			if diff := cmp.Diff([]string{"capm3", "capo"}, tpls.Infrastructures()); diff != "" {
				t.Errorf("Infrastructures() at %s (-want +got):\n%s", tt.branch, diff)
			}
			m, err := Compute(cat, Target{Branch: tt.branch, Release: tt.release}, Options{
				AsOf: asOf, Branches: repo.Names(),
				Conventions: &Conventions{Templates: tpls, Infra: "capo", Bootstrap: "rke2", OS: "ubuntu"},
			})
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := m.WriteGitLabCI(&out, ""); err != nil {
				t.Fatal(err)
			}
			jobs := checkJobs(t, out.Bytes(), tpls)
			j, ok := jobs[tt.wantJob]
			if !ok {
				t.Fatalf("no job %q in:\n%s", tt.wantJob, out.String())
			}
			if j.Variables["MGMT_INITIAL_REVISION"] != tt.wantRevision || j.Variables["WC_INITIAL_REVISION"] != tt.wantRevision {
				t.Errorf("job %q revisions = %q/%q, want %s", tt.wantJob, j.Variables["MGMT_INITIAL_REVISION"], j.Variables["WC_INITIAL_REVISION"], tt.wantRevision)
			}
			// The scenario template's own revision is the one the job sets.
			if rev, _ := tpls.Variable(j.Extends[1], "MGMT_INITIAL_REVISION"); rev != tt.wantRevision {
				t.Errorf("%s sets MGMT_INITIAL_REVISION %q, the job %q", j.Extends[1], rev, tt.wantRevision)
			}
		})
	}
}
