package action

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/fileio"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/status"
	"gitlab.com/sylva-projects/sylva-planner/units"
	"gitlab.com/sylva-projects/sylva-planner/values/check"
	"gitlab.com/sylva-projects/sylva-planner/values/helmengine"
	"gitlab.com/sylva-projects/sylva-planner/values/overlay"
)

// Releases are the release flags of a command that plans (plan and
// report, values generate and check, verify), unparsed, with the catalog
// and the date.
type Releases struct {
	Catalog                     *catalog.Catalog
	From, To, Workers, Provider string
	// ClusterFlags say which cluster of the fleet the plan is for.
	ClusterFlags
	AsOf        time.Time
	ToolVersion string
}

// input is the planner's input of the flags.
func (r Releases) input() (planner.Input, error) {
	in, err := PlannerInput(r.Catalog, r.From, r.To, r.Workers, r.Provider)
	in.ToolVersion, in.AsOf = r.ToolVersion, r.AsOf
	if err != nil {
		return in, err
	}
	return in, r.apply(&in)
}

// Check refuses release and cluster flags that do not parse, naming the
// flag and the fix, as input does.
func (r Releases) Check() error {
	_, err := r.input()
	return err
}

// ValuesGenerateRequest is what values generate is asked.
type ValuesGenerateRequest struct {
	Releases
	// Chart names the sylva-units chart of --to (--chart) in messages, at
	// ChartPath; empty takes Longhorn's chart version from the catalog.
	Chart, ChartPath string
}

// Run plans and generates the helper values of the plan.
func (r ValuesGenerateRequest) Run(context.Context) (*overlay.Generated, error) {
	in, err := r.input()
	if err != nil {
		return nil, err
	}
	var ch *overlay.TargetChart
	if r.Chart != "" {
		loaded, err := loadChart(r.Chart, r.ChartPath, " of --to")
		if err != nil {
			return nil, err
		}
		// The chart as values generate reads it: its name and version,
		// and its default values.
		ch = &overlay.TargetChart{Name: loaded.Name() + " " + loaded.Version(), Values: loaded.Defaults()}
	}
	return overlay.GenerateFor(in, ch)
}

// Kustomize writes the overlay of values generate --kustomize: a kustomize
// Component (overlay.KustomizationFile and overlay.KustomizeValuesFile) for
// the release Namespace, into the directory Dir names (Root is its path),
// created if needed and otherwise replaced whole (CheckKustomizeDir says
// which directories may be). Selection is how the command was run, for the
// command that follows the passes.
type Kustomize struct {
	Generated *overlay.Generated
	Dir, Root string
	Namespace string
	Selection envelope.Selection
	// Force (--force) replaces a file of Dir that values generate did not
	// write, or that was changed since it did (CheckKustomizeDir).
	Force bool
}

// KustomizeResult is what Kustomize wrote.
type KustomizeResult struct {
	// Written are the files written, as paths under Dir.
	Written []string
	Dir, To string
	// Selection names the namespace the overlay was written for.
	Selection envelope.Selection
}

// Write says what was written, how to wire it, and the command that
// follows the passes (status --to of the namespace it was written for),
// its paths absolute: it runs after apply.sh, in sylva-core's directory
// rather than the one values generate ran in.
func (r KustomizeResult) Write(w io.Writer) error {
	fmt.Fprintf(w, "wrote %s\n", strings.Join(r.Written, " and "))
	_, err := fmt.Fprintf(w, "Next: list %s under components: of your environment-values kustomization.yaml, then apply it as usual (sylva-core's apply.sh); follow the passes with: %s\n", filepath.ToSlash(r.Dir), r.Selection.Abs().Command("status", "--to", envelope.ShellQuote(r.To)))
	return err
}

// Run writes the Component (write) and returns what it wrote.
func (k Kustomize) Run() (KustomizeResult, error) {
	written, err := k.write()
	sel := k.Selection
	sel.Namespace = k.Namespace
	return KustomizeResult{Written: written, Dir: k.Dir, To: k.Generated.To, Selection: sel}, err
}

// kustomizeFiles are the files of the Component, in the order they are
// reported.
var kustomizeFiles = []string{overlay.KustomizationFile, overlay.KustomizeValuesFile}

