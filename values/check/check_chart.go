package check

import (
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"

	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/values/helmengine"
	"gitlab.com/sylva-projects/sylva-planner/values/overlay"
	"gitlab.com/sylva-projects/sylva-planner/yamldoc"
)

// Finding codes of Chart.
const (
	// CodeChartRenderError: the chart fails to render in a scenario.
	CodeChartRenderError = "chart-render-error"
	// CodeChartDivergence: a rendered object differs from the plan.
	CodeChartDivergence = "chart-divergence"
)

// What Chart reads in the rendered objects.
const (
	// chartK8sPath is where the cluster unit's Kubernetes version lands:
	// the values of the sylva-units-values Secret, which the cluster unit's
	// HelmRelease values are taken from.
	chartK8sPath = "Secret sylva-units-values: stringData.values.cluster.k8s_version"
	// chartClusterK8sPath is the Kubernetes version the cluster unit's
	// Kustomization substitutes into sylva-capi-cluster's values.
	chartClusterK8sPath = "Secret kustomization-unit-substitute-cluster-*: stringData.VALUES_B64.k8s_version"
	// chartLonghornPath is the Longhorn HelmRelease, patched into the
	// longhorn and longhorn-crd units' Kustomizations, as a HelmRelease
	// object or a JSON 6902 list (op replace, path /spec).
	chartLonghornPath = "Kustomization %s: HelmRelease patch spec.chart.spec.version"
	// chartStatusPath is the status ConfigMap the sylva-units-status
	// Kustomization writes.
	chartStatusPath = "Kustomization sylva-units-status: ConfigMap patch data.additional-info"
	// chartWorkersPath is what the MachineDeployments' Kubernetes version
	// follows on a chart that cannot hold them back: the cluster unit's
	// substituted k8s_version.
	chartWorkersPath = "MachineDeployments: Kubernetes version (follows VALUES_B64.k8s_version of the cluster unit)"
	// statusKustomizationPath is the sylva-units-status Kustomization's
	// spec.path, which names it whatever its name.
	statusKustomizationPath = "./kustomize-units/sylva-units-status"
)

// ChartInput is what Chart simulates.
type ChartInput struct {
	// Plan is the transition to simulate.
	Plan planner.Input
	// Chart is the sylva-units chart of the plan's target release.
	Chart *helmengine.Chart
	// Files are the deployment's values files (values.yaml is the chart's
	// own default), merged in order before the overlay.
	Files []helmengine.File
	// Overlay is the helper values file laid over Files; nil means the
	// values overlay.Generate gives for Plan.
	Overlay *helmengine.File
	// Namespace is the release namespace; empty means helmengine.DefaultNamespace.
	Namespace string
	// Selection is how the command was run: the commands the findings
	// suggest repeat its program name and catalog (Suggest).
	Selection envelope.Selection
	// SkipSchemaValidation skips the chart's values.schema.json.
	SkipSchemaValidation bool
	// WholeChart renders every template of the chart in each scenario, as
	// helm-controller does, instead of only what the comparison reads (the
	// values Secret, the sylva-units-status Kustomization, whose loop over
	// the units is restricted to those of chartUnits, and the units of
	// chartUnits); the findings are the same, at several times the cost.
	WholeChart bool
	// Parallel bounds the scenarios rendered at once; 0 means one per CPU.
	Parallel int
	// Progress, when set, is called as each scenario's render starts and
	// as it ends (finished), with the count of renders done; from any
	// goroutine, one call at a time.
	Progress func(done, total int, scenario string, finished bool)
}

// chartUnits are the units whose objects Chart reads.
var chartUnits = []string{"cluster", "longhorn", "longhorn-crd"}

