package check

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/envelope"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/units"
	"gitlab.com/sylva-projects/sylva-planner/values/helmengine"
	"gitlab.com/sylva-projects/sylva-planner/values/overlay"
	"gitlab.com/sylva-projects/sylva-planner/yamldoc"
)

// ValuesInput is what Values simulates.
type ValuesInput struct {
	// Plan is the transition to simulate; its catalog, options and AsOf are
	// used as given.
	Plan planner.Input
	// Files are the values files, merged in order. None means the values
	// overlay.Generate gives for Plan.
	Files []helmengine.File
	// Namespace is the release namespace; empty means helmengine.DefaultNamespace.
	Namespace string
	// Selection is how the command was run: the commands the findings
	// suggest repeat its program name and catalog (Suggest).
	Selection envelope.Selection
}

// Suggest is the command a finding suggests, quoted as code: command with
// args, with the program name and the selecting flags (the catalog) of
// sel, so that it runs as printed, where the check ran.
func Suggest(sel envelope.Selection, command string, args ...string) string {
	return "`" + sel.Command(command, args...) + "`"
}

// Report is the result of Values and Chart.
type Report struct {
	APIVersion string         `json:"apiVersion"`
	Kind       string         `json:"kind"`
	Metadata   ReportMetadata `json:"metadata"`
	From       string         `json:"from"`
	To         string         `json:"to"`
	// Values names the checked files, or generatedName.
	Values []string `json:"values"`
	// Chart names the chart rendered (name and version) by Chart.
	Chart string `json:"chart,omitempty"`
	// Notes say what Chart could not check, and why.
	Notes     []string          `json:"notes,omitempty"`
	Scenarios []Scenario        `json:"scenarios"`
	Findings  []planner.Finding `json:"findings"`

	// skipSchema is Chart's SkipSchemaValidation, which the values
	// render the table's Next suggests is given too.
	skipSchema bool
}

// ReportMetadata is the header of a report, the one every document has.
type ReportMetadata = envelope.Metadata

// generatedName names, among the values checked, the helper values
// overlay.Generate gives for the plan.
const generatedName = "generated"

// Report kinds.
const (
	ReportKind = "ValuesCheck"
)

// Scenario is one render of the values against a status ConfigMap.
type Scenario struct {
	Name string `json:"name"`
	// Status is the data of the status ConfigMap before the render; nil
	// means there is none (a fresh install).
	Status map[string]string `json:"status"`
	// Expected and Got are the helper values, as strings; Expected is empty
	// for scenarios that only check the render succeeds.
	Expected map[string]string `json:"expected,omitempty"`
	Got      map[string]string `json:"got"`
	Errors   []string          `json:"errors,omitempty"`
}

// Blockers counts the findings of severity blocker.
func (r *Report) Blockers() int { return r.count(planner.SeverityBlocker) }

func (r *Report) count(s planner.Severity) int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == s {
			n++
		}
	}
	return n
}

// Worst returns the highest severity found, or "" with no finding.
func (r *Report) Worst() planner.Severity {
	for _, s := range []planner.Severity{planner.SeverityBlocker, planner.SeverityWarning, planner.SeverityInfo} {
		if r.count(s) > 0 {
			return s
		}
	}
	return ""
}

