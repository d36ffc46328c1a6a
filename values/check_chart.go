package values

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/skew"
)

// Finding codes of CheckChart.
const (
	// CodeChartRenderError: the chart fails to render in a scenario.
	CodeChartRenderError = "chart-render-error"
	// CodeChartDivergence: a rendered object differs from the plan.
	CodeChartDivergence = "chart-divergence"
)

// What CheckChart reads in the rendered objects.
const (
	// chartK8sPath is where the cluster unit's Kubernetes version lands:
	// the values of the sylva-units-values Secret, which the cluster unit's
	// HelmRelease values are taken from.
	chartK8sPath = "Secret sylva-units-values: stringData.values.cluster.k8s_version"
	// chartLonghornPath is the Longhorn HelmRelease, patched into the
	// longhorn unit's Kustomization.
	chartLonghornPath = "Kustomization longhorn: HelmRelease patch spec.chart.spec.version"
	// chartStatusPath is the status ConfigMap the sylva-units-status
	// Kustomization writes.
	chartStatusPath = "Kustomization sylva-units-status: ConfigMap patch data.additional-info"
	// statusKustomizationPath is the sylva-units-status Kustomization's
	// spec.path, which names it whatever its name.
	statusKustomizationPath = "./kustomize-units/sylva-units-status"
)

// ChartCheckInput is what CheckChart simulates.
type ChartCheckInput struct {
	// Plan is the transition to simulate.
	Plan planner.Input
	// Chart is the sylva-units chart of the plan's target release.
	Chart *Chart
	// Files are the deployment's values files (values.yaml is the chart's
	// own default), merged in order before the overlay.
	Files []File
	// Overlay is the helper values file laid over Files; nil means the
	// values Generate gives for Plan.
	Overlay *File
	// Namespace is the release namespace; empty means DefaultNamespace.
	Namespace string
	// SkipSchemaValidation skips the chart's values.schema.json.
	SkipSchemaValidation bool
}

// CheckChart simulates each pass of the plan's last hop on the real chart,
// as helm-controller renders it: the whole chart, with Files and the
// overlay, against the status ConfigMap the plan expects before the pass
// (served to `lookup`); plus a fresh install, a status naming a
// pre-release of the source (X.Y-pre) and one naming a branch (main). In
// each render it compares with the plan: the cluster unit's Kubernetes
// version, the Longhorn HelmRelease chart version (when the longhorn unit
// is deployed) and the status keys in the additional-info the
// sylva-units-status Kustomization writes. MachineDeployment pause is not
// checked: the chart has no value that reaches it (a note says so). Each
// divergence is a finding naming the scenario, the object and the path.
func CheckChart(ctx context.Context, in ChartCheckInput) (*Report, error) {
	if in.Chart == nil {
		return nil, errors.New("check values on a chart: no chart")
	}
	plan, rep, err := planAndReport(in.Plan)
	if err != nil {
		return nil, err
	}
	rep.Chart = in.Chart.Name() + " " + in.Chart.Version()
	files := append([]File(nil), in.Files...)
	for _, f := range in.Files {
		rep.Values = append(rep.Values, f.Name)
	}
	if in.Overlay != nil {
		files = append(files, *in.Overlay)
		rep.Values = append(rep.Values, in.Overlay.Name)
	} else {
		g, err := Generate(in.Plan)
		if err != nil {
			return nil, fmt.Errorf("check values: %w", err)
		}
		var b strings.Builder
		if err := g.WriteYAML(&b); err != nil {
			return nil, err
		}
		files = append(files, File{Name: "generated", Data: []byte(b.String())})
		rep.Values = append(rep.Values, "generated")
	}
	c := chartChecker{ctx: ctx, in: in, files: files, rep: rep, ns: cmp.Or(in.Namespace, DefaultNamespace)}

	final, err := finalValues(plan, in.Plan.Catalog, in.Plan.To)
	if err != nil {
		return nil, err
	}
	final[KeyTransitionFrom], final[KeyTransitionPass] = "", ""
	c.run("fresh install of "+plan.To.Release, nil, final, false)

	status, err := sourceStatus(plan, in.Plan.From)
	if err != nil {
		return nil, err
	}
	for i, pass := range lastHop(plan) {
		want, err := passValues(pass)
		if err != nil {
			return nil, err
		}
		want[KeyTransitionFrom] = hopSource(plan)
		want[KeyTransitionPass] = fmt.Sprint(pass.HopPass)
		name := fmt.Sprintf("pass %d of %d (%s → %s)", pass.HopPass, pass.HopPasses, hopSource(plan), plan.To.Release)
		c.run(name, status, want, true)
		if i == 0 && status != nil {
			pre := clone(status)
			pre[KeySylvaRelease] = skew.Version{Major: in.Plan.From.Major, Minor: in.Plan.From.Minor}.Short() + "-pre"
			c.run(name+" from a pre-release status", pre, want, true)
			branch := clone(status)
			branch[KeySylvaRelease] = "main"
			c.run(name+" from a status naming a branch", branch, nil, true)
		}
		if status, err = nextStatus(pass, want, nil); err != nil {
			return nil, err
		}
	}
	rep.Notes = append(rep.Notes, "machine_deployments_paused: not checked; the chart has no value that reaches the MachineDeployments' pause (sylva-capi-cluster renders them from the cluster values)")
	if !c.longhornSeen {
		rep.Notes = append(rep.Notes, "longhorn_version: not checked; the longhorn unit is not deployed with these values")
	}
	if rep.Findings == nil {
		rep.Findings = []planner.Finding{}
	}
	return rep, nil
}

type chartChecker struct {
	ctx          context.Context
	in           ChartCheckInput
	files        []File
	ns           string
	rep          *Report
	longhornSeen bool
}