// Chart simulates each pass of the plan's last hop on the real chart,
// as helm-controller renders it, with Files and the overlay, against the
// status ConfigMap the plan expects before the pass (served to `lookup`);
// plus a fresh install, a status naming a pre-release of the last hop's source
// (X.Y-pre) and one naming a branch (main). Each scenario renders what the
// comparison reads (the chart reduced to the units, Input.RenderUnits, with the
// status Kustomizations' loop over the units restricted to the same units;
// the whole chart with
// WholeChart), scenarios in parallel, from the files prepared once. As with
// that reduction, a check the chart makes only on the other units is not
// run.
// In each render it compares with the plan: the Kubernetes version of the
// values Secret and of the cluster unit, the Longhorn chart version of the
// longhorn and longhorn-crd HelmReleases (when deployed), the status keys
// in the additional-info the
// sylva-units-status Kustomization writes and, on a chart that cannot hold
// the MachineDeployments back (the catalog's hold_workers), the workers'
// rollout of each pass (they follow the cluster unit's version); values
// that set machine_deployments_paused for such a chart are value-not-read.
// On a chart that can, the pause is not checked (a note says so). Each
// divergence is a finding naming the scenario, the object and the path.
func Chart(ctx context.Context, in ChartInput) (*Report, error) {
	if in.Chart == nil {
		return nil, errors.New("check values on a chart: no chart")
	}
	plan, rep, err := planAndReport(in.Plan)
	if err != nil {
		return nil, err
	}
	rep.Chart = in.Chart.Name() + " " + in.Chart.Version()
	rep.skipSchema = in.SkipSchemaValidation
	files := append([]helmengine.File(nil), in.Files...)
	for _, f := range in.Files {
		rep.Values = append(rep.Values, f.Name)
	}
	g, err := overlay.Generate(in.Plan)
	if err != nil {
		return nil, fmt.Errorf("check values: %w", err)
	}
	// The chart of another release runs none of the plan (the overlay is
	// inert there): every comparison would be a divergence.
	if got, how := g.ChartRelease(in.Chart.Defaults(), in.Chart.Version()); got != g.To {
		return nil, fmt.Errorf("check values: chart %s is Sylva %s's (told by %s), not the chart of --to %s, where the plan runs; give the charts/sylva-units of Sylva %s", rep.Chart, got, how, g.To, g.To)
	}
	if in.Overlay != nil {
		files = append(files, *in.Overlay)
		rep.Values = append(rep.Values, in.Overlay.Name)
	} else {
		var b strings.Builder
		if err := g.WriteYAML(&b); err != nil {
			return nil, err
		}
		files = append(files, helmengine.File{Name: generatedName, Data: []byte(b.String())})
		rep.Values = append(rep.Values, generatedName)
	}
	c := chartChecker{ctx: ctx, in: in, files: files, rep: rep, ns: cmp.Or(in.Namespace, helmengine.DefaultNamespace)}
	c.input = sync.OnceValues(func() (*helmengine.Input, error) {
		return in.Chart.Input(files, helmengine.ChartOptions{Namespace: c.ns, SkipSchemaValidation: in.SkipSchemaValidation})
	})
	rel, known := in.Plan.Catalog.Release(in.Plan.To.MinorOnly())
	c.holds = known && rel.HoldsWorkers()
	if known && !c.holds {
		set, err := setsTopLevel(files, overlay.KeyMachineDeploymentsPaused)
		if err != nil {
			return nil, fmt.Errorf("check values: %w", err)
		}
		if set {
			rep.Findings = append(rep.Findings, unreadPause(rel))
		}
	}
	f, err := pinnedMinor(in.Files, plan, rel)
	if err != nil {
		return nil, fmt.Errorf("check values: %w", err)
	}
	if f != nil {
		rep.Findings = append(rep.Findings, *f)
	}
	// The chart's scenarios render in parallel: the status before a pass
	// is the one the plan expects, not the previous render's.
	var todo []planScenario
	err = walkScenarios(plan, in.Plan, scenarioOptions{transition: true}, func(s planScenario) (map[string]string, map[string]string) {
		todo = append(todo, s)
		return s.want, nil
	})
	if err != nil {
		return nil, err
	}
	// What every scenario starts from (the values merged and checked
	// against the schema) fails alike in all of them: one finding says so.
	if err := c.prepare(); err != nil {
		c.unprepared(todo, err)
		return c.finish(), nil
	}
	for i, m := range c.renderAll(todo) {
		c.compare(todo[i], m.got, m.err)
	}
	// A chart that cannot hold the workers has no pause to check: they
	// follow the cluster unit's version, compared on each pass.
	if c.holds {
		rep.Notes = append(rep.Notes, "machine_deployments_paused: not checked; the check does not render the MachineDeployments (sylva-capi-cluster renders them from the cluster values)")
	}
	if !c.longhornSeen {
		rep.Notes = append(rep.Notes, "longhorn_version: not checked; the longhorn unit is not deployed with these values")
	}
	return c.finish(), nil
}