// Values simulates the sylva-units chart across the plan: a fresh install of
// the target, then each pass of the last hop against the status ConfigMap
// as it will be before it (the source release's status, then the one
// written by the previous pass), plus a source status carrying a
// pre-release version and one carrying a branch name. It compares each
// render with the plan's values and lints the template text.
func Values(ctx context.Context, in ValuesInput) (*Report, error) {
	plan, rep, err := planAndReport(in.Plan)
	if err != nil {
		return nil, err
	}
	var vals map[string]any
	if len(in.Files) == 0 {
		g, err := overlay.Generate(in.Plan)
		if err != nil {
			return nil, fmt.Errorf("check values: %w", err)
		}
		vals = g.Values()
		rep.Values = []string{generatedName}
	} else {
		docs := make([]map[string]any, 0, len(in.Files))
		for _, f := range in.Files {
			d, err := helmengine.Parse(f.Data)
			if err != nil {
				return nil, fmt.Errorf("check values %s: %w", f.Name, err)
			}
			docs = append(docs, d)
			keys, err := lintKeys(f)
			if err != nil {
				return nil, fmt.Errorf("check values: %w", err)
			}
			rep.Findings = append(rep.Findings, keys...)
			rep.Values = append(rep.Values, f.Name)
		}
		vals = units.MergeValues(docs...)
		if p, ok := callsHelper(vals, nil); ok {
			// Without the chart, each such string is a template error:
			// hundreds of findings that say nothing of the plan.
			return nil, fmt.Errorf("check values: %s calls a helper of the sylva-units chart (include), which exists only in the chart: check these values with --chart charts/sylva-units, or give -f only the helper values", strings.Join(p, "."))
		}
	}

	rel, known := in.Plan.Catalog.Release(in.Plan.To.MinorOnly())
	if known {
		if _, set := vals[overlay.KeyMachineDeploymentsPaused]; set && !rel.HoldsWorkers() {
			rep.Findings = append(rep.Findings, unreadPause(rel))
		}
		vals = withVersionMap(vals, rel, in.Plan.Provider)
	}
	c := checker{ctx: ctx, sel: in.Selection, vals: vals, ns: in.Namespace, rep: rep, kube: plan.To.Kubernetes, cat: in.Plan.Catalog}
	if known {
		c.rel = rel
	}
	// Values in the overlay's form (the pass state, or the status keys
	// the chart writes into additional-info) must record the transition
	// too: none on a fresh install.
	overlayForm := c.setsStatusInfo()
	if _, ok := yamldoc.Dig(vals, "_internal", "state", overlay.StateKey); ok {
		overlayForm = true
	}
	if overlayForm {
		c.statusMissing()
	}
	if err := walkScenarios(plan, in.Plan, scenarioOptions{transition: overlayForm}, c.run); err != nil {
		return nil, err
	}
	c.finish(lintTemplates(vals))
	return rep, nil
}

// CodeValueNotRead is the finding code of a helper value the values set
// and the target's chart does not read (machine_deployments_paused on a chart that cannot hold the
// MachineDeployments back, per the catalog's hold_workers).
const CodeValueNotRead = "value-not-read"

// unreadPause is the finding for machine_deployments_paused set for a
// chart that does not read it: it holds nothing back, and the chart's
// schema, closed at the top level, refuses the key.
func unreadPause(rel *catalog.Release) planner.Finding {
	hold := "unknown, assumed absent"
	if c := rel.Capabilities; c != nil && c.HoldWorkers != nil {
		hold = "false, from " + c.HoldWorkers.Source
	}
	return planner.Finding{
		Code: CodeValueNotRead, Severity: planner.SeverityBlocker, Subject: helmengine.ChildPath("values", overlay.KeyMachineDeploymentsPaused),
		Message: fmt.Sprintf("the values set %s, which the %s chart does not read (catalog capability hold_workers: %s): it holds no MachineDeployment back, the workers roll on every pass that changes cluster.k8s_version, and the chart's schema refuses an unknown top-level key",
			overlay.KeyMachineDeploymentsPaused, rel.Release, hold),
		Remediation: "remove " + overlay.KeyMachineDeploymentsPaused + " from the values",
	}
}

// withVersionMap returns vals with the target release's
// _internal.k8s_version_map from the catalog (the minors the chart of the
// release maps, for the plan's bootstrap provider) when vals have none:
// the chart's cluster.k8s_version reads it.
func withVersionMap(vals map[string]any, rel *catalog.Release, p catalog.Provider) map[string]any {
	if _, ok := yamldoc.Dig(vals, "_internal", "k8s_version_map"); ok {
		return vals
	}
	m := map[string]any{}
	for _, kv := range rel.Kubernetes.Versions {
		m[kv.Minor.Short()] = kv.For(p).String()
	}
	return units.MergeValues(vals, map[string]any{"_internal": map[string]any{"k8s_version_map": m}})
}

type checker struct {
	ctx context.Context
	// sel is how the command was run (ValuesInput.Selection).
	sel  envelope.Selection
	vals map[string]any
	ns   string
	kube string
	rep  *Report
	cat  *catalog.Catalog
	// rel is the target release in the catalog (nil when it is not).
	rel *catalog.Release
	// evidence from renders, by finding code
	evidence map[string][]string
	errs     map[string]planner.Finding
	missing  map[string]bool
}