// CheckKustomizeDir refuses, before any work, a --kustomize directory dir
// (at root) that Kustomize could not write: the directory is replaced
// whole, so it must be new (its missing parents are created), empty, or
// hold only the Component's two files, as regular files; no component of
// its path may be a symbolic link; its parent must be writable; and it is
// never the root directory or a path ending in . or .. Unless force, each
// of the two files it holds must be one values generate wrote and nobody
// changed since (overlay.OriginOfKustomize): a file edited by hand is not
// replaced without a word, as kubectl and helm refuse to clobber.
func CheckKustomizeDir(dir, root string, force bool) error {
	if dir == "" {
		return errors.New("--kustomize needs a directory, such as --kustomize my-env/transition")
	}
	if err := fileio.CheckOutputDir(root, kustomizeFiles); err != nil {
		// The error names the path.
		return fmt.Errorf("--kustomize: %w", err)
	}
	if force {
		return nil
	}
	for _, name := range kustomizeFiles {
		data, err := fileio.ReadFile(filepath.Join(root, name), 0)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return fmt.Errorf("--kustomize: read %s to tell whether values generate wrote it: %w; move it away, or pass --force to replace it", filepath.Join(dir, name), err)
		}
		if err := clobbers(filepath.Join(dir, name), overlay.OriginOfKustomize(data)); err != nil {
			return err
		}
	}
	return nil
}

// clobbers refuses to replace the file name, of the given origin, that
// values generate did not write or that was changed since it did.
func clobbers(name string, origin overlay.KustomizeOrigin) error {
	switch origin {
	case overlay.KustomizeUnchanged:
		return nil
	case overlay.KustomizeEdited:
		return fmt.Errorf("--kustomize: %s was changed since values generate wrote it (its content no longer matches the digest on its first line), and would be replaced: carry the change into the plan or a component of your own, or pass --force to replace it", name)
	case overlay.KustomizeForeign:
	}
	return fmt.Errorf("--kustomize: %s was not written by values generate (its first line is not the generated marker), and would be replaced: move it away, or pass --force to replace it", name)
}

// write writes the Component and returns the files written, as paths
// under Dir. Both files are written into a new directory beside Dir, which
// then replaces Dir in one rename (fileio.WriteDir): Dir holds the old pair
// or the new one, never a mix, whenever the command stops.
func (k Kustomize) write() ([]string, error) {
	if k.Namespace == "" {
		return nil, errors.New("--kustomize needs a namespace: -n is empty")
	}
	if len(validation.IsDNS1123Label(k.Namespace)) > 0 {
		// The API server would refuse the ConfigMap at apply time.
		return nil, fmt.Errorf("-n %s is not a namespace name (lower-case letters, digits and -, at most 63, a letter or digit at each end); give the namespace of the sylva-units HelmRelease, such as sylva-system", k.Namespace)
	}
	if err := CheckKustomizeDir(k.Dir, k.Root, k.Force); err != nil {
		return nil, err
	}
	files, err := k.Generated.Kustomize(k.Namespace)
	if err != nil {
		return nil, err
	}
	if err := fileio.WriteDir(k.Root, files, 0o644); err != nil {
		return nil, fmt.Errorf("--kustomize: %w", err)
	}
	written := make([]string, 0, len(kustomizeFiles))
	for _, name := range kustomizeFiles {
		written = append(written, filepath.Join(k.Dir, name))
	}
	return written, nil
}

// ValuesRenderRequest is what values render is asked.
type ValuesRenderRequest struct {
	Catalog *catalog.Catalog
	Files   []helmengine.File
	// Chart names the chart (--chart) at ChartPath; empty renders the
	// values' own gotpl.
	Chart, ChartPath string
	Namespace        string
	// KubeVersion is --kube-version; empty is the management minor of To
	// (else of the newest release) without a chart, Helm's default with
	// one.
	KubeVersion, To string
	// AllowLookup are the --allow-lookup rules, unparsed, added to the
	// default allow list of the namespace; Lookup returns what serves
	// lookup (files or a cluster), once the rules parse.
	AllowLookup []string
	Lookup      func() (helmengine.Source, error)
	// SkipSchemaValidation and ValidateChart (--validate) are the chart's
	// options.
	SkipSchemaValidation, ValidateChart bool
	// Progress, when set, is told what is being done.
	Progress func(string)
}

// ValuesRendered is the values rendered, and the warnings of refused
// lookups.
type ValuesRendered struct {
	Values   map[string]any
	Warnings []string
}

// Validate refuses a request that cannot run (BadRequestError): no values
// file without a chart, the chart's options without one.
func (r ValuesRenderRequest) Validate() error {
	switch {
	case r.Chart == "" && len(r.Files) == 0:
		return badRequest("values render needs at least one -f FILE")
	case r.Chart == "" && (r.SkipSchemaValidation || r.ValidateChart):
		return badRequest("--skip-schema-validation and --validate go with --chart")
	}
	return nil
}