// finish is the report, its findings in the order it promises, as values
// check without --chart.
func (c *chartChecker) finish() *Report {
	if c.rep.Findings == nil {
		c.rep.Findings = []planner.Finding{}
	}
	slices.SortStableFunc(c.rep.Findings, planner.CompareFindings)
	return c.rep
}

// prepare prepares what every scenario renders from: the values merged,
// coalesced and checked against the chart's schema, and, when only the
// units are rendered, the chart's unit templates found.
func (c *chartChecker) prepare() error {
	if !c.in.WholeChart {
		if err := c.in.Chart.CanRenderUnits(); err != nil {
			return err
		}
	}
	_, err := c.input()
	return err
}

// unprepared reports the scenarios of todo, none rendered, when what they
// all start from fails: one finding, the error once.
func (c *chartChecker) unprepared(todo []planScenario, err error) {
	for _, s := range todo {
		c.rep.Scenarios = append(c.rep.Scenarios, Scenario{Name: s.name, Status: s.status, Expected: s.want, Got: map[string]string{}, Errors: []string{err.Error()}})
	}
	c.rep.Findings = append(c.rep.Findings, renderError(c.in.Selection, fmt.Sprintf("any of the %d scenarios", len(todo)), "every scenario", err))
}

// renderError is the finding of a chart that does not render in where
// (named subject in the table), with the values path of err when it names
// one.
func renderError(sel envelope.Selection, where, subject string, err error) planner.Finding {
	var ce *helmengine.ChartError
	if errors.As(err, &ce) && ce.Path != "" {
		subject += ": " + ce.Path
	}
	return planner.Finding{
		Code: CodeChartRenderError, Severity: planner.SeverityBlocker, Subject: subject,
		Message:     fmt.Sprintf("the chart does not render in %s: %v", where, err),
		Remediation: "render the same -f files with " + Suggest(sel, "values render") + " to see the failing value; " + Suggest(sel, "values generate") + " prints helper values for the plan",
	}
}

type chartChecker struct {
	ctx          context.Context
	in           ChartInput
	files        []helmengine.File
	ns           string
	rep          *Report
	longhornSeen bool
	// holds is the target release's hold_workers capability: false means
	// the MachineDeployments follow the cluster unit's k8s_version.
	holds bool
	// input is the files prepared once, which every scenario renders a
	// copy of: the scenarios differ only in their release (install or
	// upgrade) and the status their lookup reads.
	input func() (*helmengine.Input, error)
}

// CodeKubernetesPin is the finding of values that pin k8s_version_short to a minor that is
// not the one the plan's last pass sets, or that the target's chart does
// not map: the overlay never moves the cluster past the values' own minor
// (the render keeps it, or fails), so the plan cannot run as planned.
const CodeKubernetesPin = "kubernetes-pin"

