package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/internal/sylvacore"
)

// gitlabCILocalEnv makes a missing gitlab-ci-local a failure instead of a
// skip (make test sets it, after hack/install-gitlab-ci-local.sh).
const gitlabCILocalEnv = "SYLVA_PLANNER_GITLAB_CI_LOCAL"

// gitlabCILocalBin is where hack/install-gitlab-ci-local.sh puts the tool,
// from this package's directory.
var gitlabCILocalBin = filepath.Join("..", "..", ".cache", "gitlab-ci-local", "node_modules", ".bin", "gitlab-ci-local")

// gitlabCILocal returns the gitlab-ci-local to run, or skips the test (fails
// it when gitlabCILocalEnv is 1) when it is not installed.
func gitlabCILocal(t *testing.T) string {
	t.Helper()
	required := os.Getenv(gitlabCILocalEnv) == "1"
	bin, err := filepath.Abs(gitlabCILocalBin)
	if err == nil {
		_, err = os.Stat(bin)
	}
	if err != nil {
		if required {
			t.Fatalf("%s=1 but gitlab-ci-local is missing (%v): run hack/install-gitlab-ci-local.sh", gitlabCILocalEnv, err)
		}
		t.Skipf("skipping the check of ci-matrix's pipelines by gitlab-ci-local: it is not installed; hack/install-gitlab-ci-local.sh installs it (%s=1 makes this a failure)", gitlabCILocalEnv)
	}
	if testing.Short() && !required {
		t.Skipf("skipping the check of ci-matrix's pipelines by gitlab-ci-local in -short mode (%s=1 runs it)", gitlabCILocalEnv)
	}
	return bin
}

// pipelineFile is the child pipeline's file in the checkout, as the parent
// pipeline of docs/ci.md includes the artifact of ci-matrix.
const pipelineFile = "sylva-planner-migrations.yml"

// TestCIMatrixPipelinesParseInGitLabCILocal writes the ci-matrix pipeline
// of the bundle's main and release-1.3 into a clone of that branch, as
// the child pipeline docs/ci.md describes (the file includes sylva-core's
// own CI files, which the child pipeline reads at the same commit), and
// has gitlab-ci-local read it as GitLab does: includes, extends and
// !reference expanded (--preview), every job with its stage, rules and
// needs (--list-json, the --list of a program). Each generated job must be
// listed, run (not when: never), keep the variables ci-matrix gave it,
// start the deployment pipeline, and need only jobs the pipeline runs. It
// works offline: the clone's origin is sylva-core's URL, which
// gitlab-ci-local only reads, and the files it parses include no other
// project.
func TestCIMatrixPipelinesParseInGitLabCILocal(t *testing.T) {
	bin := gitlabCILocal(t)
	if os.Getenv(sylvacore.EnvDir) != "" {
		t.Skip("needs the bundle's main and release-1.3; SYLVA_CORE_DIR names a single checkout")
	}
	repo := sylvacore.Repo(t)
	for _, branch := range []string{"main", "release-1.3"} {
		t.Run(branch, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			dir := filepath.Join(t.TempDir(), "sylva-core")
			gitRun(t, "", "clone", "--quiet", "--branch", branch, repo, dir)
			gitRun(t, dir, "remote", "set-url", "origin", "https://gitlab.com/sylva-projects/sylva-core.git")

			var out, errb bytes.Buffer
			args := []string{"sylva-planner", "ci-matrix", "--sylva-core", dir, "--target", branch, "-o", "gitlab-ci", "--as-of", scriptToday.Format(time.DateOnly)}
			if code := run(context.Background(), args, &out, &errb, func(string) string { return "" }); code != 0 {
				t.Fatalf("%s: exit %d\n%s", strings.Join(args, " "), code, errb.String())
			}
			generated := generatedJobs(t, out.Bytes())
			if err := os.WriteFile(filepath.Join(dir, pipelineFile), out.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			gitRun(t, dir, "add", pipelineFile)
			gitRun(t, dir, "-c", "user.name=sylva-planner test", "-c", "user.email=test@sylva-planner.invalid", "-c", "commit.gpgsign=false",
				"commit", "--quiet", "-m", "ci-matrix's child pipeline")

			home := t.TempDir() // no user-level variables of gitlab-ci-local
			gcl := func(flag string) []byte {
				t.Helper()
				// GitLab runs the child pipeline with CI_PIPELINE_SOURCE
				// parent_pipeline, which the rules of the files it
				// includes may read.
				cmd := exec.Command(bin, "--file", pipelineFile, "--home", home, "--no-color",
					"--variable", "CI_PIPELINE_SOURCE=parent_pipeline", "--ignore-predefined-vars", "CI_PIPELINE_SOURCE", flag)
				cmd.Dir = dir
				cmd.Env = gitlabCILocalEnviron()
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				if err := cmd.Run(); err != nil {
					t.Fatalf("gitlab-ci-local %s on ci-matrix's pipeline for %s: %v\n%s%s\n--- the pipeline:\n%s", flag, branch, err, stdout.String(), stderr.String(), out.String())
				}
				return stdout.Bytes()
			}

			// --preview: the pipeline as GitLab expands it.
			var preview map[string]json.RawMessage
			if err := yaml.Unmarshal(gcl("--preview"), &preview); err != nil {
				t.Fatalf("gitlab-ci-local --preview printed no YAML map: %v", err)
			}
			for name, want := range generated {
				raw, ok := preview[name]
				if !ok {
					t.Errorf("--preview lacks the job %q", name)
					continue
				}
				var got previewJob
				if err := json.Unmarshal(raw, &got); err != nil {
					t.Fatalf("--preview job %q: %v", name, err)
				}
				for k, v := range want.Variables {
					if got.Variables[k] != v {
						t.Errorf("job %q expanded: variable %s = %q, ci-matrix set %q (a template overrides it)", name, k, got.Variables[k], v)
					}
				}
				if len(got.Trigger.Include) == 0 {
					t.Errorf("job %q expanded starts no deployment pipeline (no trigger: include:)", name)
				}
			}

			// --list-json: every job GitLab would create, with its needs.
			var list []listedJob
			if err := json.Unmarshal(gcl("--list-json"), &list); err != nil {
				t.Fatalf("gitlab-ci-local --list-json: %v", err)
			}
			listed := map[string]listedJob{}
			for _, j := range list {
				listed[j.Name] = j
			}
			for name := range generated {
				j, ok := listed[name]
				if !ok {
					t.Errorf("--list-json lacks the job %q", name)
					continue
				}
				if j.When == "never" {
					t.Errorf("job %q is when: never: the pipeline would not run it", name)
				}
				if len(j.Needs) == 0 {
					t.Errorf("job %q needs nothing: it would not wait for the artifacts it deploys", name)
				}
				for _, n := range j.Needs {
					need, ok := listed[n.Job]
					switch {
					case !ok:
						t.Errorf("job %q needs %q, which the pipeline lacks", name, n.Job)
					case need.When == "never" && !n.Optional:
						t.Errorf("job %q needs %q, which the pipeline does not run (when: never)", name, n.Job)
					}
				}
			}
			t.Logf("%s: %d job(s) generated, %d listed, checked in %s", branch, len(generated), len(list), time.Since(start).Round(time.Millisecond))
		})
	}
}

