package main

import (
	"errors"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/urfave/cli/v2"

	"gitlab.com/sylva-projects/sylva-planner/action"
	"gitlab.com/sylva-projects/sylva-planner/cliapp"
	"gitlab.com/sylva-projects/sylva-planner/values/helmengine"
	"gitlab.com/sylva-projects/sylva-planner/values/overlay"
)

// valuesFilesFlag is -f/--values, bound to dest.
func valuesFilesFlag(dest *cli.StringSlice) *cli.StringSliceFlag {
	return &cli.StringSliceFlag{Name: "values", Aliases: []string{"f"}, Usage: "values `FILE` (repeatable; merged in order, as helm -f does; - for standard input)", TakesFile: true, Destination: dest}
}

// valuesNamespaceFlag is -n of values render and check.
func valuesNamespaceFlag() *cli.StringFlag {
	return cliapp.NamespaceFlag("release `NAMESPACE` (.Release.Namespace, where the status ConfigMap lives)", helmengine.DefaultNamespace)
}

// valuesGenerateOptions are the flags of values generate, bound.
type valuesGenerateOptions struct {
	req                  action.ValuesGenerateRequest
	kustomize, namespace string
	force                bool
}

// valuesRenderOptions are the flags of values render, bound.
type valuesRenderOptions struct {
	req                    action.ValuesRenderRequest
	values, allow, objects cli.StringSlice
	status                 string
	conn                   cliapp.Connection
}

// valuesCheckOptions are the flags of values check, bound.
type valuesCheckOptions struct {
	req     action.ValuesCheckRequest
	values  cli.StringSlice
	overlay string
}