// pinnedMinor is a kubernetes-pin finding when files set a plain
// k8s_version_short (the last one wins, as Helm merges them) that is not
// the minor plan ends on, or is outside the window of rel (the target);
// nil when they set none, or the one planned.
func pinnedMinor(files []helmengine.File, plan *planner.Plan, rel *catalog.Release) (*planner.Finding, error) {
	var pin, from string
	for _, f := range files {
		d, err := helmengine.Parse(f.Data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		if v, ok := d[overlay.KeyK8sVersionShort].(string); ok && !helmengine.IsTemplate(v) {
			pin, from = v, f.Name
		}
	}
	hop := overlay.LastHop(plan)
	if pin == "" || len(hop) == 0 || rel == nil {
		return nil, nil
	}
	want := hop[len(hop)-1].Values.K8sVersionShort
	pv, perr := semver.Parse(pin)
	if perr != nil || pv.Short() == want {
		// A pin that is no minor fails the chart's own schema or render,
		// which the scenarios report.
		return nil, nil //nolint:nilerr // see above
	}
	target := rel.Release.Short()
	rerun := fmt.Sprintf("sylva-planner plan --from %s --to %s --cluster workload --kubernetes %s", plan.From.Release, plan.To.Release, plan.Cluster.Kubernetes)
	f := planner.Finding{
		Code: CodeKubernetesPin, Severity: planner.SeverityBlocker, Class: planner.ClassActionable, Subject: from + ": " + overlay.KeyK8sVersionShort,
		Message:     fmt.Sprintf("the values pin k8s_version_short %q and the plan ends the control plane on %s: the overlay never moves a cluster past its values' own minor, so the passes would render %s, not the plan's", pin, want, pin),
		Remediation: fmt.Sprintf("set k8s_version_short: %q in the values for %s, or plan the cluster's own minors (%s, with --kubernetes-to %s) and check again with the same flags", want, target, rerun, pv.Short()),
	}
	if _, ok := rel.KubeVersion(pv); !ok {
		f.Message = fmt.Sprintf("the values pin k8s_version_short %q, which the chart of %s does not map (its window is %s): every render fails", pin, target, windowOf(rel))
		f.Remediation = fmt.Sprintf("step the cluster into the window of %s on the release it runs first, as `%s` lists, then set k8s_version_short: %q in the values for %s", target, rerun, want, target)
	}
	return &f, nil
}

// windowOf is the minors release r maps, "1.29–1.31".
func windowOf(r *catalog.Release) string {
	vs := r.Kubernetes.Versions
	if len(vs) == 0 {
		return "none"
	}
	return vs[0].Minor.Short() + "–" + vs[len(vs)-1].Minor.Short()
}

// setsTopLevel reports whether any of files sets key at the top level.
func setsTopLevel(files []helmengine.File, key string) (bool, error) {
	for _, f := range files {
		d, err := helmengine.Parse(f.Data)
		if err != nil {
			return false, fmt.Errorf("%s: %w", f.Name, err)
		}
		if _, ok := d[key]; ok {
			return true, nil
		}
	}
	return false, nil
}

// chartStatusObject is the status ConfigMap with data, its status keys
// also in additional-info, as the sylva-units-status unit writes them.
func chartStatusObject(ns string, data map[string]string) map[string]any {
	obj := statusObject(ns, data)
	info := map[string]any{}
	for _, k := range overlay.StatusKeys() {
		if v, ok := data[k]; ok {
			info[k] = v
		}
	}
	if len(info) > 0 {
		b, _ := yaml.Marshal(info)
		obj["data"].(map[string]any)["additional-info"] = string(b)
	}
	return obj
}

// rendered is what compare reads of a scenario's render (readChart), read
// as the render ends so that its objects are not kept while the other
// scenarios render.
type rendered struct {
	got map[string]string
	err error
}

// renderAll renders the scenarios, in.Parallel (or one per CPU) at a time,
// and returns their renders in the scenarios' order.
func (c *chartChecker) renderAll(todo []planScenario) []rendered {
	out := make([]rendered, len(todo))
	workers := c.in.Parallel
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var mu sync.Mutex
	done := 0
	progress := func(name string, finished bool) {
		if c.in.Progress == nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if finished {
			done++
		}
		c.in.Progress(done, len(todo), name, finished)
	}
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	for i, sc := range todo {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			progress(sc.name, false)
			m, err := c.render(sc)
			if err == nil {
				out[i].got = readChart(m)
			}
			out[i].err = err
			progress(sc.name, true)
		}()
	}
	wg.Wait()
	return out
}

