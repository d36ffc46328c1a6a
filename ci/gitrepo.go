package ci

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/semver"
)

// ValuesPath is where sylva-core keeps the sylva-units values.
const ValuesPath = "charts/sylva-units/values.yaml"

// Branch is what one branch of a sylva-core checkout says about itself.
type Branch struct {
	Name string
	// Release is from sylva_release, else from the branch name
	// (release-1.6 → 1.6); zero for main without sylva_release.
	Release semver.Version
	// SylvaBranch is _internal.sylva_branch, when set.
	SylvaBranch string
	// K8sVersionShort is k8s_version_short, when it is a plain value.
	K8sVersionShort string
}

// Repo is a sylva-core checkout's main and release branches.
type Repo struct {
	Branches []Branch
}

// Has reports whether the checkout has a branch named name.
func (r *Repo) Has(name string) bool {
	return slices.ContainsFunc(r.Branches, func(b Branch) bool { return b.Name == name })
}

// Names returns the branch names as a set.
func (r *Repo) Names() map[string]bool {
	out := map[string]bool{}
	for _, b := range r.Branches {
		out[b.Name] = true
	}
	return out
}

// MainRelease is the release main is developing: its sylva_release
// ("1.7-pre" → 1.7), else the release after the newest release branch.
func (r *Repo) MainRelease() (semver.Version, string, bool) {
	var newest semver.Version
	for _, b := range r.Branches {
		if b.Name == "main" && !b.Release.IsZero() {
			return b.Release, "sylva_release of main", true
		}
		if b.Name != "main" && b.Release.Compare(newest) > 0 {
			newest = b.Release
		}
	}
	if newest.IsZero() {
		return semver.Version{}, "", false
	}
	return newest.AddMinor(1), "the release after " + "release-" + newest.Short(), true
}

// ReadRepo runs git in dir to list main and the release-X.Y branches (local
// or remote-tracking) and reads ValuesPath at each.
func ReadRepo(ctx context.Context, dir string) (*Repo, error) {
	out, err := git(ctx, dir, "for-each-ref", "--format=%(refname)", "refs/heads", "refs/remotes")
	if err != nil {
		return nil, err
	}
	refs := map[string]string{} // branch name → ref
	for _, ref := range strings.Fields(out) {
		name := ref
		switch {
		case strings.HasPrefix(ref, "refs/heads/"):
			name = strings.TrimPrefix(ref, "refs/heads/")
		case strings.HasPrefix(ref, "refs/remotes/"):
			_, name, _ = strings.Cut(strings.TrimPrefix(ref, "refs/remotes/"), "/")
			if _, local := refs[name]; local {
				continue
			}
		}
		if name == "main" || isReleaseBranch(name) {
			if _, seen := refs[name]; !seen || strings.HasPrefix(ref, "refs/heads/") {
				refs[name] = ref
			}
		}
	}
	repo := &Repo{}
	names := make([]string, 0, len(refs))
	for n := range refs {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		b := Branch{Name: name}
		if name != "main" {
			b.Release, _ = semver.Parse(strings.TrimPrefix(name, "release-"))
		}
		data, err := git(ctx, dir, "show", refs[name]+":"+ValuesPath)
		if err == nil {
			if err := b.readValues([]byte(data)); err != nil {
				return nil, fmt.Errorf("%s at %s: %w", ValuesPath, name, err)
			}
		}
		repo.Branches = append(repo.Branches, b)
	}
	if len(repo.Branches) == 0 {
		return nil, fmt.Errorf("%s has no main or release-X.Y branch", dir)
	}
	return repo, nil
}

func isReleaseBranch(name string) bool {
	v, err := semver.Parse(strings.TrimPrefix(name, "release-"))
	return strings.HasPrefix(name, "release-") && err == nil && !v.HasPatch && !v.IsPrerelease()
}

func (b *Branch) readValues(data []byte) error {
	var v struct {
		SylvaRelease    any `json:"sylva_release"`
		K8sVersionShort any `json:"k8s_version_short"`
		Internal        struct {
			SylvaBranch string `json:"sylva_branch"`
		} `json:"_internal"`
	}
	if err := yaml.Unmarshal(data, &v); err != nil {
		return err
	}
	b.SylvaBranch = v.Internal.SylvaBranch
	if s, ok := v.SylvaRelease.(string); ok && !strings.Contains(s, "{{") {
		r, err := semver.Parse(s)
		if err != nil {
			return fmt.Errorf("sylva_release: %w", err)
		}
		b.Release = r.MinorOnly()
	} else if v.SylvaRelease != nil {
		if _, isString := v.SylvaRelease.(string); !isString {
			return fmt.Errorf("sylva_release is %v, not a string; quote it", v.SylvaRelease)
		}
	}
	if s, ok := v.K8sVersionShort.(string); ok && !strings.Contains(s, "{{") {
		b.K8sVersionShort = s
	}
	return nil
}

func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}
