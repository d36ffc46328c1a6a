package action

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"time"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/ci"
	"gitlab.com/sylva-projects/sylva-planner/envelope"
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
	// Given holds the flags among extends, infra, bootstrap and os given
	// on the command line rather than defaulted: one that the checkout
	// makes useless is refused.
	Given map[string]bool
	// Output is the output format asked (-o: gitlab-ci, json, yaml,
	// markdown); OutputTyped says it was typed, not only set in the
	// environment, where it yields to a job flag given. Run says in
	// CIMatrixResult.Output the format to write.
	Output      string
	OutputTyped bool
	AsOf        time.Time
	ToolVersion string
}

// OutputGitLabCI is the output format of CI jobs.
const OutputGitLabCI = "gitlab-ci"

// FlagConflictError is a flag given where it cannot apply: a usage error
// of the command run (cliapp.CommandUsageError).
type FlagConflictError string

func (e FlagConflictError) Error() string { return string(e) }

// UsageMessage is the error's line.
func (e FlagConflictError) UsageMessage(string) string { return string(e) }

// output is the format to write, refusing the flags that shape the
// gitlab-ci jobs (--extends, --infra, --bootstrap, --os) where they cannot
// apply: beside a typed -o json, yaml or markdown, which write no job,
// and --infra, --bootstrap and --os without --sylva-core, whose
// deployment jobs they name (the generic jobs only extend --extends). A
// format set only in the environment yields to a job flag typed: the
// environment holds defaults.
func (r CIMatrixRequest) output() (string, error) {
	applies := func(flags string) string {
		if strings.Contains(flags, " and ") {
			return "apply"
		}
		return "applies"
	}
	format := r.Output
	if typed, flags := r.given("extends", "infra", "bootstrap", "os"); typed != "" && format != OutputGitLabCI {
		if r.OutputTyped {
			return "", FlagConflictError(fmt.Sprintf("%s only %s to the jobs of -o gitlab-ci, and -o %s writes no job; drop %s, or give -o gitlab-ci", typed, applies(flags), format, flags))
		}
		format = OutputGitLabCI
	}
	if r.SylvaCore == "" {
		if typed, flags := r.given("infra", "bootstrap", "os"); typed != "" {
			return "", FlagConflictError(fmt.Sprintf("%s only %s with --sylva-core DIR (the jobs are then named after the checkout's deployment jobs); give --sylva-core, or drop %s (without a checkout each job extends --extends)", typed, applies(flags), flags))
		}
	}
	return format, nil
}

// CIMatrixResult is the matrix, and what the command should say on the
// side (a checkout without CI templates).
type CIMatrixResult struct {
	Matrix   *ci.Matrix
	Warnings []string
	// Output is the format to write (CIMatrixRequest.Output).
	Output string
}

// Run reads the checkout's release branches and CI templates, when given,
// and computes the migration matrix of the target.
func (r CIMatrixRequest) Run(ctx context.Context) (CIMatrixResult, error) {
	var res CIMatrixResult
	var err error
	if res.Output, err = r.output(); err != nil {
		return res, err
	}
	jobs := res.Output == OutputGitLabCI
	branch, release, err := ci.ParseTarget(r.Target)
	if err != nil {
		return res, fmt.Errorf("--target %s: %w", envelope.ShellQuote(r.Target), err)
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
			return res, fmt.Errorf("--target %s: %s has no branch %s; give one of its branches: %s", envelope.ShellQuote(r.Target), dir, branch, strings.Join(slices.Sorted(maps.Keys(repo.Names())), ", "))
		}
		conv, err := r.conventions(ctx, ci.Checkout{Dir: r.SylvaCorePath}, branch)
		if err != nil {
			return res, fmt.Errorf("--sylva-core %s: %w", dir, err)
		}
		if conv == nil {
			if typed, flags := r.given("infra", "bootstrap", "os"); typed != "" {
				return res, fmt.Errorf("%s: %s has no %s at %s, so the jobs are the generic ones (extending %s), named after no infrastructure, bootstrap provider or OS; drop %s", typed, dir, ci.CIDir, branch, r.Extends, flags)
			}
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s has no %s at %s: the jobs extend %s", dir, ci.CIDir, branch, r.Extends))
		} else if jobs {
			if err := r.checkConventions(conv, dir, branch); err != nil {
				return res, err
			}
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

// checkConventions refuses --extends, which the checkout's templates
// replace, and an infrastructure, bootstrap provider or OS its jobs do not
// have.
func (r CIMatrixRequest) checkConventions(conv *ci.Conventions, dir, branch string) error {
	if r.Given["extends"] {
		return fmt.Errorf("--extends %s: %s has %s at %s, whose templates the jobs extend (.%s, the scenario template, .wait-publish-jobs); drop --extends, or choose the infrastructure with --infra", envelope.ShellQuote(r.Extends), dir, ci.CIDir, branch, conv.Infra)
	}
	err := conv.Templates.CheckInfra(conv.Infra)
	if conv.Infra == "" {
		err = errors.New("an empty name names no template")
	} else if err != nil {
		err = fmt.Errorf("%s's %w", branch, err)
	}
	if err != nil {
		if valid := conv.Templates.Infrastructures(); len(valid) > 0 {
			return fmt.Errorf("--infra %s: %w; give one of: %s", envelope.ShellQuote(conv.Infra), err, strings.Join(valid, ", "))
		}
		return fmt.Errorf("--infra %s: %w, and no template of %s at %s can carry an upgrade job", envelope.ShellQuote(conv.Infra), err, ci.CIDir, branch)
	}
	if !slices.Contains(ci.BootstrapProviders(), conv.Bootstrap) {
		return fmt.Errorf("--bootstrap %s: not a bootstrap provider of sylva-core's deployment jobs; give one of: %s (kadm is kubeadm)", envelope.ShellQuote(conv.Bootstrap), strings.Join(ci.BootstrapProviders(), ", "))
	}
	if !slices.Contains(ci.NodeOSes(), conv.OS) {
		return fmt.Errorf("--os %s: not a node OS of sylva-core's deployment jobs; give one of: %s", envelope.ShellQuote(conv.OS), strings.Join(ci.NodeOSes(), ", "))
	}
	return nil
}

// given lists the flags among names that were given, each with its value
// as typed ("--infra capm3"), and names them for a fix ("--infra").
func (r CIMatrixRequest) given(names ...string) (typed, flags string) {
	values := map[string]string{"extends": r.Extends, "infra": r.Infra, "bootstrap": r.Bootstrap, "os": r.OS}
	var t, f []string
	for _, n := range names {
		if r.Given[n] {
			t = append(t, "--"+n+" "+envelope.ShellQuote(values[n]))
			f = append(f, "--"+n)
		}
	}
	return andList(t), andList(f)
}

// andList joins items as "a, b and c".
func andList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
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