// chartStatusObject is the status ConfigMap with data, its status keys
// also in additional-info, as the sylva-units-status unit writes them.
func chartStatusObject(ns string, data map[string]string) map[string]any {
	obj := statusObject(ns, data)
	info := map[string]any{}
	for _, k := range statusKeys {
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

// run renders the chart in one scenario and compares what it reads with
// want (nil: the render must only succeed).
func (c *chartChecker) run(name string, status, want map[string]string, upgrade bool) {
	src := NewObjects()
	if status != nil {
		src.Add(chartStatusObject(c.ns, status))
	}
	opts := ChartOptions{
		Namespace: c.ns, Source: src, IsUpgrade: upgrade && status != nil,
		SkipSchemaValidation: c.in.SkipSchemaValidation,
	}
	if opts.IsUpgrade {
		opts.Revision = 2
	}
	sc := Scenario{Name: name, Status: status, Expected: want, Got: map[string]string{}}
	m, err := c.in.Chart.Render(c.ctx, c.files, opts)
	if err != nil {
		sc.Errors = append(sc.Errors, err.Error())
		c.rep.Scenarios = append(c.rep.Scenarios, sc)
		subject := name
		var ce *ChartError
		if errors.As(err, &ce) && ce.Path != "" {
			subject += ": " + ce.Path
		}
		c.rep.Findings = append(c.rep.Findings, planner.Finding{
			Code: CodeChartRenderError, Severity: planner.SeverityBlocker, Subject: subject,
			Message:     fmt.Sprintf("the chart does not render in %s: %v", name, err),
			Remediation: "render the same files with `sylva-planner values render --chart` to see the failing value; `values generate` prints helper values for the plan",
		})
		return
	}
	got := readChart(m)
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
			Remediation: fmt.Sprintf("compare with `sylva-planner plan --from %s --to %s`; the helper values must reach this object", c.rep.From, c.rep.To),
		})
	}
	if w := want[KeyK8sVersionShort]; w != "" {
		g, ok := got["cluster.k8s_version"]
		switch v, err := skew.Parse(strings.TrimPrefix(g, "v")); {
		case !ok:
			diverge(chartK8sPath, fmt.Sprintf("the plan sets Kubernetes %s, the chart renders no cluster.k8s_version", w))
		case err != nil || v.Short() != w:
			diverge(chartK8sPath, fmt.Sprintf("the plan sets Kubernetes %s, the chart renders %q", w, g))
		}
	}
	if w := want[KeyLonghornVersion]; w != "" {
		if g, ok := got["longhorn"]; ok && !longhornMatches(g, w) {
			diverge(chartLonghornPath, fmt.Sprintf("the plan sets Longhorn %s, the chart renders chart version %q", w, g))
		}
	}
	info, infoErr := statusInfo(got["additional-info"])
	for _, k := range statusKeys {
		w, ok := want[k]
		if !ok {
			continue
		}
		path := chartStatusPath + "." + k
		switch g, has := info[k]; {
		case infoErr != nil:
			diverge(chartStatusPath, fmt.Sprintf("additional-info is not a YAML map: %v", infoErr))
		case !has && w == "":
		case !has:
			diverge(path, fmt.Sprintf("the plan records %s %q in the status, additional-info has no %s", k, w, k))
		case g != w:
			diverge(path, fmt.Sprintf("the plan records %s %q in the status, additional-info has %q", k, w, g))
		}
		if infoErr != nil {
			break
		}
	}
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
		out[k] = scalarString(v)
	}
	return out, nil
}

// readChart reads, from a whole render, what CheckChart compares:
// "cluster.k8s_version" from the sylva-units-values Secret, "longhorn"
// (the Longhorn HelmRelease chart version, when the unit is deployed) and
// "additional-info" (the status ConfigMap the sylva-units-status
// Kustomization writes).
func readChart(m *Manifests) map[string]string {
	got := map[string]string{}
	for _, o := range m.Objects {
		md, _ := o["metadata"].(map[string]any)
		name, _ := md["name"].(string)
		switch o["kind"] {
		case "Secret":
			if name != valuesSecret {
				continue
			}
			sd, _ := o["stringData"].(map[string]any)
			text, _ := sd["values"].(string)
			var vals map[string]any
			if yaml.Unmarshal([]byte(strings.ReplaceAll(text, "{{", rawShield)), &vals) != nil {
				continue
			}
			if cl, ok := vals["cluster"].(map[string]any); ok {
				if v, ok := cl["k8s_version"]; ok {
					got["cluster.k8s_version"] = scalarString(v)
				}
			}
		case "Kustomization":
			spec, _ := o["spec"].(map[string]any)
			labels, _ := md["labels"].(map[string]any)
			unit, _ := labels["sylva-units.unit"].(string)
			isStatus := spec["path"] == statusKustomizationPath
			if unit != "longhorn" && !isStatus {
				continue
			}
			patches, _ := spec["patches"].([]any)
			for _, p := range patches {
				pm, _ := p.(map[string]any)
				text, _ := pm["patch"].(string)
				var obj map[string]any
				if yaml.Unmarshal([]byte(text), &obj) != nil {
					continue
				}
				switch {
				case unit == "longhorn" && obj["kind"] == "HelmRelease":
					if v, ok := dig(obj, "spec", "chart", "spec", "version"); ok {
						got["longhorn"] = scalarString(v)
					}
				case isStatus && obj["kind"] == "ConfigMap":
					if v, ok := dig(obj, "data", "additional-info"); ok {
						got["additional-info"] = scalarString(v)
					}
				}
			}
		}
	}
	return got
}

func dig(m map[string]any, keys ...string) (any, bool) {
	var cur any = m
	for _, k := range keys {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = mm[k]; !ok {
			return nil, false
		}
	}
	return cur, true
}