// generate is the values generate command of the plan checked, as a
// finding suggests it (Suggest).
func (c *checker) generate() string {
	return Suggest(c.sel, "values generate", "--from", c.rep.From, "--to", c.rep.To)
}

func (c *checker) note(code, detail string) {
	if c.evidence == nil {
		c.evidence = map[string][]string{}
	}
	c.evidence[code] = append(c.evidence[code], detail)
}

// statusObject is the status ConfigMap with the given data.
func statusObject(ns string, data map[string]string) map[string]any {
	d := make(map[string]any, len(data))
	for k, v := range data {
		d[k] = v
	}
	return map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": helmengine.StatusConfigMap, "namespace": ns},
		"data":     d,
	}
}

// run renders the values against status and records the scenario and its
// findings. It returns the helper values of the render as strings: the
// top-level values, overridden by the fields of
// _internal.state.release_transition and by the entries of
// additional_sylva_units_status_info; and those entries alone (nil when
// the values have no such map).
func (c *checker) run(s planScenario) (map[string]string, map[string]string) {
	name, status, want := s.name, s.status, s.want
	ns := cmp.Or(c.ns, helmengine.DefaultNamespace)
	src := helmengine.NewObjects()
	if status != nil {
		src.Add(statusObject(ns, status))
	}
	rendered, errs := helmengine.RenderPhased(c.ctx, c.vals, helmengine.RenderOptions{Namespace: ns, KubeVersion: c.kube, Source: src})
	got := c.renderedValues(rendered, errs)
	info := c.renderedStatusInfo(rendered, errs)
	for _, k := range overlay.StatusKeys() {
		if v, ok := info[k]; ok {
			got[k] = v
		}
	}
	sc := Scenario{Name: name, Status: status, Expected: want, Got: got}
	sc.Errors = c.noteTemplateErrors(s.kind, name, errs)
	c.rep.Scenarios = append(c.rep.Scenarios, sc)
	c.checkWanted(s, errs, got, info != nil)
	c.checkKubernetes(name, rendered, errs, want, got)
	c.checkLonghorn(name, rendered, errs, want, got)
	return got, info
}

// renderedValues decides what the render gives each top-level value, as a
// string: its rendered text, else (when its render did not fail) the
// value itself unless it is a map; then the fields of
// _internal.state.release_transition over them.
func (c *checker) renderedValues(rendered map[string]string, errs map[string]*helmengine.TemplateError) map[string]string {
	got := map[string]string{}
	for _, k := range sortedKeys(c.vals) {
		path := helmengine.ChildPath("values", k)
		if s, ok := rendered[path]; ok {
			got[k] = s
		} else if _, failed := errs[path]; !failed {
			if _, isMap := c.vals[k].(map[string]any); !isMap {
				got[k] = overlay.ScalarString(c.vals[k])
			}
		}
	}
	if s, ok := rendered["values._internal.state."+overlay.StateKey]; ok {
		var m map[string]any
		if err := json.Unmarshal([]byte(s), &m); err == nil {
			for k, v := range m {
				got[k] = overlay.ScalarString(v)
			}
		}
	}
	return got
}

// renderedStatusInfo decides what the render gives each entry of
// additional_sylva_units_status_info, as a string: its rendered text, else
// (when its render did not fail) the value itself. It is nil when the
// values have no such map.
func (c *checker) renderedStatusInfo(rendered map[string]string, errs map[string]*helmengine.TemplateError) map[string]string {
	m, ok := c.vals[overlay.StatusInfoKey].(map[string]any)
	if !ok {
		return nil
	}
	info := map[string]string{}
	for _, k := range sortedKeys(m) {
		path := helmengine.ChildPath(helmengine.ChildPath("values", overlay.StatusInfoKey), k)
		if s, ok := rendered[path]; ok {
			info[k] = s
		} else if _, failed := errs[path]; !failed {
			info[k] = overlay.ScalarString(m[k])
		}
	}
	return info
}

