package ci

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	yamlv3 "go.yaml.in/yaml/v3"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/internal/golden"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
)

var asOf = time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)

func TestParseTarget(t *testing.T) {
	tests := []struct{ in, branch, release string }{
		{"main", "main", ""},
		{"release-1.6", "release-1.6", "1.6"},
		{"1.6", "release-1.6", "1.6"},
		{"1.7-pre", "main", "1.7-pre"},
	}
	for _, tt := range tests {
		b, v, err := ParseTarget(tt.in)
		if err != nil || b != tt.branch || (tt.release != "" && v.String() != tt.release) {
			t.Errorf("ParseTarget(%q) = %q, %v, %v; want %q, %s", tt.in, b, v, err, tt.branch, tt.release)
		}
	}
	// A patch, build metadata or a "v" would be written into the jobs as
	// the release the branch carries (SYLVA_PLANNER_TO: 1.6.2).
	for _, bad := range []string{"release-main", "release-1.6.1", "banana", "", "1.6.2", "v1.6", "release-v1.6", "1.7-pre+x", "1.7.0-pre", "release-1.7-pre"} {
		if b, v, err := ParseTarget(bad); err == nil {
			t.Errorf("ParseTarget(%q) = %q, %v; want an error", bad, b, v)
		} else if strings.Contains(err.Error(), bad+`"`) {
			t.Errorf("ParseTarget(%q) error %q repeats the value: the caller names the flag and its value", bad, err)
		}
	}
}

func TestMatrixGoldens(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		target Target
	}{
		{"main-1.7-pre", Target{Branch: "main", Release: semver.MustParse("1.7-pre")}},
		{"release-1.6", Target{Branch: "release-1.6", Release: semver.MustParse("1.6")}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Compute(cat, tt.target, Options{ToolVersion: "test", AsOf: asOf, Source: "catalog"})
			if err != nil {
				t.Fatal(err)
			}
			var ci, js, md bytes.Buffer
			if err := m.WriteGitLabCI(&ci, ".sylva-upgrade-test"); err != nil {
				t.Fatal(err)
			}
			if err := envelope.WriteJSON(&js, m.Document()); err != nil {
				t.Fatal(err)
			}
			if err := m.WriteMarkdown(&md); err != nil {
				t.Fatal(err)
			}
			golden.Assert(t, ci.Bytes(), tt.name+".gitlab-ci.yml")
			golden.Assert(t, js.Bytes(), tt.name+".json")
			golden.Assert(t, md.Bytes(), tt.name+".md")
		})
	}
}

func TestMatrixLeavesOutSourcesWithoutABranch(t *testing.T) {
	cat, _ := catalog.Default()
	m, err := Compute(cat, Target{Branch: "main", Release: semver.MustParse("1.7")}, Options{AsOf: asOf, Branches: map[string]bool{"release-1.6": true, "main": true}})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Scenarios) != 1 || m.Scenarios[0].InitialRevision != "release-1.6" {
		t.Errorf("scenarios = %+v, want only release-1.6", m.Scenarios)
	}
}