func valuesCommand() *cli.Command {
	gen, render, check := &valuesGenerateOptions{}, &valuesRenderOptions{}, &valuesCheckOptions{}
	return &cli.Command{
		Name:  "values",
		Usage: "generate, render and check the sylva-units helper values that implement a plan",
		Description: "The helper values make the sylva-units chart of --to run the plan's passes: values generate\n" +
			"writes them, values render renders values files as the chart does, values check simulates the\n" +
			"chart across the passes. See docs/values.md.\n\n" +
			"Examples:\n" +
			"  # the helper values of the upgrade from 1.4 to 1.6, as a kustomize Component\n" +
			"  sylva-planner values generate --from 1.4 --to 1.6 --kustomize my-env/transition\n\n" +
			"  # check them against the chart of 1.6\n" +
			"  sylva-planner values check --from 1.4 --to 1.6 --chart charts/sylva-units -f values.yaml\n\n" +
			"Exit codes:\n" +
			"  0 done\n" +
			"  1 bad input (each command's help says which)\n" +
			"  2 values check: a finding at or above --fail-on",
		Subcommands: []*cli.Command{
			{
				Name:  "generate",
				Usage: "print the values overlay that makes the sylva-units chart of --to run the plan",
				Description: "The overlay reads the sylva-units-status ConfigMap once with lookup (in _internal.state,\n" +
					"which the chart interprets first) and sets, per pass, cluster.k8s_version, Longhorn's chart\n" +
					"version (when a pass moves Longhorn) and the status keys the next pass reads\n" +
					"(additional_sylva_units_status_info, written into the ConfigMap's additional-info). It handles\n" +
					"every supported source of --to and a fresh install. The chart has no value that pauses\n" +
					"MachineDeployments; the header says so when the plan holds the workers.\n\n" +
					"--chart checks the overlay against the chart of --to (a directory or an archive): every\n" +
					"Kubernetes minor a pass sets must be in its _internal.k8s_version_map; Longhorn's chart version\n" +
					"of --to is read from it. Without --chart, it comes from the catalog, and a missing one is an\n" +
					"error naming the fix.\n\n" +
					"The overlay is inert in the chart of any other release (told by the chart's sylva_release\n" +
					"value, its version, or for a chart taken from Git its Kubernetes version map): it renders\n" +
					"that chart's own Kubernetes and Longhorn versions and records no status key.\n\n" +
					"--kustomize DIR writes, instead of printing the overlay, a kustomize Component for a\n" +
					"sylva-core environment-values directory: DIR/transition-values.yaml (the overlay) and\n" +
					"DIR/kustomization.yaml, which generates the ConfigMap sylva-units-transition-values in -n\n" +
					"and appends it last to the sylva-units HelmRelease's valuesFrom. List DIR under components:\n" +
					"of the environment's kustomization.yaml and apply as usual. DIR is replaced whole, in one\n" +
					"rename, so that it always holds the old pair or the new one: it must be new, empty, or hold\n" +
					"only those two files, and no part of its path may be a symbolic link. Each file starts with a\n" +
					"comment marking it generated, with the digest of the rest: a file without it (written by hand,\n" +
					"or by an older sylva-planner) or changed since is not replaced, exit 1, unless --force.\n\n" +
					"Examples:\n" +
					"  # the overlay, checked against the chart of --to\n" +
					"  sylva-planner values generate --from 1.4 --to 1.6 --chart sylva-core/charts/sylva-units\n\n" +
					"  # a kustomize Component for the environment-values directory\n" +
					"  sylva-planner values generate --from 1.4 --to 1.6 --kustomize my-env/transition\n\n" +
					"Exit codes:\n" +
					"  0 the overlay was printed, or --kustomize DIR written\n" +
					"  1 bad input: a release the catalog does not cover, a chart that lacks a minor a pass sets, a\n" +
					"    Longhorn chart version the catalog lacks, a --kustomize DIR that may not be replaced; nothing\n" +
					"    is written",
				ArgsUsage: " ",
				Flags: append(planFlags(&gen.req.Releases), cliapp.OutputFlag(cliapp.FormatYAML, cliapp.FormatJSON),
					&cli.StringFlag{Name: "chart", Usage: "check the overlay against the sylva-units chart `DIR` (or .tgz) of --to", TakesFile: true, Destination: &gen.req.Chart},
					&cli.StringFlag{Name: "kustomize", Usage: "write the overlay as a kustomize Component into `DIR` (created if needed, else replaced whole: new, empty, or holding only its two files): the overlay, a ConfigMap generator and a patch appending it last to the sylva-units HelmRelease's valuesFrom", TakesFile: true, Destination: &gen.kustomize},
					bound(cliapp.NamespaceFlag("with --kustomize: the `NAMESPACE` of the ConfigMap it generates, the sylva-units HelmRelease's", helmengine.DefaultNamespace), &gen.namespace),
					&cli.BoolFlag{Name: "force", Usage: "with --kustomize: replace its files even when values generate did not write them or they were changed since (they are refused otherwise)", Destination: &gen.force}),
				Action: gen.run,
			},
			{
				Name:  "render",
				Usage: "render every gotpl string of values files as the sylva-units chart does, with Helm's engine",
				Description: "lookup is served from --status/--object files, or read-only from a cluster with\n" +
					"--kubeconfig/--context, limited to an allow list (default: the sylva-units-status ConfigMap\n" +
					"and the Flux Kustomizations and HelmReleases of the release namespace). A refused lookup\n" +
					"returns an empty result and a warning. A template error names the values path; exit 1.\n\n" +
					"With --chart DIR|TGZ the values are rendered by the chart itself, as helm template does\n" +
					"(the chart's values.yaml under the -f files, its helpers, its schema), and the output is\n" +
					"the values of its sylva-units-values Secret; only the templates that Secret needs are\n" +
					"rendered. A schema or template error names the path and Helm's message; exit 1.\n\n" +
					"Examples:\n" +
					"  # the values, lookup served from the status ConfigMap in a file\n" +
					"  sylva-planner values render -f values.yaml --status sylva-units-status.yaml\n\n" +
					"  # the values as the chart itself renders them\n" +
					"  sylva-planner values render --chart charts/sylva-units -f my-values.yaml\n\n" +
					"Exit codes:\n" +
					"  0 rendered (a refused lookup is a warning)\n" +
					"  1 bad input: a template or schema error (naming the values path), an unreadable file, a\n" +
					"    malformed --allow-lookup, a render beyond its budget",
				ArgsUsage: " ",
				Flags: append(append(append([]cli.Flag{
					valuesFilesFlag(&render.values),
					&cli.StringFlag{Name: "chart", Usage: "render with the sylva-units chart in `DIR` or archive (.tgz), as helm template does", TakesFile: true, Destination: &render.req.Chart},
					&cli.BoolFlag{Name: "skip-schema-validation", Usage: "with --chart: do not check the values against the chart's values.schema.json (as helm template --skip-schema-validation)", Destination: &render.req.SkipSchemaValidation},
					&cli.BoolFlag{Name: "validate", Usage: "with --chart: render every template of the chart, as helm template does, so that the checks the chart makes while rendering the units run too (slow)", Destination: &render.req.ValidateChart},
					&cli.StringFlag{Name: "status", Usage: "the sylva-units-status ConfigMap as a YAML `FILE`", TakesFile: true, Destination: &render.status},
					&cli.StringSliceFlag{Name: "object", Usage: "Kubernetes objects (YAML, also kind: List) served to lookup, `FILE` (repeatable)", TakesFile: true, Destination: &render.objects},
				}, render.conn.LiveFlags("lookups (read-only)")...),
					valuesNamespaceFlag(),
					&cli.StringFlag{Name: "kube-version", Usage: "Kubernetes `VERSION` for .Capabilities.KubeVersion (default: the management minor of --to)", Destination: &render.req.KubeVersion},
					&cli.StringFlag{Name: "to", Usage: "Sylva `RELEASE` whose management Kubernetes minor is the default --kube-version (default: the newest)", Destination: &render.req.To},
					&cli.StringSliceFlag{Name: "allow-lookup", Usage: "also allow lookups of `GROUP/VERSION/KIND[/NAMESPACE/NAME]` (core group: core/v1/Secret; * is the only wildcard, in any segment; an empty segment is an error; repeatable)", Destination: &render.allow},
					cliapp.OutputFlag(cliapp.FormatYAML, cliapp.FormatJSON),
					catalogFlag(),
				), cliapp.RenderFlags()...),
				// The values' gotpl and the chart's templates.
				Action: cliapp.Budgeted(render.run, nil),
			},
			{
				Name:  "check",
				Usage: "simulate the chart across the plan's passes and lint the helper values",
				Description: "Renders the values (-f files, or the generated ones) for a fresh install of --to and before\n" +
					"each pass against the status ConfigMap as it will be, compares with the plan's values, and\n" +
					"lints the templates. Exit 2 on a finding at or above --fail-on (default blocker). Only the passes\n" +
					"the chart of --to runs are simulated: the earlier hops of a multi-hop route are listed under\n" +
					"Not checked, each with its own check.\n\n" +
					"With --chart DIR, renders the sylva-units chart of --to instead, with Helm's engine as helm-controller\n" +
					"would (each scenario only what the comparison reads: the cluster and Longhorn units, the values\n" +
					"Secret and the status Kustomization; scenarios in parallel),\n" +
					"with the -f files (the deployment's values: values.yaml, management.values.yaml, ...) and the\n" +
					"helper values (--overlay FILE, else the generated ones) for a fresh install, before each pass\n" +
					"of the plan against the status ConfigMap it expects (served to lookup), and from a pre-release\n" +
					"and a branch-named status; compares the cluster's Kubernetes version, the Longhorn HelmRelease\n" +
					"chart version and the status Kustomization's additional-info with the plan. Each divergence is a\n" +
					"finding naming the pass, the object and the path.\n\n" +
					"Examples:\n" +
					"  # the generated helper values, across the passes from 1.4 to 1.6\n" +
					"  sylva-planner values check -f values.yaml --from 1.4 --to 1.6\n\n" +
					"  # the chart of --to, with the deployment's values and helper values of its own\n" +
					"  sylva-planner values check --chart charts/sylva-units -f charts/sylva-units/management.values.yaml \\\n" +
					"    --overlay helpers.yaml --from 1.2 --to 1.4 --skip-schema-validation\n\n" +
					"Exit codes:\n" +
					"  0 no finding at or above --fail-on (--fail-on never: always)\n" +
					"  1 bad input\n" +
					"  2 a finding at or above --fail-on (default blocker)",
				ArgsUsage: " ",
				Flags: append(append(planFlags(&check.req.Releases), valuesFilesFlag(&check.values), valuesNamespaceFlag(), cliapp.OutputFlag(cliapp.FormatTable, cliapp.FormatJSON, cliapp.FormatYAML), severityFailOnFlag(),
					&cli.StringFlag{Name: "chart", TakesFile: true, Usage: "render the sylva-units chart in `DIR` (or .tgz) for every pass, as helm-controller does", Destination: &check.req.Chart},
					&cli.StringFlag{Name: "overlay", TakesFile: true, Usage: "with --chart: the helper values `FILE` laid over the -f files (default: the values generate gives for the plan)", Destination: &check.overlay},
					&cli.BoolFlag{Name: "skip-schema-validation", Usage: "with --chart: do not check the values against the chart's values.schema.json", Destination: &check.req.SkipSchemaValidation},
				), cliapp.RenderFlags()...),
				// The helper values' gotpl, or with --chart the chart's templates.
				Action: cliapp.Budgeted(check.run, nil),
			},
		},
	}
}