// noteTemplateErrors decides what each render error of scenario name
// (of the given kind) is: on a branch name, a semantic-version error is
// evidence that the chart reads a branch as a version; any other error is
// a template-error blocker, recorded once per path and reason over all
// scenarios. It returns the errors' messages, by path.
func (c *checker) noteTemplateErrors(kind scenarioKind, name string, errs map[string]*helmengine.TemplateError) []string {
	var msgs []string
	for _, p := range sortedKeys(errs) {
		e := errs[p]
		msgs = append(msgs, e.Error())
		if kind == kindBranch && strings.Contains(strings.ToLower(e.Reason), "semantic version") {
			c.note(CodeSemverBranchName, fmt.Sprintf("%s: %s", name, e.Error()))
			continue
		}
		key := p + "\x00" + e.Reason
		if c.errs == nil {
			c.errs = map[string]planner.Finding{}
		}
		if _, seen := c.errs[key]; !seen {
			c.errs[key] = planner.Finding{
				Code: CodeTemplateError, Severity: planner.SeverityBlocker, Subject: p,
				Message:     scenarioMessage(e, name),
				Remediation: "fix the template; " + Suggest(c.sel, "values render") + " shows the same error",
			}
		}
	}
	return msgs
}

// checkWanted decides, for each helper value the plan wants in scenario
// s, whether the render gives it: a value whose render failed is left to
// its template error, one the values do not set is reported once over all
// scenarios (unsetFinding), one rendered otherwise is a mismatch
// (mismatchFinding). hasInfo says whether the values have
// additional_sylva_units_status_info.
func (c *checker) checkWanted(s planScenario, errs map[string]*helmengine.TemplateError, got map[string]string, hasInfo bool) {
	for _, k := range sortedKeys(s.want) {
		w := s.want[k]
		if _, failed := errs[helmengine.ChildPath("values", k)]; failed {
			continue
		}
		g, ok := got[k]
		switch {
		case ok && g == w, !ok && w == "":
		case !ok:
			// Reported once per key, not once per scenario.
			if c.missing[k] {
				continue
			}
			if c.missing == nil {
				c.missing = map[string]bool{}
			}
			c.missing[k] = true
			c.rep.Findings = append(c.rep.Findings, c.unsetFinding(s.name, k, w))
		default:
			code := c.mismatchCode(s, k, g, hasInfo)
			c.rep.Findings = append(c.rep.Findings, c.mismatchFinding(s.name, code, k, w, g))
		}
	}
}

// unsetFinding is the blocker of helper value k, which the plan sets to w
// in scenario name and the values do not set.
func (c *checker) unsetFinding(name, k, w string) planner.Finding {
	return planner.Finding{
		Code: CodeValuesMismatch, Severity: planner.SeverityBlocker, Subject: helmengine.ChildPath("values", k),
		Message:     fmt.Sprintf("the plan sets %s (%q in %s) but the values do not set it", k, w, name),
		Remediation: fmt.Sprintf("give, as the last -f, the helper values %s prints: they set %s in each pass's state (the chart refuses an unknown top-level key)", c.generate(), k),
	}
}

// mismatchCode decides what a helper value k rendered as g, not as the
// plan wants, means in scenario s: a status key the status ConfigMap would
// record wrong (when the values have additional-info, hasInfo), a fresh
// install taking the transition path (with evidence the chart digs a
// default), or a plain mismatch; a prerelease scenario notes its evidence.
func (c *checker) mismatchCode(s planScenario, k, g string, hasInfo bool) string {
	code := CodeValuesMismatch
	if hasInfo && slices.Contains(overlay.StatusKeys(), k) {
		code = CodeStatusKeyMismatch
	}
	switch s.kind {
	case kindFresh:
		if (k == overlay.KeyTransitionFromN2 || k == overlay.KeyAdditionalReconciliationRequired || k == overlay.KeyMachineDeploymentsPaused) && g == "true" {
			code = CodeFreshInstallTransition
			c.note(CodeDigDefault, s.name)
		}
	case kindPrerelease:
		c.note(CodeSemverPrerelease, s.name)
	case kindPass, kindBranch, kindReleaseBranch:
	}
	return code
}