// An empty matrix still makes a pipeline (one job) and says why, without
// claiming release branches were checked when none was read.
func TestEmptyMatrixSaysWhyNothingIsTested(t *testing.T) {
	cat, _ := catalog.Default()
	tests := []struct {
		name     string
		target   Target
		branches map[string]bool
		want     string
		notWant  string
	}{
		{
			"a release no release upgrades to",
			Target{Branch: "release-1.0", Release: semver.MustParse("1.0")},
			nil,
			"Sylva 1.0 supports no upgrade source in catalog " + cat.Version + ": nothing to test", "branch",
		},
		{
			"sources without a branch in the checkout",
			Target{Branch: "main", Release: semver.MustParse("1.7-pre")},
			map[string]bool{"main": true},
			"no upgrade source of Sylva 1.7-pre (1.6, 1.5) has a release branch in the checkout: nothing to test", "supports no upgrade source",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Compute(cat, tt.target, Options{AsOf: asOf, Branches: tt.branches})
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Scenarios) != 0 {
				t.Fatalf("scenarios = %+v, want none", m.Scenarios)
			}
			var pipeline, md bytes.Buffer
			if err := m.WriteGitLabCI(&pipeline, ".sylva-upgrade-test"); err != nil {
				t.Fatal(err)
			}
			var doc map[string]struct {
				Script    []string          `yaml:"script"`
				Variables map[string]string `yaml:"variables"`
			}
			if err := yamlv3.Unmarshal(pipeline.Bytes(), &doc); err != nil {
				t.Fatalf("the pipeline does not parse: %v\n%s", err, pipeline.String())
			}
			job, ok := doc["no-migration-to-test"]
			if !ok || len(doc) != 1 || len(job.Script) != 1 || !strings.Contains(job.Script[0], "$SYLVA_PLANNER_REASON") {
				t.Fatalf("pipeline = %+v, want the one job no-migration-to-test echoing its reason", doc)
			}
			if got := job.Variables["SYLVA_PLANNER_REASON"]; got != tt.want {
				t.Errorf("reason = %q, want %q", got, tt.want)
			}
			if err := m.WriteMarkdown(&md); err != nil {
				t.Fatal(err)
			}
			want := strings.ToUpper(tt.want[:1]) + tt.want[1:] + "."
			if !strings.Contains(md.String(), want) || strings.Contains(md.String()+pipeline.String(), tt.notWant) {
				t.Errorf("markdown and pipeline say:\n%s\n%s\nwant %q, not %q", md.String(), pipeline.String(), want, tt.notWant)
			}
		})
	}
}

