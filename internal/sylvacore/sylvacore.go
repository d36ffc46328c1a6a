package sylvacore

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Environment variables that point the tests at sylva-core.
const (
	// EnvDir names a sylva-core checkout to test instead of the bundle.
	EnvDir = "SYLVA_CORE_DIR"
	// EnvBundle names the bundle file, overriding the search.
	EnvBundle = "SYLVA_CORE_BUNDLE"
)

// BundleRefs are the refs of the bundle every real-chart test covers: three
// release tags, the 1.3 maintenance branch and main (the 1.4 line).
var BundleRefs = []string{"1.0.0", "1.2.1", "1.3.10", "release-1.3", "main"}

// Tree is one sylva-core tree.
type Tree struct {
	// Ref is the bundle ref, or "SYLVA_CORE_DIR" for a checkout.
	Ref string
	// Commit is the commit the tree was taken from ("" for a checkout with
	// no git metadata).
	Commit string
	// Dir is the absolute path of the tree's root.
	Dir string
}

// Chart returns the path of the sylva-units chart in the tree.
func (t Tree) Chart() string { return filepath.Join(t.Dir, "charts", "sylva-units") }

var (
	mu    sync.Mutex
	clone string // the bundle's clone, once made
	trees = map[string]Tree{}
)

// Trees returns the trees to test: the SYLVA_CORE_DIR checkout when it is
// set, otherwise every ref of BundleRefs extracted from the bundle. It skips
// the test with one line when neither exists.
func Trees(t testing.TB) []Tree {
	t.Helper()
	if d := os.Getenv(EnvDir); d != "" {
		abs, err := filepath.Abs(d)
		if err != nil {
			t.Fatalf("%s=%s: %v", EnvDir, d, err)
		}
		if _, err := os.Stat(filepath.Join(abs, "charts", "sylva-units", "Chart.yaml")); err != nil {
			t.Fatalf("%s=%s is not a sylva-core checkout (no charts/sylva-units/Chart.yaml)", EnvDir, d)
		}
		commit, _ := git(abs, "rev-parse", "HEAD")
		return []Tree{{Ref: EnvDir, Commit: commit, Dir: abs}}
	}
	out := make([]Tree, 0, len(BundleRefs))
	for _, r := range BundleRefs {
		out = append(out, At(t, r))
	}
	return out
}

// At returns the tree of one bundle ref, extracting it on first use. With
// SYLVA_CORE_DIR set it returns that checkout whatever the ref. It skips the
// test with one line when there is no sylva-core to read.
func At(t testing.TB, ref string) Tree {
	t.Helper()
	if os.Getenv(EnvDir) != "" {
		return Trees(t)[0]
	}
	repo := Repo(t)
	mu.Lock()
	defer mu.Unlock()
	if tr, ok := trees[ref]; ok {
		return tr
	}
	commit, err := resolve(repo, ref)
	if err != nil {
		t.Fatalf("sylva-core bundle: %v", err)
	}
	dir := filepath.Join(os.TempDir(), "sylva-planner-sylvacore", commit)
	if _, err := os.Stat(filepath.Join(dir, ".complete")); err != nil {
		if err := extract(repo, commit, dir); err != nil {
			t.Fatalf("sylva-core bundle: extract %s: %v", ref, err)
		}
	}
	tr := Tree{Ref: ref, Commit: commit, Dir: dir}
	trees[ref] = tr
	return tr
}