// Run renders the values, with the chart when given.
func (r ValuesRenderRequest) Run(ctx context.Context) (ValuesRendered, error) {
	if err := r.Validate(); err != nil {
		return ValuesRendered{}, err
	}
	if r.Chart != "" {
		return r.runChart(ctx)
	}
	docs := make([]map[string]any, 0, len(r.Files))
	for _, f := range r.Files {
		d, err := helmengine.Parse(f.Data)
		if err != nil {
			return ValuesRendered{}, fmt.Errorf("%s: %w", f.Name, err)
		}
		docs = append(docs, d)
	}
	merged := units.MergeValues(docs...)
	if name := overlayWithoutChart(r.Files, docs, merged); name != "" {
		return ValuesRendered{}, fmt.Errorf("values render: %s is sylva-planner's overlay, which reads the chart's values (_internal.k8s_version_map, the units): render it with the chart, --chart DIR (charts/sylva-units of the release it is for), beside the deployment's -f files", name)
	}
	opts := helmengine.RenderOptions{Namespace: r.Namespace}
	var err error
	if opts.KubeVersion, err = r.kubeVersion(); err != nil {
		return ValuesRendered{}, err
	}
	if opts.Allow, opts.Source, err = r.lookup(); err != nil {
		return ValuesRendered{}, err
	}
	res, err := helmengine.Render(ctx, merged, opts)
	if err != nil {
		return ValuesRendered{}, fmt.Errorf("values render: %w", err)
	}
	return ValuesRendered{Values: res.Values, Warnings: res.Warnings}, nil
}

// overlayWithoutChart names the file of files (parsed as docs) that holds
// sylva-planner's overlay (_internal.state.release_transition) when the
// merged values lack the chart's Kubernetes map it reads: rendered without
// the chart it can only fail deep in a template. Empty otherwise.
func overlayWithoutChart(files []helmengine.File, docs []map[string]any, merged map[string]any) string {
	internal, _ := merged["_internal"].(map[string]any)
	if _, ok := internal["k8s_version_map"]; ok {
		return ""
	}
	for i, d := range docs {
		in, _ := d["_internal"].(map[string]any)
		state, _ := in["state"].(map[string]any)
		if _, ok := state[overlay.StateKey]; ok {
			return files[i].Name
		}
	}
	return ""
}

// runChart is values render --chart: the chart's own interpretation of
// the values, read from its sylva-units-values Secret.
func (r ValuesRenderRequest) runChart(ctx context.Context) (ValuesRendered, error) {
	opts := helmengine.ChartOptions{
		Namespace:            r.Namespace,
		KubeVersion:          r.KubeVersion,
		SkipSchemaValidation: r.SkipSchemaValidation,
		Validate:             r.ValidateChart,
	}
	if opts.KubeVersion != "" && !helmengine.ValidKubeVersion(opts.KubeVersion) {
		return ValuesRendered{}, fmt.Errorf("--kube-version %q is not a Kubernetes version; give one such as 1.33 or v1.33.5", opts.KubeVersion)
	}
	var err error
	if opts.Allow, opts.Source, err = r.lookup(); err != nil {
		return ValuesRendered{}, err
	}
	r.say("rendering %s", r.Chart)
	c, err := loadChart(r.Chart, r.ChartPath, "")
	if err != nil {
		return ValuesRendered{}, err
	}
	res, err := c.Values(ctx, r.Files, opts)
	r.say("rendered")
	if err != nil {
		return ValuesRendered{}, fmt.Errorf("values render --chart %s: %w", r.Chart, err)
	}
	return ValuesRendered{Values: res.Values, Warnings: res.Warnings}, nil
}

func (r ValuesRenderRequest) say(format string, args ...any) {
	if r.Progress != nil {
		r.Progress(fmt.Sprintf(format, args...))
	}
}

// lookup is what lookup may read (the default allow list of the
// namespace and every --allow-lookup) and where it reads it from.
func (r ValuesRenderRequest) lookup() ([]helmengine.AllowRule, helmengine.Source, error) {
	allow := helmengine.DefaultAllowList(r.Namespace)
	for _, s := range r.AllowLookup {
		rule, err := helmengine.ParseAllowRule(s)
		if err != nil {
			return nil, nil, fmt.Errorf("--allow-lookup: %w", err)
		}
		allow = append(allow, rule)
	}
	if r.Lookup == nil {
		return allow, nil, nil
	}
	src, err := r.Lookup()
	return allow, src, err
}

// kubeVersion is --kube-version, or the management minor of --to.
func (r ValuesRenderRequest) kubeVersion() (string, error) {
	if kv := r.KubeVersion; kv != "" {
		if !helmengine.ValidKubeVersion(kv) {
			return "", fmt.Errorf("--kube-version %q is not a Kubernetes version; give one such as 1.33 or v1.33.5", kv)
		}
		return kv, nil
	}
	cat := r.Catalog
	to := cat.Newest()
	if r.To != "" {
		var err error
		if to, err = parseTo(r.To); err != nil {
			return "", err
		}
	}
	rel, ok := cat.Release(to.MinorOnly())
	switch {
	case !ok && cat.IsPastNewest(to):
		return "", cat.RefusePastNewest("--to", to, "values render needs the Kubernetes version it renders for")
	case !ok:
		return "", fmt.Errorf("--to %s: %s", to, cat.Unknown(to))
	}
	return rel.Kubernetes.Management.Short(), nil
}