// render renders the chart in one scenario: against the status it names
// (served to `lookup`), as an upgrade when there is one.
func (c *chartChecker) render(sc planScenario) (*helmengine.Manifests, error) {
	src := helmengine.NewObjects()
	if sc.status != nil {
		src.Add(chartStatusObject(c.ns, sc.status))
	}
	opts := helmengine.ChartOptions{
		Namespace: c.ns, Source: src, IsUpgrade: sc.kind != kindFresh && sc.status != nil,
		SkipSchemaValidation: c.in.SkipSchemaValidation,
	}
	if opts.IsUpgrade {
		opts.Revision = 2
	}
	in, err := c.input()
	if err != nil {
		return nil, err
	}
	if c.in.WholeChart {
		return in.Render(c.ctx, opts)
	}
	return in.RenderUnits(c.ctx, opts, chartUnits...)
}

// compare compares what a scenario's render reads (readChart's got) with
// the plan (want nil: the render must only succeed).
func (c *chartChecker) compare(s planScenario, got map[string]string, err error) {
	name, status, want := s.name, s.status, s.want
	sc := Scenario{Name: name, Status: status, Expected: want, Got: map[string]string{}}
	if err != nil {
		sc.Errors = append(sc.Errors, err.Error())
		c.rep.Scenarios = append(c.rep.Scenarios, sc)
		c.rep.Findings = append(c.rep.Findings, renderError(c.in.Selection, name, name, err))
		return
	}
	sc.Got = got
	c.rep.Scenarios = append(c.rep.Scenarios, sc)
	if _, ok := got["longhorn"]; ok {
		c.longhornSeen = true
	}
	if want == nil {
		return
	}
	diverge := func(path, msg string) {
		c.rep.Findings = append(c.rep.Findings, planner.Finding{
			Code: CodeChartDivergence, Severity: planner.SeverityBlocker, Subject: name + ": " + path,
			Message:     msg,
			Remediation: fmt.Sprintf("compare with %s; the helper values must reach this object", Suggest(c.in.Selection, "plan", "--from", c.rep.From, "--to", c.rep.To)),
		})
	}
	compareKubernetes(want, got, diverge)
	compareLonghorn(want, got, diverge)
	if s.pass != nil && !c.holds {
		c.compareWorkers(s, got, diverge)
	}
	compareStatus(want, got, diverge)
}

// compareKubernetes compares the plan's Kubernetes minor with the
// values Secret's cluster.k8s_version and, when rendered, the cluster
// unit's substituted k8s_version.
func compareKubernetes(want, got map[string]string, diverge func(path, msg string)) {
	w := want[overlay.KeyK8sVersionShort]
	if w == "" {
		return
	}
	g, ok := got["cluster.k8s_version"]
	switch v, err := semver.Parse(strings.TrimPrefix(g, "v")); {
	case !ok:
		diverge(chartK8sPath, fmt.Sprintf("the plan sets Kubernetes %s, the chart renders no cluster.k8s_version", w))
	case err != nil || v.Short() != w:
		diverge(chartK8sPath, fmt.Sprintf("the plan sets Kubernetes %s, the chart renders %q", w, g))
	}
	if g, ok := got["cluster unit k8s_version"]; ok {
		if v, err := semver.Parse(strings.TrimPrefix(g, "v")); err != nil || v.Short() != w {
			diverge(chartClusterK8sPath, fmt.Sprintf("the plan sets Kubernetes %s, the cluster unit substitutes %q", w, g))
		}
	}
}

// compareLonghorn compares the plan's Longhorn version with the chart
// version each rendered Longhorn unit deploys.
func compareLonghorn(want, got map[string]string, diverge func(path, msg string)) {
	w := want[overlay.KeyLonghornVersion]
	if w == "" {
		return
	}
	for _, unit := range []string{"longhorn", "longhorn-crd"} {
		if g, ok := got[unit]; ok && !longhornMatches(g, w) {
			diverge(fmt.Sprintf(chartLonghornPath, unit), fmt.Sprintf("the plan sets Longhorn %s, the %s unit renders chart version %q", w, unit, g))
		}
	}
}