// mismatchFinding is the blocker of code for helper value k, which
// scenario name renders as g where the plan wants w.
func (c *checker) mismatchFinding(name, code, k, w, g string) planner.Finding {
	f := planner.Finding{
		Code: code, Severity: planner.SeverityBlocker, Subject: name + ": " + k,
		Message: fmt.Sprintf("expected %q, got %q", w, g),
	}
	switch code {
	case CodeStatusKeyMismatch:
		f.Subject = name + ": " + helmengine.ChildPath(helmengine.ChildPath("values", overlay.StatusInfoKey), k)
		f.Message = fmt.Sprintf("the status ConfigMap would record %s %q (additional-info), the plan records %q: the next pass reads it", k, g, w)
		f.Remediation = fmt.Sprintf("set %s.%s as %s does (it reads the pass from _internal.state)", overlay.StatusInfoKey, k, c.generate())
	case CodeFreshInstallTransition:
		f.Message = fmt.Sprintf("a fresh install (no %s ConfigMap) renders %s %q: it takes the transition path and runs an extra pass", helmengine.StatusConfigMap, k, g)
		f.Remediation = "treat a missing status ConfigMap as a fresh install: test the lookup result before reading sylva_release"
	default:
		f.Remediation = fmt.Sprintf("compare with %s; %s prints values that match", Suggest(c.sel, "plan", "--from", c.rep.From, "--to", c.rep.To), c.generate())
	}
	return f
}

// finish adds the lint findings, raising those the renders confirmed to
// blockers, and sorts everything.
func (c *checker) finish(lint []planner.Finding) {
	for _, f := range lint {
		if ev := c.evidence[f.Code]; len(ev) > 0 && f.Severity != planner.SeverityBlocker {
			f.Severity = planner.SeverityBlocker
			f.Message += "; seen in: " + strings.Join(slices.Compact(slices.Sorted(slices.Values(ev))), "; ")
		}
		c.rep.Findings = append(c.rep.Findings, f)
	}
	for _, k := range sortedKeys(c.errs) {
		c.rep.Findings = append(c.rep.Findings, c.errs[k])
	}
	if ev := c.evidence[CodeSemverBranchName]; len(ev) > 0 && !hasCode(lint, CodeSemverBranchName) {
		c.rep.Findings = append(c.rep.Findings, planner.Finding{
			Code: CodeSemverBranchName, Severity: planner.SeverityBlocker, Subject: "values",
			Message:     "a status naming a branch fails the render: " + strings.Join(ev, "; "),
			Remediation: `check the value with regexMatch "^[0-9]+[.][0-9]+" before semverCompare`,
		})
	}
	slices.SortFunc(c.rep.Findings, planner.CompareFindings)
	c.rep.Findings = slices.CompactFunc(c.rep.Findings, func(a, b planner.Finding) bool { return a == b })
	if c.rep.Findings == nil {
		c.rep.Findings = []planner.Finding{}
	}
}

func hasCode(fs []planner.Finding, code string) bool {
	return slices.ContainsFunc(fs, func(f planner.Finding) bool { return f.Code == code })
}

// scenarioMessage names the scenario of an execution error; a parse error
// fails in every scenario.
func scenarioMessage(e *helmengine.TemplateError, scenario string) string {
	if e.Parse {
		return e.Reason
	}
	return fmt.Sprintf("%s (%s)", e.Reason, scenario)
}

// planAndReport computes the plan a check compares with, and the report
// header both checks share, with the notes of the hops before the last,
// which neither simulates (earlierHops).
func planAndReport(in planner.Input) (*planner.Plan, *Report, error) {
	plan, err := planner.Compute(in)
	if err != nil {
		return nil, nil, fmt.Errorf("check values: %w", err)
	}
	return plan, &Report{
		APIVersion: planner.APIVersion, Kind: ReportKind,
		Metadata: envelope.NewMetadata(in.ToolVersion, in.Catalog.Version, in.AsOf),
		From:     in.From.String(), To: in.To.String(),
		Notes: earlierHops(plan),
	}, nil
}