// completeReleases completes the release flags bound to r of a command
// that plans offline: the catalog, the tool's version and the date, after
// refusing the release flags that do not parse.
func completeReleases(c *cli.Context, r *action.Releases) error {
	r.ToolVersion = version
	var err error
	if r.Catalog, err = loadCatalog(c); err != nil {
		return err
	}
	// The release flags are refused before --as-of, as every command
	// that plans refuses them.
	if err := r.Check(); err != nil {
		return err
	}
	r.AsOf, err = cliapp.AsOfOf(c)
	return err
}

func (o *valuesGenerateOptions) run(c *cli.Context) error {
	dir := o.kustomize
	kustomize := c.IsSet("kustomize")
	switch {
	case kustomize && dir == "":
		return cliapp.FlagError(c, errors.New("--kustomize needs a directory, such as --kustomize my-env/transition"))
	case kustomize && c.IsSet("output"):
		return cliapp.FlagError(c, errors.New("--kustomize writes files; it takes no -o"))
	case !kustomize && o.force:
		return cliapp.FlagError(c, errors.New("--force goes with --kustomize (it replaces the files of its directory); values generate alone writes no file"))
	case !kustomize && cliapp.Typed(c, "namespace"):
		// The overlay reads the status of the namespace Helm installs it
		// in (.Release.Namespace): -n would change nothing.
		return cliapp.FlagError(c, errors.New("-n goes with --kustomize (the namespace of the ConfigMap it generates); the overlay itself reads the status ConfigMap of the release's own namespace"))
	}
	if kustomize {
		// The directory is refused before any work.
		if err := action.CheckKustomizeDir(dir, cliapp.EnvOf(c).Path(dir), o.force); err != nil {
			return err
		}
	}
	req := o.req
	if err := completeReleases(c, &req.Releases); err != nil {
		return err
	}
	if req.Chart != "" {
		req.ChartPath = cliapp.EnvOf(c).Path(req.Chart)
	}
	g, err := req.Run(c.Context)
	if err != nil {
		return err
	}
	if kustomize {
		return o.writeKustomize(c, g, dir)
	}
	return cliapp.WriteOutput(c, cliapp.Writers{cliapp.FormatYAML: g.WriteYAML, cliapp.FormatJSON: g.WriteJSON})
}

