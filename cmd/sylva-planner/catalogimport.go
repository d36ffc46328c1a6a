package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"gitlab.com/sylva-projects/sylva-planner/action"
	"gitlab.com/sylva-projects/sylva-planner/cliapp"
)

func catalogImportCommand() *cli.Command {
	o := &catalogImportOptions{}
	return &cli.Command{
		Name:  "import",
		Usage: "read what sylva-core's release tags and branches prove about each release",
		Description: "Reads, at each --ref of a sylva-core git checkout (a tag such as 1.3.10, a branch such as\n" +
			"release-1.3 or main; by default every release tag, release branch and main), the management\n" +
			"cluster's k8s_version_short, the full Kubernetes version per bootstrap provider of\n" +
			"_internal.k8s_version_map, and the version each known unit deploys (Helm chart versions, or\n" +
			"the upstream release a Kustomize unit applies), each with its source REF:PATH#KEY. A value\n" +
			"that needs gotpl interpretation is left out with a note, never guessed. A unit version\n" +
			"becomes a component the gate judges only when the component catalog (--catalog, or the\n" +
			"embedded one) has its Kubernetes range.\n\n" +
			"--update FILE rewrites the imported block of each release entry of that ReleaseCatalog file\n" +
			"(one release per Sylva minor: a release branch wins over tags of its minor, the highest tag\n" +
			"over the others, main is a development line). A ref's release is its tag's or branch's minor;\n" +
			"main's is its sylva_release, else the one after the newest other ref or release tag or branch of\n" +
			"the checkout, or name it: --ref main=1.4. The file is written once, atomically, after the\n" +
			"catalog of its directory loaded with the new file in memory (its other *.yaml files read as\n" +
			"--catalog DIR reads them); if it does not load, the file is not touched. See docs/catalog.md.\n\n" +
			"Examples:\n" +
			"  # what tag 1.3.10 and main prove\n" +
			"  sylva-planner catalog import --sylva-core ../sylva-core --ref 1.3.10 --ref main\n\n" +
			"  # rewrite the imported blocks of a catalog file from every release tag and branch\n" +
			"  sylva-planner catalog import --sylva-core ../sylva-core --update catalog/data/releases.yaml\n\n" +
			"Exit codes:\n" +
			"  0 the refs were read (and --update FILE written)\n" +
			"  1 bad input: no --sylva-core, or not the top of a git checkout, a ref it does not have, an\n" +
			"    --update FILE that may not be replaced or whose catalog would not load (it is not touched)",
		ArgsUsage: " ",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "sylva-core", Usage: "the top `DIR` of a sylva-core git checkout or clone (required; git does not search its parents)", EnvVars: []string{"SYLVA_PLANNER_SYLVA_CORE"}, TakesFile: true, Destination: &o.req.SylvaCore},
			&cli.StringSliceFlag{Name: "ref", Usage: "a tag or branch to read, as `REF` or REF=RELEASE (repeatable; default: every release tag and branch, and main)", Destination: &o.refs},
			&cli.StringFlag{Name: "update", Usage: "rewrite the imported blocks of this ReleaseCatalog `FILE`", TakesFile: true, Destination: &o.req.Update},
			cliapp.OutputFlag(cliapp.FormatTable, cliapp.FormatJSON, cliapp.FormatYAML),
			catalogFlag(),
			cliapp.AsOfFlag(),
		},
		Action: o.run,
	}
}

// catalogImportOptions are the flags of catalog import, bound.
type catalogImportOptions struct {
	req  action.CatalogImportRequest
	refs cli.StringSlice
}

func (o *catalogImportOptions) run(c *cli.Context) error {
	req := o.req
	if req.SylvaCore == "" {
		// Checked here, not by urfave/cli's Required, which prints the
		// whole help: a usage error is one line.
		return cliapp.FlagError(c, errors.New("--sylva-core is required: give a sylva-core git checkout, for example --sylva-core ../sylva-core"))
	}
	e := cliapp.EnvOf(c)
	// Before git runs: git would search the parents of a directory that
	// is no checkout.
	req.SylvaCorePath, req.Refs = e.Path(req.SylvaCore), o.refs.Value()
	if err := checkSylvaCore(c.Context, req.SylvaCore, req.SylvaCorePath); err != nil {
		return err
	}
	if req.Update != "" {
		req.UpdatePath = e.Path(req.Update)
	}
	in, err := commandInputsOf(c)
	if err != nil {
		return err
	}
	req.Catalog, req.Metadata = in.cat, in.md
	rep, err := req.Run(c.Context)
	if err != nil {
		return err
	}
	if req.Update != "" {
		fmt.Fprintf(e.Stderr, "updated %s: %s\n", req.Update, strings.Join(rep.Updated, ", "))
	}
	return cliapp.WriteOutput(c, cliapp.DocumentWriters(rep.WriteTable, rep))
}

// checkSylvaCore refuses a --sylva-core dir (at path) that is not the top
// of a git checkout or a bare clone: git would otherwise search its
// parents and read whatever repository holds it.
func checkSylvaCore(ctx context.Context, dir, path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("--sylva-core %s: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return fmt.Errorf("--sylva-core %s: %w; give a sylva-core git checkout, for example --sylva-core ../sylva-core", dir, err)
	}
	if st, err := os.Stat(real); err != nil || !st.IsDir() {
		return fmt.Errorf("--sylva-core %s is not a directory: give a sylva-core git checkout, for example --sylva-core ../sylva-core", dir)
	}
	git := func(args ...string) (string, error) {
		var stdout, stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, "git", append([]string{"-C", real}, args...)...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			msg, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n")
			return "", fmt.Errorf("%w: %s", err, msg)
		}
		return strings.TrimSpace(stdout.String()), nil
	}
	notRepo := fmt.Errorf("--sylva-core %s is not a git repository: give the top directory of a sylva-core checkout or clone, for example --sylva-core ../sylva-core", dir)
	out, err := git("rev-parse", "--is-bare-repository", "--absolute-git-dir")
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return notRepo
	}
	bare, gitDir, _ := strings.Cut(out, "\n")
	top := gitDir
	if bare != "true" {
		if top, err = git("rev-parse", "--show-toplevel"); err != nil {
			return notRepo
		}
	}
	if top, err = filepath.EvalSymlinks(top); err != nil || top != real {
		return fmt.Errorf("--sylva-core %s is not a git repository but a directory inside %s: give the top directory of the checkout, --sylva-core %s", dir, top, top)
	}
	return nil
}