// Finding codes of what the chart reads from the values, which Values
// compares with the plan in each scenario (Chart compares what the
// chart renders from them).
const (
	// CodeKubernetesVersionMismatch: the Kubernetes version the chart
	// reads (cluster.k8s_version, else k8s_version_short through
	// _internal.k8s_version_map, else the chart's own) is not the pass's.
	CodeKubernetesVersionMismatch = "kubernetes-version-mismatch"
	// CodeLonghornVersionMismatch: the Longhorn chart version a Longhorn
	// unit would deploy (its helmrelease_spec.chart.spec.version, else the
	// helm_chart_versions entry that is true, else the chart's own) is not
	// the pass's.
	CodeLonghornVersionMismatch = "longhorn-version-mismatch"
	// CodeStatusKeyMismatch: an entry of additional_sylva_units_status_info
	// would record in the status ConfigMap another value than the plan's.
	CodeStatusKeyMismatch = "status-key-mismatch"
	// CodeStatusKeyMissing: values in the overlay's form do not set a
	// status key in additional_sylva_units_status_info, so the status
	// ConfigMap does not record it for the next pass.
	CodeStatusKeyMissing = "status-key-missing"
)

// setsStatusInfo reports whether the values set
// additional_sylva_units_status_info as a map.
func (c *checker) setsStatusInfo() bool {
	_, ok := c.vals[overlay.StatusInfoKey].(map[string]any)
	return ok
}

// statusMissing reports each status key
// additional_sylva_units_status_info does not set.
func (c *checker) statusMissing() {
	m, _ := c.vals[overlay.StatusInfoKey].(map[string]any)
	for _, k := range overlay.StatusKeys() {
		if _, ok := m[k]; ok {
			continue
		}
		c.rep.Findings = append(c.rep.Findings, planner.Finding{
			Code: CodeStatusKeyMissing, Severity: planner.SeverityBlocker, Subject: valuesPath(overlay.StatusInfoKey, k),
			Message: fmt.Sprintf("the values set no %s.%s: the sylva-units-status ConfigMap does not record %s, which the next pass reads to know where the transition stands",
				overlay.StatusInfoKey, k, k),
			Remediation: fmt.Sprintf("add %s.%s; %s prints it", overlay.StatusInfoKey, k, c.generate()),
		})
	}
}

// valuesPath is the values path of keys ("values.a.b").
func valuesPath(keys ...string) string {
	p := "values"
	for _, k := range keys {
		p = helmengine.ChildPath(p, k)
	}
	return p
}

// renderedAt returns the scalar at keys in the values as a render gives
// it: the rendered text of a gotpl string, else the value as a string.
// set is false when the values have nothing there (or a map); failed is
// true when its render failed (a template-error already names it).
func (c *checker) renderedAt(rendered map[string]string, errs map[string]*helmengine.TemplateError, keys ...string) (v string, set, failed bool) {
	x, ok := yamldoc.Dig(c.vals, keys...)
	if !ok {
		return "", false, false
	}
	p := valuesPath(keys...)
	if _, bad := errs[p]; bad {
		return "", true, true
	}
	if s, ok := rendered[p]; ok {
		return s, true, false
	}
	switch x.(type) {
	case map[string]any, []any:
		return "", false, false
	}
	return overlay.ScalarString(x), true, false
}

