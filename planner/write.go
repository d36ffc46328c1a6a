package planner

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/cell"
	"gitlab.com/sylva-projects/sylva-planner/envelope"
)

// passDocument is a Pass as JSON and YAML write it: every helper value as
// the string the sylva-units-status ConfigMap and the chart's templates
// hold ("true", not true), and the expected status where the chart writes
// it, in data.additional-info.
type passDocument struct {
	Index               int                `json:"index"`
	Release             string             `json:"release"`
	Trigger             Trigger            `json:"trigger"`
	HopPass             int                `json:"hopPass"`
	HopPasses           int                `json:"hopPasses"`
	Values              valuesDocument     `json:"values"`
	ControlPlane        VersionChange      `json:"controlPlane"`
	Workers             WorkerChange       `json:"workers"`
	Components          []ComponentChange  `json:"components"`
	ExpectedStatus      expectedStatusData `json:"expectedStatus"`
	RequestsAnotherPass bool               `json:"requestsAnotherPass"`
}

// valuesDocument is Values with every value a string.
type valuesDocument struct {
	SylvaRelease                     string `json:"sylva_release"`
	TransitionFromN2                 string `json:"transition_from_n-2"`
	K8sVersionShort                  string `json:"k8s_version_short"`
	LonghornVersion                  string `json:"longhorn_version,omitempty"`
	MachineDeploymentsPaused         string `json:"machine_deployments_paused,omitempty"`
	AdditionalReconciliationRequired string `json:"additional_reconciliation_required"`
}

// expectedStatusData is the sylva-units-status ConfigMap's data once a
// pass has reconciled: the keys in additional-info, the YAML the chart
// writes there (Helm's toYaml of additional_sylva_units_status_info: keys
// sorted, every value a string).
type expectedStatusData struct {
	Data struct {
		AdditionalInfo string `json:"additional-info"`
	} `json:"data"`
}

func (v Values) document() valuesDocument {
	d := valuesDocument{
		SylvaRelease: v.SylvaRelease, TransitionFromN2: strconv.FormatBool(v.TransitionFromN2),
		K8sVersionShort: v.K8sVersionShort, LonghornVersion: v.LonghornVersion,
		AdditionalReconciliationRequired: strconv.FormatBool(v.AdditionalReconciliationRequired),
	}
	if v.MachineDeploymentsPaused != nil {
		d.MachineDeploymentsPaused = strconv.FormatBool(*v.MachineDeploymentsPaused)
	}
	return d
}

// document is the ConfigMap data s stands for.
func (s ExpectedStatus) document() (expectedStatusData, error) {
	var d expectedStatusData
	b, err := yaml.Marshal(map[string]string{
		"sylva_release": s.SylvaRelease, "additional_reconciliation_required": s.AdditionalReconciliationRequired,
		"transition_from": s.TransitionFrom, "transition_pass": s.TransitionPass,
	})
	if err != nil {
		return d, fmt.Errorf("encode the expected status: %w", err)
	}
	// Helm's toYaml drops the final newline.
	d.Data.AdditionalInfo = strings.TrimSuffix(string(b), "\n")
	return d, nil
}

// MarshalJSON writes the pass as passDocument describes.
func (ps Pass) MarshalJSON() ([]byte, error) {
	st, err := ps.ExpectedStatus.document()
	if err != nil {
		return nil, err
	}
	return json.Marshal(passDocument{
		Index: ps.Index, Release: ps.Release, Trigger: ps.Trigger, HopPass: ps.HopPass, HopPasses: ps.HopPasses,
		Values: ps.Values.document(), ControlPlane: ps.ControlPlane, Workers: ps.Workers, Components: ps.Components,
		ExpectedStatus: st, RequestsAnotherPass: ps.RequestsAnotherPass,
	})
}