// writeKustomize writes the overlay's kustomize Component into dir and
// says on stdout what was written and how to wire it.
func (o *valuesGenerateOptions) writeKustomize(c *cli.Context, g *overlay.Generated, dir string) error {
	res, err := action.Kustomize{Generated: g, Dir: dir, Root: cliapp.EnvOf(c).Path(dir), Namespace: o.namespace, Selection: selectionOf(c), Force: o.force}.Run()
	if err != nil {
		return err
	}
	return res.Write(cliapp.EnvOf(c).Stdout)
}

// readValuesFiles reads the -f files.
func readValuesFiles(c *cli.Context, names cli.StringSlice) ([]helmengine.File, error) {
	return readersOf(cliapp.EnvOf(c)).ValuesFiles("-f", names.Value())
}

func (o *valuesRenderOptions) run(c *cli.Context) error {
	files, err := readValuesFiles(c, o.values)
	if err != nil {
		return err
	}
	req := o.req
	req.Files, req.AllowLookup = files, o.allow.Value()
	if err := req.Validate(); err != nil {
		return err
	}
	if req.Chart == "" && req.KubeVersion == "" {
		// The default --kube-version is the management minor of --to.
		if req.Catalog, err = loadCatalog(c); err != nil {
			return err
		}
	}
	if req.Namespace, err = cliapp.NamespaceOf(c); err != nil {
		return err
	}
	req.Lookup = action.Sources{
		Readers: readersOf(cliapp.EnvOf(c)), File: o.status, Namespace: req.Namespace,
		Live: o.conn.Asked(), Kubeconfig: o.conn.Kubeconfig, Context: o.conn.Context,
	}.Lookup(o.objects.Value())
	if req.Chart != "" {
		req.ChartPath = cliapp.EnvOf(c).Path(req.Chart)
		// The chart's interpretation allocates heavily and briefly: a
		// larger heap between collections costs some memory (still a
		// fraction of helm template's) for less CPU. Not with --validate:
		// rendering every unit holds much more, and at 400 it peaked at
		// twice helm template's memory (1.29 GB against 650 MB on main's
		// upgrade-mgmt-cabpr); at Go's default it takes 590 MB and still
		// less CPU than Helm.
		if !req.ValidateChart {
			defer debug.SetGCPercent(debug.SetGCPercent(400))
		}
		req.Progress = progress(c, "values render --chart")
	}
	res, err := req.Run(c.Context)
	if err != nil {
		return err
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(cliapp.EnvOf(c).Stderr, "sylva-planner: warning: %s\n", w)
	}
	return cliapp.WriteOutput(c, cliapp.Writers{
		cliapp.FormatYAML: func(w io.Writer) error { return helmengine.WriteYAML(w, res.Values) },
		cliapp.FormatJSON: func(w io.Writer) error { return helmengine.WriteJSON(w, res.Values) },
	})
}