// compareStatus compares what the plan records in the status after the
// pass with the additional-info the sylva-units-status unit writes: once
// for additional-info that is no YAML map, else once per key that
// differs.
func compareStatus(want, got map[string]string, diverge func(path, msg string)) {
	info, infoErr := statusInfo(got["additional-info"])
	for _, k := range overlay.StatusKeys() {
		w, ok := want[k]
		if !ok {
			continue
		}
		if infoErr != nil {
			diverge(chartStatusPath, fmt.Sprintf("additional-info is not a YAML map: %v", infoErr))
			return
		}
		path := chartStatusPath + "." + k
		switch g, has := info[k]; {
		case !has && w == "":
		case !has:
			diverge(path, fmt.Sprintf("the plan records %s %q in the status, additional-info has no %s", k, w, k))
		case g != w:
			diverge(path, fmt.Sprintf("the plan records %s %q in the status, additional-info has %q", k, w, g))
		}
	}
}

// compareWorkers compares, on a chart that cannot hold the
// MachineDeployments back, the workers' Kubernetes minor after the pass
// (the cluster unit's substituted k8s_version, else the values Secret's
// cluster.k8s_version) and whether they roll (that version is not theirs
// before the pass: another minor, or another patch of theirs) with the
// plan's worker change of the pass.
func (c *chartChecker) compareWorkers(s planScenario, got map[string]string, diverge func(path, msg string)) {
	g, ok := got["cluster unit k8s_version"]
	if !ok {
		g, ok = got["cluster.k8s_version"]
	}
	if !ok {
		return
	}
	v, err := semver.Parse(strings.TrimPrefix(g, "v"))
	if err != nil {
		return
	}
	w := s.pass.Workers
	after := v.Short()
	// A new minor, or the same minor at another patch: Cluster API
	// replaces the machines on any change of version.
	rolls := after != w.From || (s.workersVersion != "" && strings.TrimPrefix(g, "v") != strings.TrimPrefix(s.workersVersion, "v"))
	if after == w.To && rolls == w.Rolls {
		return
	}
	move := func(roll bool, to string) string {
		if roll {
			return fmt.Sprintf("roll from %s to %s", w.From, to)
		}
		return "stay on " + w.From
	}
	diverge(chartWorkersPath, fmt.Sprintf("the plan has the workers %s in this pass; the chart cannot hold the MachineDeployments back, so they %s (the cluster unit renders Kubernetes %q)", move(w.Rolls, w.To), move(rolls, after), g))
}

// longhornMatches reports whether a Longhorn chart version (Rancher's
// 105.2.0+up1.8.1, or upstream 1.8.1) is the plan's Longhorn version (a
// full version, or a minor that any patch of it matches).
func longhornMatches(chartVersion, want string) bool {
	v := chartVersion
	if _, up, ok := strings.Cut(v, "+up"); ok {
		v = up
	}
	v = strings.TrimPrefix(v, "v")
	return v == want || strings.HasPrefix(v, want+".")
}

// statusInfo parses additional-info into strings.
func statusInfo(text string) (map[string]string, error) {
	out := map[string]string{}
	if strings.TrimSpace(text) == "" {
		return out, nil
	}
	var m map[string]any
	if err := yaml.Unmarshal([]byte(text), &m); err != nil {
		return nil, err
	}
	for k, v := range m {
		out[k] = overlay.ScalarString(v)
	}
	return out, nil
}