// checkKubernetes compares the Kubernetes minor the chart reads with the
// scenario's k8s_version_short: cluster.k8s_version as rendered, else
// k8s_version_short resolved through _internal.k8s_version_map (the
// chart's own cluster.k8s_version reads it), else, when the values set the
// helper value elsewhere (the pass state), the target release's own
// version, which the chart keeps. A top-level k8s_version_short that is
// itself the compared helper value is left to values-mismatch.
func (c *checker) checkKubernetes(scenario string, rendered map[string]string, errs map[string]*helmengine.TemplateError, want, got map[string]string) {
	w := want[overlay.KeyK8sVersionShort]
	if w == "" {
		return
	}
	mismatch := func(subject, msg string) {
		c.rep.Findings = append(c.rep.Findings, planner.Finding{
			Code: CodeKubernetesVersionMismatch, Severity: planner.SeverityBlocker, Subject: scenario + ": " + subject,
			Message: msg,
			Remediation: fmt.Sprintf("set cluster.k8s_version to the pass's version through _internal.k8s_version_map, as %s does; the chart reads cluster.k8s_version, not the helper value",
				c.generate()),
		})
	}
	minorOf := func(s string) string {
		v, err := semver.Parse(strings.TrimPrefix(strings.TrimSpace(s), "v"))
		if err != nil {
			return ""
		}
		return v.Short()
	}
	g, set, failed := c.renderedAt(rendered, errs, "cluster", "k8s_version")
	switch {
	case failed:
	case set:
		if m := minorOf(g); m != w {
			mismatch(valuesPath("cluster", "k8s_version"), fmt.Sprintf("the chart reads cluster.k8s_version %q, the plan sets Kubernetes %s", g, w))
		}
	default:
		short, set, failed := c.renderedAt(rendered, errs, overlay.KeyK8sVersionShort)
		switch {
		case failed:
		case set:
			if got[overlay.KeyK8sVersionShort] == short && short != w {
				return // the helper value itself: values-mismatch reports it
			}
			full, ok := yamldoc.Dig(c.vals, "_internal", "k8s_version_map", short)
			switch {
			case !ok:
				mismatch(valuesPath(overlay.KeyK8sVersionShort), fmt.Sprintf("the chart reads k8s_version_short %q, which _internal.k8s_version_map does not map (the render fails); the plan sets Kubernetes %s", short, w))
			case minorOf(overlay.ScalarString(full)) != w:
				mismatch(valuesPath(overlay.KeyK8sVersionShort), fmt.Sprintf("the chart reads k8s_version_short %q (cluster.k8s_version %q), the plan sets Kubernetes %s", short, overlay.ScalarString(full), w))
			}
		default:
			if _, helper := got[overlay.KeyK8sVersionShort]; !helper || c.rel == nil {
				return
			}
			if own := c.rel.Kubernetes.Management.Short(); own != w {
				mismatch(valuesPath("cluster", "k8s_version"), fmt.Sprintf("the values set neither cluster.k8s_version nor k8s_version_short: the chart keeps its own Kubernetes %s, the plan sets %s", own, w))
			}
		}
	}
}

// longhornUnits are the units that deploy Longhorn's charts, at the same
// chart version.
var longhornUnits = []string{"longhorn", "longhorn-crd"}

// checkLonghorn compares the Longhorn chart version each Longhorn unit
// would deploy with the scenario's longhorn_version: the catalog's chart
// version for it when the catalog has one, else any chart version of that
// Longhorn version. A unit's version is its
// helmrelease_spec.chart.spec.version as rendered, else the one entry of
// its helm_chart_versions that renders true (the chart's rule), else, when
// the values set longhorn_version elsewhere (the pass state), the target
// release's own, which the chart keeps.
func (c *checker) checkLonghorn(scenario string, rendered map[string]string, errs map[string]*helmengine.TemplateError, want, got map[string]string) {
	w := want[overlay.KeyLonghornVersion]
	if w == "" {
		return
	}
	chart := ""
	if v, err := semver.Parse(w); err == nil && c.cat != nil {
		chart, _ = c.cat.ChartVersion("longhorn", v)
	}
	planned := "Longhorn " + w
	if chart != "" {
		planned += " (chart " + chart + " in the catalog)"
	}
	_, helper := got[overlay.KeyLonghornVersion]
	for _, u := range longhornUnits {
		subject, msg := c.longhornUnitMismatch(u, w, chart, planned, helper, rendered, errs)
		if msg == "" {
			continue
		}
		c.rep.Findings = append(c.rep.Findings, planner.Finding{
			Code: CodeLonghornVersionMismatch, Severity: planner.SeverityBlocker, Subject: scenario + ": " + subject,
			Message: msg,
			Remediation: fmt.Sprintf("set units.%s.helmrelease_spec.chart.spec.version to the pass's Longhorn chart version, as %s does for both Longhorn units",
				u, c.generate()),
		})
	}
}