func (o *valuesCheckOptions) run(c *cli.Context) error {
	e := cliapp.EnvOf(c)
	req := o.req
	if err := completeReleases(c, &req.Releases); err != nil {
		return err
	}
	req.Selection = selectionOf(c)
	var err error
	if req.Namespace, err = cliapp.NamespaceOf(c); err != nil {
		return err
	}
	if req.Files, err = readValuesFiles(c, o.values); err != nil {
		return err
	}
	if req.Chart == "" && (o.overlay != "" || req.SkipSchemaValidation) {
		return cliapp.FlagError(c, errors.New("--overlay and --skip-schema-validation go with --chart"))
	}
	if req.Chart != "" {
		req.ChartPath = e.Path(req.Chart)
		// The renders allocate heavily and briefly: collecting less often
		// than Go's default saves CPU (measured by make bench-chart: 150
		// costs about a fifth less CPU than 100, 200 a further tenth), and
		// at 150 two scenarios at once peak at about 0.4 of one helm
		// template's memory (200 came within a few MiB of half).
		defer debug.SetGCPercent(debug.SetGCPercent(150))
		req.Progress = progress(c, "values check --chart")
		if name := o.overlay; name != "" {
			overlay, err := readersOf(e).ValuesFiles("--overlay", []string{name})
			if err != nil {
				return err
			}
			req.Overlay = &overlay[0]
		}
	}
	rep, err := req.Run(c.Context)
	if err != nil {
		return err
	}
	table := func(w io.Writer) error { return rep.WriteTableSelected(w, selectionOf(c)) }
	if err := cliapp.WriteOutput(c, cliapp.DocumentWriters(table, rep.Document())); err != nil {
		return err
	}
	return outcomeExit(action.SeverityOutcome(rep.Worst(), failOnOf(c)))
}