// UnmarshalJSON reads a pass as MarshalJSON writes it.
func (ps *Pass) UnmarshalJSON(data []byte) error {
	var d passDocument
	if err := json.Unmarshal(data, &d); err != nil {
		return err
	}
	v := Values{SylvaRelease: d.Values.SylvaRelease, K8sVersionShort: d.Values.K8sVersionShort, LonghornVersion: d.Values.LonghornVersion}
	var err error
	if v.TransitionFromN2, err = parseBool("transition_from_n-2", d.Values.TransitionFromN2); err != nil {
		return err
	}
	if v.AdditionalReconciliationRequired, err = parseBool("additional_reconciliation_required", d.Values.AdditionalReconciliationRequired); err != nil {
		return err
	}
	if d.Values.MachineDeploymentsPaused != "" {
		paused, err := parseBool("machine_deployments_paused", d.Values.MachineDeploymentsPaused)
		if err != nil {
			return err
		}
		v.MachineDeploymentsPaused = &paused
	}
	var st map[string]string
	if err := yaml.Unmarshal([]byte(d.ExpectedStatus.Data.AdditionalInfo), &st); err != nil {
		return fmt.Errorf("expectedStatus: data.additional-info: %w", err)
	}
	*ps = Pass{
		Index: d.Index, Release: d.Release, Trigger: d.Trigger, HopPass: d.HopPass, HopPasses: d.HopPasses,
		Values: v, ControlPlane: d.ControlPlane, Workers: d.Workers, Components: d.Components,
		ExpectedStatus: ExpectedStatus{
			SylvaRelease: st["sylva_release"], AdditionalReconciliationRequired: st["additional_reconciliation_required"],
			TransitionFrom: st["transition_from"], TransitionPass: st["transition_pass"],
		},
		RequestsAnotherPass: d.RequestsAnotherPass,
	}
	return nil
}

func parseBool(name, s string) (bool, error) {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return false, fmt.Errorf("values: %s: %q is not \"true\" or \"false\"", name, s)
	}
	return b, nil
}

// Document is the JSON and YAML form of the plan, with its apiVersion,
// kind and metadata (envelope.WriteJSON and WriteYAML write it).
func (p *Plan) Document() any { return p }

func (p *Plan) title() string {
	return fmt.Sprintf("Sylva %s → %s", p.From.Release, p.To.Release)
}

// header is the plan's header: one line, and one of its inputs when it
// names them. The values it quotes (the catalog's version, file names)
// are folded onto their line (cell.OneLine).
func (p *Plan) header() string {
	h := fmt.Sprintf("%s · %s · %s · catalog %s · as of %s", cell.OneLine(p.Cluster.line()), p.BootstrapProvider, p.routeLine(), cell.OneLine(p.Metadata.CatalogVersion), p.Metadata.AsOf)
	if p.Metadata.FromSource != "" && p.Metadata.FromSource != "flag" {
		h += fmt.Sprintf(" · source release read from the status ConfigMap (%s)", cell.OneLine(p.Metadata.FromSource))
	}
	if len(p.Metadata.Inputs) > 0 {
		h += "\ninputs: " + cell.OneLine(strings.Join(p.Metadata.Inputs, ", "))
	}
	return h
}

func (p *Plan) routeLine() string {
	switch {
	case p.alreadyOn():
		return "already on " + p.To.Release
	case len(p.Passes) == 0:
		// No route was found, or the target is past the catalog: the
		// releases named are not a route.
		return "no route planned"
	}
	switch len(p.Route) {
	case 0, 1:
		return "no upgrade"
	case 2:
		return "route " + strings.Join(p.Route, " → ") + " (direct)"
	}
	return fmt.Sprintf("route %s (%d hops)", strings.Join(p.Route, " → "), len(p.Route)-1)
}

func workerCell(w WorkerChange) string {
	switch {
	case w.Rolls && w.From == w.To:
		return w.From + " (patch roll)"
	case w.Rolls:
		return w.From + " → " + w.To + " (roll)"
	case w.Paused:
		return "paused on " + w.From
	}
	return "stay on " + w.From
}

func componentCell(p Pass, name string) string {
	for _, c := range p.Components {
		if c.Name == name {
			if c.From == c.To {
				return c.To
			}
			return c.From + " → " + c.To
		}
	}
	return "-"
}

func cpCell(c VersionChange) string {
	s := c.To
	if c.From != c.To {
		s = c.From + " → " + c.To
	}
	if c.Version != "" {
		s += " (" + c.Version + ")"
	}
	return s
}