// generatedJob is what the test reads of a job ci-matrix wrote.
type generatedJob struct {
	Variables map[string]string `json:"variables"`
}

// previewJob is what the test reads of a job gitlab-ci-local --preview
// expanded.
type previewJob struct {
	Variables map[string]string `json:"variables"`
	Trigger   struct {
		Include []json.RawMessage `json:"include"`
	} `json:"trigger"`
}

// listedJob is a job of gitlab-ci-local --list-json.
type listedJob struct {
	Name  string `json:"name"`
	When  string `json:"when"`
	Needs []struct {
		Job      string `json:"job"`
		Optional bool   `json:"optional"`
	} `json:"needs"`
}

// generatedJobs returns the jobs of a ci-matrix pipeline by name (every
// key but include); it fails the test when there is none.
func generatedJobs(t *testing.T, pipeline []byte) map[string]generatedJob {
	t.Helper()
	var doc map[string]json.RawMessage
	if err := yaml.Unmarshal(pipeline, &doc); err != nil {
		t.Fatalf("ci-matrix's pipeline does not parse: %v\n%s", err, pipeline)
	}
	jobs := map[string]generatedJob{}
	for name, raw := range doc {
		if name == "include" {
			continue
		}
		var j generatedJob
		if err := json.Unmarshal(raw, &j); err != nil {
			t.Fatalf("ci-matrix's job %q: %v", name, err)
		}
		jobs[name] = j
	}
	if len(jobs) == 0 {
		t.Fatalf("ci-matrix's pipeline has no job:\n%s", pipeline)
	}
	return jobs
}

// gitlabCILocalEnviron is the test's environment without the GCL_
// variables, which gitlab-ci-local takes as options.
func gitlabCILocalEnviron() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GCL_") {
			env = append(env, kv)
		}
	}
	return env
}

// gitRun runs git in dir ("" for none) and fails the test on an error.
func gitRun(t *testing.T, dir string, args ...string) {
	t.Helper()
	if dir != "" {
		args = append([]string{"-C", dir}, args...)
	}
	if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}