// readChart reads, from a render, what Chart compares:
// "cluster.k8s_version" from the sylva-units-values Secret, "cluster unit
// k8s_version" from the Secret the cluster unit's Kustomization substitutes
// (VALUES_B64), "longhorn" and "longhorn-crd" (the chart version of the
// HelmRelease each unit's Kustomization patches, when the unit is deployed)
// and "additional-info" (the status ConfigMap the sylva-units-status
// Kustomization writes).
func readChart(m *helmengine.Manifests) map[string]string {
	got := map[string]string{}
	for _, o := range m.Objects {
		md, _ := o["metadata"].(map[string]any)
		name, _ := md["name"].(string)
		switch o["kind"] {
		case "Secret":
			sd, _ := o["stringData"].(map[string]any)
			switch {
			case name == helmengine.ValuesSecret:
				text, _ := sd["values"].(string)
				var vals map[string]any
				if yaml.Unmarshal([]byte(strings.ReplaceAll(text, "{{", helmengine.RawShield)), &vals) != nil {
					continue
				}
				if cl, ok := vals["cluster"].(map[string]any); ok {
					if v, ok := cl["k8s_version"]; ok {
						got["cluster.k8s_version"] = overlay.ScalarString(v)
					}
				}
			case strings.HasPrefix(name, "kustomization-unit-substitute-cluster-"):
				b64, _ := sd["VALUES_B64"].(string)
				raw, err := base64.StdEncoding.DecodeString(b64)
				if err != nil {
					continue
				}
				var vals map[string]any
				if yaml.Unmarshal(raw, &vals) == nil && vals["k8s_version"] != nil {
					got["cluster unit k8s_version"] = overlay.ScalarString(vals["k8s_version"])
				}
			}
		case "Kustomization":
			spec, _ := o["spec"].(map[string]any)
			labels, _ := md["labels"].(map[string]any)
			unit, _ := labels["sylva-units.unit"].(string)
			if unit == "" && (name == "longhorn" || name == "longhorn-crd") {
				unit = name
			}
			isStatus := spec["path"] == statusKustomizationPath
			if unit != "longhorn" && unit != "longhorn-crd" && !isStatus {
				continue
			}
			patches, _ := spec["patches"].([]any)
			for _, p := range patches {
				pm, _ := p.(map[string]any)
				text, _ := pm["patch"].(string)
				switch {
				case isStatus:
					var obj map[string]any
					if yaml.Unmarshal([]byte(text), &obj) == nil && obj["kind"] == "ConfigMap" {
						if v, ok := yamldoc.Dig(obj, "data", "additional-info"); ok {
							got["additional-info"] = overlay.ScalarString(v)
						}
					}
				default:
					if v, ok := helmReleaseChartVersion(text); ok {
						got[unit] = v
					}
				}
			}
		}
	}
	return got
}

// helmReleaseChartVersion reads spec.chart.spec.version from a
// Kustomization patch of a HelmRelease in either form the chart writes: a
// strategic-merge HelmRelease object, or a JSON 6902 list whose operations
// add or replace /spec, /spec/chart, /spec/chart/spec or the version itself
// (the last one that sets it wins, as in the patched object).
func helmReleaseChartVersion(patch string) (string, bool) {
	var doc any
	if yaml.Unmarshal([]byte(patch), &doc) != nil {
		return "", false
	}
	switch d := doc.(type) {
	case map[string]any:
		if d["kind"] != "HelmRelease" {
			return "", false
		}
		if v, ok := yamldoc.Dig(d, "spec", "chart", "spec", "version"); ok {
			return overlay.ScalarString(v), true
		}
	case []any:
		var out string
		found := false
		for _, op := range d {
			om, _ := op.(map[string]any)
			if om["op"] != "add" && om["op"] != "replace" {
				continue
			}
			p, _ := om["path"].(string)
			rest, ok := strings.CutPrefix("/spec/chart/spec/version", p)
			if !ok || (rest != "" && !strings.HasPrefix(rest, "/")) {
				continue
			}
			v := om["value"]
			if rest != "" {
				m, ok := v.(map[string]any)
				if !ok {
					continue
				}
				if v, ok = yamldoc.Dig(m, strings.Split(strings.TrimPrefix(rest, "/"), "/")...); !ok {
					continue
				}
			}
			out, found = overlay.ScalarString(v), true
		}
		return out, found
	}
	return "", false
}