// ValuesCheckRequest is what values check is asked.
type ValuesCheckRequest struct {
	Releases
	Files     []helmengine.File
	Namespace string
	// Chart names the sylva-units chart of --to (--chart) at ChartPath;
	// empty checks the helper values' gotpl alone.
	Chart, ChartPath string
	// Overlay (--overlay) and SkipSchemaValidation go with Chart.
	Overlay              *helmengine.File
	SkipSchemaValidation bool
	// Progress, when set, is told of each scenario as its render with the
	// chart starts and ends.
	Progress func(string)
	// Selection is how the command was run: the commands the findings
	// suggest repeat it (check.Suggest).
	Selection envelope.Selection
}

// Run simulates the chart across the plan's passes and lints the helper
// values.
func (r ValuesCheckRequest) Run(ctx context.Context) (*check.Report, error) {
	in, err := r.input()
	if err != nil {
		return nil, err
	}
	if r.Chart == "" {
		return check.Values(ctx, check.ValuesInput{Plan: in, Files: r.Files, Namespace: r.Namespace, Selection: r.Selection})
	}
	ch, err := loadChart(r.Chart, r.ChartPath, " of --to")
	if err != nil {
		return nil, err
	}
	var progress func(done, total int, scenario string, finished bool)
	if r.Progress != nil {
		progress = func(done, total int, scenario string, finished bool) {
			if finished {
				r.Progress(fmt.Sprintf("scenario %d of %d rendered: %s", done, total, scenario))
			} else {
				r.Progress("rendering " + scenario)
			}
		}
	}
	return check.Chart(ctx, check.ChartInput{
		Plan: in, Chart: ch, Files: r.Files, Namespace: r.Namespace, SkipSchemaValidation: r.SkipSchemaValidation,
		Overlay: r.Overlay, Progress: progress, Selection: r.Selection,
	})
}

// LookupFiles is the lookup source of the objects in files: the status
// ConfigMap of --status (when given), then each --object file; read reads
// a file given with a flag.
//
// The --status file must hold the sylva-units-status ConfigMap of the
// release namespace ns (as lookup asks for it): otherwise the chart would
// read no status and render a fresh install, the final values, without a
// word.
func LookupFiles(read func(flag, name string) ([]byte, error), status, ns string, objects []string) (helmengine.Source, error) {
	src := helmengine.NewObjects()
	type input struct{ flag, name string }
	var inputs []input
	if status != "" {
		inputs = append(inputs, input{"--status", status})
	}
	for _, name := range objects {
		inputs = append(inputs, input{"--object", name})
	}
	for _, in := range inputs {
		data, err := read(in.flag, in.name)
		if err != nil {
			return nil, err
		}
		objs, err := helmengine.ParseObjects(data)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", in.flag, in.name, err)
		}
		if in.flag == "--status" {
			if err := holdsStatus(objs, ns); err != nil {
				return nil, fmt.Errorf("--status %s: %w", in.name, err)
			}
		}
		src.Add(objs...)
	}
	return src, nil
}

// holdsStatus says why objs, the objects of a --status file, hold no
// sylva-units-status ConfigMap that lookup finds in namespace ns.
func holdsStatus(objs []map[string]any, ns string) error {
	var others []string
	for _, o := range objs {
		kind, _ := o["kind"].(string)
		md, _ := o["metadata"].(map[string]any)
		name, _ := md["name"].(string)
		namespace, _ := md["namespace"].(string)
		switch {
		case kind != "ConfigMap" || name != status.ConfigMapName:
			others = append(others, kind+" "+name)
		case namespace == "":
			return fmt.Errorf("ConfigMap %s has no metadata.namespace, so lookup in %s would not find it; give it as kubectl prints it (kubectl -n %s get cm %s -o yaml)", name, ns, ns, name)
		case namespace != ns:
			return fmt.Errorf("ConfigMap %s is in namespace %s, but the release renders in %s, where lookup would not find it; give -n %s", name, namespace, ns, namespace)
		default:
			return nil
		}
	}
	if len(others) == 0 {
		return fmt.Errorf("no object; give the %s ConfigMap (kubectl get cm %s -o yaml), or leave --status out to render a fresh install", status.ConfigMapName, status.ConfigMapName)
	}
	return fmt.Errorf("no ConfigMap %s (it holds %s); give the status ConfigMap (kubectl get cm %s -o yaml), or leave --status out to render a fresh install", status.ConfigMapName, strings.Join(others, ", "), status.ConfigMapName)
}
