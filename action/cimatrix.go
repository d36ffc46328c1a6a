package action

import (
	"context"
	"fmt"
	"io/fs"
	"time"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/ci"
)

// CIMatrixRequest is what ci-matrix is asked.
type CIMatrixRequest struct {
	Catalog *catalog.Catalog
	// Target is --target as given: main, release-1.6, 1.6, 1.7-pre.
	Target string
	// SylvaCore names the sylva-core checkout given (--sylva-core) in
	// messages; SylvaCorePath is where it is. Empty reads the catalog only.
	SylvaCore, SylvaCorePath string
	// Extends is the job template of the jobs without the checkout's CI
	// templates; Infra, Bootstrap and OS name the jobs with them.
	Extends, Infra, Bootstrap, OS string
	AsOf                          time.Time
	ToolVersion                   string
}

// CIMatrixResult is the matrix, and what the command should say on the
// side (a checkout without CI templates).
type CIMatrixResult struct {
	Matrix   *ci.Matrix
	Warnings []string
}

// Run reads the checkout's release branches and CI templates, when given,
// and computes the migration matrix of the target.
func (r CIMatrixRequest) Run(ctx context.Context) (CIMatrixResult, error) {
	var res CIMatrixResult
	branch, release, err := ci.ParseTarget(r.Target)
	if err != nil {
		return res, fmt.Errorf("--target: %w", err)
	}
	opts := ci.Options{ToolVersion: r.ToolVersion, AsOf: r.AsOf, Source: "catalog " + r.Catalog.Version}
	if dir := r.SylvaCore; dir != "" {
		repo, err := ci.ReadRepo(ctx, r.SylvaCorePath)
		if err != nil {
			return res, fmt.Errorf("--sylva-core %s: %w", dir, err)
		}
		opts.Branches = repo.Names()
		opts.Source = "branches of " + dir
		if branch == "main" && release.IsZero() {
			rel, how, ok := repo.MainRelease()
			if !ok {
				return res, fmt.Errorf("--sylva-core %s: main says no sylva_release and there is no release branch; give --target 1.X-pre", dir)
			}
			release, opts.Source = rel, opts.Source+" ("+how+")"
		}
		if !repo.Has(branch) {
			return res, fmt.Errorf("--target %s: no such branch in %s", branch, dir)
		}
		conv, err := r.conventions(ctx, ci.Checkout{Dir: r.SylvaCorePath}, branch)
		if err != nil {
			return res, fmt.Errorf("--sylva-core %s: %w", dir, err)
		}
		if conv == nil {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s has no %s at %s: the jobs extend %s", dir, ci.CIDir, branch, r.Extends))
		}
		opts.Conventions = conv
	}
	if release.IsZero() {
		// Without a checkout, main carries the newest release of the catalog.
		release = ci.WithPre(r.Catalog.Newest())
	}
	if res.Matrix, err = ci.Compute(r.Catalog, ci.Target{Branch: branch, Release: release}, opts); err != nil {
		return res, fmt.Errorf("--target %s: %w", r.Target, err)
	}
	return res, nil
}

// conventions reads the CI templates of the checkout at branch; nil when
// the branch has no .gitlab/ci.
func (r CIMatrixRequest) conventions(ctx context.Context, repo ci.Checkout, branch string) (*ci.Conventions, error) {
	commit, err := repo.Resolve(ctx, branch)
	if err != nil {
		return nil, err
	}
	fsys := repo.FS(ctx, commit)
	if _, err := fs.Stat(fsys, ci.CIDir); err != nil {
		return nil, nil //nolint:nilerr // no CI files: the generic jobs
	}
	tpls, err := ci.ReadTemplates(fsys)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", branch, err)
	}
	return &ci.Conventions{Templates: tpls, Infra: r.Infra, Bootstrap: r.Bootstrap, OS: r.OS}, nil
}