// gitRepo builds a sylva-core-like repository with the given branches,
// each with its values file.
func gitRepo(t *testing.T, branches map[string]string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is required for this test")
	}
	dir := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "commit.gpgsign=false"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("sylva-core\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run("add", "-A")
	run("commit", "-q", "-m", "initial")
	values := filepath.Join(dir, filepath.FromSlash(ValuesPath))
	if err := os.MkdirAll(filepath.Dir(values), 0o755); err != nil {
		t.Fatal(err)
	}
	// Branches in order, so each release branch forks from the previous state.
	for _, name := range []string{"release-1.4", "release-1.5", "release-1.6", "main"} {
		content, ok := branches[name]
		if !ok {
			continue
		}
		if name != "main" {
			run("checkout", "-q", "-B", name)
		} else {
			run("checkout", "-q", "main")
		}
		if err := os.MkdirAll(filepath.Dir(values), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(values, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		run("add", "-A")
		run("commit", "-q", "-m", name)
	}
	return dir
}

func TestCIMatrixFromASylvaCoreCheckout(t *testing.T) {
	dir := gitRepo(t, map[string]string{
		"release-1.4": "k8s_version_short: \"1.31\"\n",
		"release-1.5": "k8s_version_short: \"1.32\"\n",
		"release-1.6": "sylva_release: \"1.6\"\nk8s_version_short: \"1.33\"\n",
		"main":        "sylva_release: \"1.7-pre\"\nk8s_version_short: \"1.35\"\n_internal:\n  sylva_branch: main\n",
	})
	repo, err := ReadRepo(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, b := range repo.Branches {
		names = append(names, b.Name+"="+b.Release.String())
	}
	if diff := cmp.Diff("main=1.7 release-1.4=1.4 release-1.5=1.5 release-1.6=1.6", strings.Join(names, " ")); diff != "" {
		t.Errorf("branches (-want +got):\n%s", diff)
	}
	rel, how, ok := repo.MainRelease()
	if !ok || rel.String() != "1.7" || how != "sylva_release of main" {
		t.Errorf("MainRelease = %s, %q, %v", rel, how, ok)
	}
	cat, _ := catalog.Default()
	m, err := Compute(cat, Target{Branch: "main", Release: rel}, Options{AsOf: asOf, Branches: repo.Names()})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range m.Scenarios {
		got = append(got, s.InitialRevision)
	}
	if diff := cmp.Diff([]string{"release-1.6", "release-1.5"}, got); diff != "" {
		t.Errorf("scenarios (-want +got):\n%s", diff)
	}
}

func TestMainWithoutSylvaReleaseFollowsTheNewestReleaseBranch(t *testing.T) {
	dir := gitRepo(t, map[string]string{
		"release-1.5": "k8s_version_short: \"1.32\"\n",
		"main":        "_internal:\n  sylva_branch: main\n",
	})
	repo, err := ReadRepo(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	rel, _, ok := repo.MainRelease()
	if !ok || rel.String() != "1.6" {
		t.Errorf("MainRelease = %s, %v; want 1.6", rel, ok)
	}
}

func TestReadRepoRefusesANumericSylvaRelease(t *testing.T) {
	dir := gitRepo(t, map[string]string{"main": "sylva_release: 1.7\n"})
	if _, err := ReadRepo(context.Background(), dir); err == nil || !strings.Contains(err.Error(), "quote it") {
		t.Errorf("ReadRepo error = %v, want one that says to quote sylva_release", err)
	}
}

func TestVerify(t *testing.T) {
	cat, _ := catalog.Default()
	p, err := computePlan(cat, "1.4", "1.6")
	if err != nil {
		t.Fatal(err)
	}
	good := Facts{
		Source: "test", StatusFound: true, StatusRelease: semver.MustParse("1.6"),
		Nodes: []Node{
			{Name: "cp-0", Kubelet: semver.MustParse("v1.33.5"), ControlPlane: true},
			{Name: "md-0", Kubelet: semver.MustParse("v1.33.5")},
		},
		Components: map[string]semver.Version{"longhorn": semver.MustParse("1.9.2")},
	}
	tests := []struct {
		name   string
		change func(*Facts)
		failed []string
	}{
		{"a cluster in the final state passes", func(*Facts) {}, nil},
		{"a pending pass fails the status check", func(f *Facts) { f.StatusPending = true }, []string{"status"}},
		{"the previous release fails the status check", func(f *Facts) { f.StatusRelease = semver.MustParse("1.4") }, []string{"status"}},
		{"no ConfigMap fails the status check", func(f *Facts) { f.StatusFound = false }, []string{"status"}},
		{"a control plane left on the intermediate minor fails", func(f *Facts) { f.Nodes[0].Kubelet = semver.MustParse("v1.32.9") }, []string{"control-plane", "workers"}},
		{"workers that did not roll fail", func(f *Facts) { f.Nodes[1].Kubelet = semver.MustParse("v1.31.8") }, []string{"workers"}},
		{"an old Longhorn fails", func(f *Facts) { f.Components["longhorn"] = semver.MustParse("1.8.1") }, []string{"longhorn"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := good
			f.Nodes = append([]Node(nil), good.Nodes...)
			f.Components = map[string]semver.Version{"longhorn": good.Components["longhorn"]}
			tt.change(&f)
			v := Verify(p, f)
			var failed []string
			for _, r := range v.Results {
				if !r.OK {
					failed = append(failed, r.Check)
				}
			}
			if !cmp.Equal(failed, tt.failed) {
				t.Errorf("Verify failed checks = %v, want %v", failed, tt.failed)
			}
			if v.OK != (len(tt.failed) == 0) {
				t.Errorf("Verify OK = %v", v.OK)
			}
		})
	}
}

func computePlan(cat *catalog.Catalog, from, to string) (*planner.Plan, error) {
	return planner.Compute(planner.Input{Catalog: cat, From: semver.MustParse(from), To: semver.MustParse(to), AsOf: asOf})
}