// Repo returns a git clone of the bundle (one per test process), or skips
// the test with one line when the bundle is not found.
func Repo(t testing.TB) string {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	if clone != "" {
		return clone
	}
	bundle := findBundle()
	if bundle == "" {
		t.Skipf("no sylva-core to test against: set %s to a checkout, or put the bundle at ../shared/sylva-core/sylva-core.bundle", EnvDir)
	}
	// The clone is shared by test processes too, keyed by the bundle's
	// content, and made through a temporary sibling renamed into place.
	data, err := os.ReadFile(bundle)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(os.TempDir(), "sylva-planner-sylvacore", fmt.Sprintf("bundle-%x", sha256.Sum256(data)))
	if _, err := os.Stat(filepath.Join(dir, "HEAD")); err != nil {
		if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
			t.Fatal(err)
		}
		tmp, err := os.MkdirTemp(filepath.Dir(dir), "bundle.tmp-")
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = os.RemoveAll(tmp) }()
		if _, err := git("", "clone", "--quiet", "--bare", bundle, tmp); err != nil {
			t.Fatalf("clone %s: %v", bundle, err)
		}
		if err := os.Rename(tmp, dir); err != nil {
			if _, statErr := os.Stat(filepath.Join(dir, "HEAD")); statErr != nil {
				t.Fatalf("clone %s: %v", bundle, err)
			}
		}
	}
	clone = dir
	return clone
}

// resolve turns a tag or branch name of the bundle into a commit.
func resolve(repo, ref string) (string, error) {
	for _, r := range []string{ref, "refs/heads/" + ref, "origin/" + ref, "refs/remotes/origin/" + ref} {
		if c, err := git(repo, "rev-parse", "--verify", "--quiet", r+"^{commit}"); err == nil && c != "" {
			return c, nil
		}
	}
	return "", fmt.Errorf("ref %q not found", ref)
}

// extract writes the tree of commit into dir, through a temporary sibling
// renamed into place so that concurrent test processes never see half a
// tree.
func extract(repo, commit, dir string) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), commit+".tmp-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	archive := exec.Command("git", "-C", repo, "archive", "--format=tar", commit)
	untar := exec.Command("tar", "-x", "-C", tmp)
	pipe, err := archive.StdoutPipe()
	if err != nil {
		return err
	}
	untar.Stdin = pipe
	var stderr bytes.Buffer
	archive.Stderr, untar.Stderr = &stderr, &stderr
	if err := untar.Start(); err != nil {
		return err
	}
	if err := archive.Run(); err != nil {
		return fmt.Errorf("git archive: %w: %s", err, stderr.String())
	}
	if err := untar.Wait(); err != nil {
		return fmt.Errorf("tar: %w: %s", err, stderr.String())
	}
	if err := os.WriteFile(filepath.Join(tmp, ".complete"), []byte(commit+"\n"), 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(filepath.Join(dir, ".complete")); statErr == nil {
			return nil // another process won the race
		}
		return err
	}
	return nil
}

// findBundle looks for shared/sylva-core/sylva-core.bundle in the ancestors
// of the working directory, or takes SYLVA_CORE_BUNDLE.
func findBundle() string {
	if b := os.Getenv(EnvBundle); b != "" {
		if _, err := os.Stat(b); err == nil {
			return b
		}
		return ""
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for d := wd; ; {
		p := filepath.Join(d, "shared", "sylva-core", "sylva-core.bundle")
		if _, err := os.Stat(p); err == nil {
			return p
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

func git(dir string, args ...string) (string, error) {
	if dir != "" {
		args = append([]string{"-C", dir}, args...)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("git", args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(stdout.String()), nil
}

// Before is the last commit of branch committed before date (YYYY-MM-DD),
// a ref At takes: the development chart of that day. The test is skipped
// with one line when the bundle is not found or SYLVA_CORE_DIR names one
// tree.
func Before(t testing.TB, branch, date string) string {
	t.Helper()
	if os.Getenv(EnvDir) != "" {
		t.Skipf("%s names one tree; the dated charts of %s need the bundle", EnvDir, branch)
	}
	repo := Repo(t)
	tip, err := resolve(repo, branch)
	if err != nil {
		t.Fatalf("sylva-core bundle: %v", err)
	}
	c, err := git(repo, "rev-list", "-1", "--before="+date+"T00:00:00Z", tip)
	if err != nil || c == "" {
		t.Fatalf("sylva-core bundle: no commit of %s before %s (%v)", branch, date, err)
	}
	return c
}