// passCell is the pass number, marked done when the cluster's status says
// it completed.
func (p *Plan) passCell(ps Pass) string {
	if p.Position != nil && p.Position.PassKnown && ps.Index <= p.Position.PassesDone {
		return fmt.Sprintf("%d (done)", ps.Index)
	}
	return fmt.Sprint(ps.Index)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func (v Values) pairs() string {
	s := fmt.Sprintf("sylva_release=%s transition_from_n-2=%t k8s_version_short=%s", v.SylvaRelease, v.TransitionFromN2, v.K8sVersionShort)
	if v.LonghornVersion != "" {
		s += " longhorn_version=" + v.LonghornVersion
	}
	if v.MachineDeploymentsPaused != nil {
		s += fmt.Sprintf(" machine_deployments_paused=%t", *v.MachineDeploymentsPaused)
	}
	return s + fmt.Sprintf(" additional_reconciliation_required=%t", v.AdditionalReconciliationRequired)
}

func (s ExpectedStatus) pairs() string {
	return fmt.Sprintf("additional-info: sylva_release=%s additional_reconciliation_required=%s transition_from=%s transition_pass=%s", s.SylvaRelease, s.AdditionalReconciliationRequired, s.TransitionFrom, s.TransitionPass)
}

// WriteTable writes the plan for a terminal: header, passes, values and
// expected status per pass, findings, verdict, summary and the next step.
// A finding's or a check's text, which quotes values from outside, is
// folded onto its line (cell.OneLine), so that no value writes a line of
// its own; cliapp shows their control characters as escapes.
func (p *Plan) WriteTable(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s\n%s\n\n", p.title(), p.header())
	if p.Position != nil {
		fmt.Fprintf(bw, "Cluster: %s\n\n", cell.OneLine(p.Position.Summary))
	}
	if len(p.Passes) > 0 {
		tw := tabwriter.NewWriter(bw, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "PASS\tRELEASE\tTRIGGER\tCONTROL PLANE\tWORKERS\tLONGHORN\tNEXT PASS")
		for _, ps := range p.Passes {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", p.passCell(ps), ps.Release, ps.Trigger, cpCell(ps.ControlPlane), workerCell(ps.Workers), componentCell(ps, longhorn), yesNo(ps.RequestsAnotherPass))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintln(bw, "\nHelper values per pass:")
		for _, ps := range p.Passes {
			fmt.Fprintf(bw, "  pass %d: %s\n", ps.Index, ps.Values.pairs())
		}
		fmt.Fprintln(bw, "\nsylva-units-status after each pass:")
		for _, ps := range p.Passes {
			fmt.Fprintf(bw, "  pass %d: %s\n", ps.Index, ps.ExpectedStatus.pairs())
		}
		fmt.Fprintln(bw)
	}
	if len(p.Findings) > 0 {
		fmt.Fprintln(bw, "Findings:")
		for _, f := range p.Findings {
			tag := strings.ToUpper(string(f.Severity))
			if f.Class != "" {
				tag += " [" + strings.ToUpper(string(f.Class)) + "]"
			}
			fmt.Fprintf(bw, "  %s %s (%s): %s\n", tag, f.Code, cell.OneLine(f.Subject), cell.OneLine(f.Message))
			if f.Remediation != "" {
				fmt.Fprintf(bw, "      fix: %s\n", cell.OneLine(f.Remediation))
			}
			if f.InBaseline {
				fmt.Fprintf(bw, "      %s\n", inBaselineNote)
			}
		}
		fmt.Fprintln(bw)
	}
	if len(p.Suppressed) > 0 {
		fmt.Fprintln(bw, "Suppressed (they count for nothing):")
		for _, s := range p.Suppressed {
			fmt.Fprintf(bw, "  %s %s (%s): %s\n      suppressed: %s\n", strings.ToUpper(string(s.Severity)), s.Code, cell.OneLine(s.Subject), cell.OneLine(s.Message), cell.OneLine(s.Reason))
		}
		fmt.Fprintln(bw)
	}
	// The checks not fully assessed are what an unknown verdict (and the
	// Next line's "see checks") points at.
	var open []Check
	for _, c := range p.Checks {
		if c.Status != CheckAssessed {
			open = append(open, c)
		}
	}
	if len(open) > 0 {
		fmt.Fprintln(bw, "Checks not fully assessed:")
		for _, c := range open {
			req := ""
			if c.Required {
				req = ", required"
			}
			fmt.Fprintf(bw, "  %s (%s%s): %s\n", c.Name, c.Status, req, cell.OneLine(c.Detail))
		}
		fmt.Fprintln(bw)
	}
	fmt.Fprintf(bw, "Verdict: %s (score %d)\n", strings.ToUpper(string(p.Verdict)), p.Score)
	if g := p.gateLine(); g != "" {
		fmt.Fprintln(bw, g)
	}
	fmt.Fprintf(bw, "%s\n\n", p.Summary.Line)
	fmt.Fprintf(bw, "Next: %s\n", p.Next)
	return bw.Flush()
}

// WriteMarkdown writes the plan as a Markdown report, fit for a merge
// request or an issue comment. Every string from outside (a release or
// version of the catalog, a name or value read from the cluster, a file
// name) is escaped (cell.Markdown and its kin): it shows as written and
// starts no heading, link, image or HTML.
func (p *Plan) WriteMarkdown(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# %s\n\n", cell.Markdown(p.title()))
	fmt.Fprintf(bw, "%s\n\n", markdownLines(p.header(), "\n"))
	if p.Position != nil {
		fmt.Fprintf(bw, "**Cluster:** %s\n\n", cell.MarkdownSpans(p.Position.Summary))
	}
	fmt.Fprintf(bw, "**Verdict: %s** (score %d) — %s\n\n", strings.ToUpper(string(p.Verdict)), p.Score, cell.MarkdownSpans(p.Summary.Line))
	if g := p.gateLine(); g != "" {
		fmt.Fprintf(bw, "**%s**\n\n", cell.MarkdownSpans(g))
	}
	if len(p.Passes) > 0 {
		fmt.Fprintln(bw, "## Passes")
		fmt.Fprintln(bw)
		fmt.Fprintln(bw, "| pass | release | trigger | control plane | workers | Longhorn | requests another pass |")
		fmt.Fprintln(bw, "|---|---|---|---|---|---|---|")
		for _, ps := range p.Passes {
			fmt.Fprintf(bw, "| %s | %s | %s | %s | %s | %s | %s |\n", p.passCell(ps), cell.Markdown(ps.Release), ps.Trigger, cell.Markdown(cpCell(ps.ControlPlane)), cell.Markdown(workerCell(ps.Workers)), cell.Markdown(componentCell(ps, longhorn)), yesNo(ps.RequestsAnotherPass))
		}
		fmt.Fprintln(bw)
		fmt.Fprintln(bw, "## Helper values and expected status per pass")
		fmt.Fprintln(bw)
		for _, ps := range p.Passes {
			var block strings.Builder
			if err := envelope.WriteYAML(&block, ps.Values.document()); err != nil {
				return err
			}
			fmt.Fprintln(&block, "# sylva-units-status once the pass has reconciled:")
			st, err := ps.ExpectedStatus.document()
			if err != nil {
				return err
			}
			if err := envelope.WriteYAML(&block, st); err != nil {
				return err
			}
			// A fence longer than any backticks of the values, so that
			// none of them ends the block.
			fence := cell.Fence(block.String())
			fmt.Fprintf(bw, "Pass %d (%s, %d of %d in this hop):\n\n%syaml\n%s%s\n\n", ps.Index, cell.Markdown(ps.Release), ps.HopPass, ps.HopPasses, fence, block.String(), fence)
		}
	}
	fmt.Fprintln(bw, "## Findings")
	fmt.Fprintln(bw)
	if len(p.Findings) == 0 {
		fmt.Fprintln(bw, "None.")
	} else {
		fmt.Fprintln(bw, "| severity | class | code | subject | message | remediation |")
		fmt.Fprintln(bw, "|---|---|---|---|---|---|")
		for _, f := range p.Findings {
			sev := string(f.Severity)
			if f.InBaseline {
				sev += " (" + inBaselineNote + ")"
			}
			fmt.Fprintf(bw, "| %s | %s | %s | %s | %s | %s |\n", sev, cell.OrDash(string(f.Class)), cell.MarkdownCode(f.Code), cell.MarkdownCell(f.Subject), cell.MarkdownCell(f.Message), cell.OrDash(cell.MarkdownCell(f.Remediation)))
		}
	}
	fmt.Fprintln(bw)
	if len(p.Suppressed) > 0 {
		fmt.Fprint(bw, "## Suppressed\n\nThey count for nothing.\n\n| severity | code | subject | message | suppressed because |\n|---|---|---|---|---|\n")
		for _, s := range p.Suppressed {
			fmt.Fprintf(bw, "| %s | %s | %s | %s | %s |\n", s.Severity, cell.MarkdownCode(s.Code), cell.MarkdownCell(s.Subject), cell.MarkdownCell(s.Message), cell.MarkdownCell(s.Reason))
		}
		fmt.Fprintln(bw)
	}
	fmt.Fprintln(bw, "## Checks")
	fmt.Fprintln(bw)
	fmt.Fprintln(bw, "| check | required | status | detail |")
	fmt.Fprintln(bw, "|---|---|---|---|")
	for _, c := range p.Checks {
		fmt.Fprintf(bw, "| %s | %s | %s | %s |\n", cell.Markdown(c.Name), yesNo(c.Required), c.Status, cell.MarkdownCell(c.Detail))
	}
	fmt.Fprintf(bw, "\n**Next:** %s\n", cell.MarkdownSpans(p.Next))
	return bw.Flush()
}

// markdownLines is text, line by line, as Markdown text (cell.Markdown),
// the lines joined with sep.
func markdownLines(text, sep string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = cell.Markdown(l)
	}
	return strings.Join(lines, sep)
}