// longhornUnitMismatch says where and how the Longhorn unit u deploys a
// chart version other than the plan's Longhorn w (chart, its catalog
// chart version, or ""; planned, how the plan's is written); "" when it
// deploys the plan's, or when what it deploys is unknown (a template
// that failed, no version set and no helper value). helper is whether
// the values set longhorn_version elsewhere.
func (c *checker) longhornUnitMismatch(u, w, chart, planned string, helper bool, rendered map[string]string, errs map[string]*helmengine.TemplateError) (string, string) {
	spec := overlay.LonghornVersionPath(u)
	subject := valuesPath(spec...)
	g, set, failed := c.renderedAt(rendered, errs, spec...)
	if failed {
		return "", ""
	}
	if !set || g == "" {
		on, present, failed := c.selectedChartVersions(u, rendered, errs)
		switch {
		case failed:
			return "", ""
		case present && len(on) != 1:
			return valuesPath("units", u, "helm_chart_versions"), fmt.Sprintf("helm_chart_versions of the %s unit selects %d chart versions (%s), the chart needs exactly one; the plan sets %s", u, len(on), strings.Join(orNone(on), ", "), planned)
		case present:
			subject, g, set = valuesPath("units", u, "helm_chart_versions"), on[0], true
		default:
			set = false
		}
	}
	if !set {
		if !helper || c.rel == nil {
			return "", ""
		}
		if own, ok := c.rel.Component("longhorn"); ok && own.Version.String() != w && !longhornMatches(own.Version.String(), w) {
			return subject, fmt.Sprintf("the values set no Longhorn chart version for the %s unit: the chart keeps its own Longhorn %s, the plan sets %s", u, own.Version, planned)
		}
		return "", ""
	}
	if (chart != "" && g == chart) || (chart == "" && longhornMatches(g, w)) {
		return "", ""
	}
	return subject, fmt.Sprintf("the %s unit would deploy Longhorn chart %q, the plan sets %s", u, g, planned)
}

// selectedChartVersions are the entries of unit u's helm_chart_versions
// that render true (the chart deploys the one it selects), in order;
// present is whether the values have that map, failed whether one of its
// entries failed to render.
func (c *checker) selectedChartVersions(u string, rendered map[string]string, errs map[string]*helmengine.TemplateError) (on []string, present, failed bool) {
	hm, ok := yamldoc.Dig(c.vals, "units", u, "helm_chart_versions")
	if !ok {
		return nil, false, false
	}
	m, ok := hm.(map[string]any)
	if !ok {
		return nil, false, false
	}
	for _, ver := range sortedKeys(m) {
		s, _, bad := c.renderedAt(rendered, errs, "units", u, "helm_chart_versions", ver)
		failed = failed || bad
		if strings.TrimSpace(s) == "true" {
			on = append(on, ver)
		}
	}
	return on, true, failed
}

var includeCall = regexp.MustCompile(`\binclude\s+"`)

// callsHelper returns the path of the first gotpl string of v (in key
// order) that includes a named template, which only the chart defines.
func callsHelper(v any, path []string) ([]string, bool) {
	switch t := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(t) {
			if p, ok := callsHelper(t[k], append(slices.Clone(path), k)); ok {
				return p, true
			}
		}
	case []any:
		for i, e := range t {
			if p, ok := callsHelper(e, append(slices.Clone(path), fmt.Sprintf("[%d]", i))); ok {
				return p, true
			}
		}
	case string:
		// A string that defines what it includes needs no chart.
		if strings.Contains(t, "{{") && includeCall.MatchString(t) && !strings.Contains(t, "define") {
			return path, true
		}
	}
	return nil, false
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// orNone is s, or "none" when s is empty.
func orNone(s []string) []string {
	if len(s) == 0 {
		return []string{"none"}
	}
	return s
}

// earlierHops are the notes of the hops of p before its last, which the
// charts of their own releases run, not the chart of its target: one per
// hop, naming its passes and the check of its chart.
func earlierHops(p *planner.Plan) []string {
	var notes []string
	for i := 0; i+1 < len(p.Route)-1; i++ {
		from, to := overlay.RouteRelease(p, i), overlay.RouteRelease(p, i+1)
		var passes []string
		for _, pass := range p.Passes {
			if pass.Release == to {
				passes = append(passes, strconv.Itoa(pass.Index))
			}
		}
		if len(passes) == 0 {
			continue
		}
		word, them := "pass", "it"
		if len(passes) > 1 {
			word, them = "passes", "them"
		}
		notes = append(notes, fmt.Sprintf("%s %s (%s → %s): not checked; the chart of Sylva %s runs %s, not the chart of %s: check %s with values check --from %s --to %s (and --chart of %s's sylva-units)", word, strings.Join(passes, ", "), from, to, to, them, p.To.Release, them, from, to, to))
	}
	return notes
}
