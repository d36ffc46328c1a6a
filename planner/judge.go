package planner

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"gitlab.com/sylva-projects/sylva-planner/cell"
	"gitlab.com/sylva-projects/sylva-planner/envelope"
)

func (p *Plan) summarize() {
	s := Summary{Passes: len(p.Passes)}
	cp := []string{p.From.Kubernetes}
	workers := []string{}
	if len(p.Passes) > 0 {
		cp = []string{p.Passes[0].ControlPlane.From}
		workers = []string{p.Passes[0].Workers.From}
	}
	lh := []string{}
	if p.From.Longhorn != "" {
		lh = append(lh, p.From.Longhorn)
	}
	for _, ps := range p.Passes {
		if ps.ControlPlane.To != ps.ControlPlane.From {
			s.ControlPlaneSteps++
			cp = append(cp, ps.ControlPlane.To)
		}
		if ps.Workers.Rolls {
			s.WorkerRollouts++
			to := ps.Workers.To
			if ps.Workers.From == to && ps.ControlPlane.Version != "" {
				// The same minor at another patch.
				to = ps.ControlPlane.Version
			}
			workers = append(workers, to)
		}
		for _, c := range ps.Components {
			if c.Name == longhorn && c.To != c.From && c.To != lh[len(lh)-1] {
				lh = append(lh, c.To)
			}
		}
	}
	parts := []string{cell.Count(s.Passes, "pass", "passes")}
	switch {
	case p.alreadyOn():
		parts = []string{"already on " + p.To.Release + ", nothing to do"}
	case len(p.Passes) == 0:
		parts = []string{"no pass planned for " + p.To.Release}
	default:
		parts = append(parts, "control plane "+strings.Join(cp, " → "))
		switch s.WorkerRollouts {
		case 0:
			parts = append(parts, "workers do not roll")
		case 1:
			parts = append(parts, fmt.Sprintf("workers roll once (%s)", strings.Join(workers, " → ")))
		default:
			parts = append(parts, fmt.Sprintf("workers roll %d times (%s)", s.WorkerRollouts, strings.Join(workers, " → ")))
		}
		if len(lh) > 1 {
			parts = append(parts, "Longhorn "+strings.Join(lh, " → "))
		}
	}
	s.Line = strings.Join(parts, " · ")
	p.Summary = s
}

// checks lists what the route assessed. Every check here is required and
// computed from the catalog.
func checks(p *Plan) []Check {
	k8s := fmt.Sprintf("workers start on Kubernetes %s", p.From.Kubernetes)
	if len(p.Passes) > 0 {
		k8s = fmt.Sprintf("workers start on Kubernetes %s", p.Passes[0].Workers.From)
	}
	return []Check{
		{Name: "catalog-coverage", Required: true, Status: CheckAssessed, Detail: fmt.Sprintf("catalog %s covers %s and %s", p.Metadata.CatalogVersion, p.From.Release, p.To.Release)},
		{Name: "route", Required: true, Status: CheckAssessed, Detail: "supported upgrade sources of each release"},
		{Name: "control-plane-skew", Required: true, Status: CheckAssessed, Detail: "kube-apiserver moves one minor per pass"},
		{Name: "kubelet-skew", Required: true, Status: CheckAssessed, Detail: k8s + "; kubelets lag the API server by at most 3 minors (2 before 1.28)"},
		{Name: "component-path", Required: true, Status: CheckAssessed, Detail: "stepped components (Longhorn) move one minor per pass"},
	}
}

// judge sets the verdict and the score. Held wins over blocked: when any
// blocker waits on upstream or is pinned, acting on the others would not
// unblock the target yet.
func (p *Plan) judge() {
	blockers, warnings, held := 0, 0, false
	for _, f := range p.Findings {
		switch f.Severity {
		case SeverityBlocker:
			blockers++
			if f.Class == ClassWaiting || f.Class == ClassPinned {
				held = true
			}
		case SeverityWarning:
			warnings++
		case SeverityInfo:
		}
	}
	unassessed := false
	for _, c := range p.Checks {
		if c.Required && c.Status != CheckAssessed {
			unassessed = true
		}
	}
	switch {
	case held:
		p.Verdict = VerdictHeld
	case blockers > 0:
		p.Verdict = VerdictBlocked
	case unassessed:
		p.Verdict = VerdictUnknown
	default:
		p.Verdict = VerdictReady
	}
	p.Score = Score(blockers, warnings)
}

// Score is the plan's trend figure: 100, minus 25 per blocker (at most 75),
// minus 5 per warning (at most 20). Information findings never count.
func Score(blockers, warnings int) int {
	return max(0, 100-min(75, 25*blockers)-min(20, 5*warnings))
}

// alreadyOn reports a plan to the release the cluster is on.
func (p *Plan) alreadyOn() bool {
	return p.From.Release == p.To.Release && len(p.Passes) == 0 && (p.Position == nil || !p.Position.PassPending)
}

// next is the plan's Next: what to do, and the exact command, each command
// with the selecting flags of sel (made absolute, sel.Abs, in the commands
// it says to run in the environment-values directory).
func next(p *Plan, rerun string, sel envelope.Selection) string {
	planCmd := cmp.Or(rerun, sel.Command("plan", "--from", p.From.Release, "--to", p.To.Release))
	// Following the passes reads the cluster: a state file does not change.
	follow := sel.Live().Command("status", "--to", p.To.Release)
	switch {
	case p.Position != nil && p.Position.Failed != "":
		return p.Position.FailedFix + "; then follow the passes with: " + follow
	case p.Verdict == VerdictBlocked && onlyBlocker(p, CodeOverlayUnavailable):
		return "the helper values cannot be written yet: give values generate what the overlay-unavailable finding names, then run again: " + planCmd
	case p.Verdict == VerdictBlocked:
		return "resolve the blockers above, then run again: " + planCmd
	case p.Verdict == VerdictHeld:
		return "nothing to act on yet; run again when upstream ships a supporting version: " + planCmd
	case p.unplaced():
		return "the status asks for a further pass that cannot be placed in the plan (see Cluster): read it with `" + sel.Command("status") + "`, or plan with --from the release the hop started from"
	case p.applying():
		return "a release is being applied now (see Cluster): wait until it finishes and the sylva-units-status ConfigMap is rewritten, then run again: " + planCmd
	case p.Verdict == VerdictUnknown:
		return "the plan could not be judged completely (see checks); update the catalog or the inventory, then run again: " + planCmd
	case p.alreadyOn():
		return "nothing to do: the cluster is already on release " + p.To.Release
	case p.midway():
		pos := p.Position
		if pos.Next.Trigger == TriggerReconciliation {
			return resumeFirst(p) + fmt.Sprintf("pass %d of %d is pending (an additional reconciliation of sylva-units, requested by the status): sylva-units-operator passes it on, or run `%s`; then follow the passes with: %s", pos.Next.Index, pos.Passes, sel.Command("reconcile"), follow)
		}
		return resumeFirst(p) + fmt.Sprintf("pass %d of %d: upgrade the sylva-units HelmRelease to Sylva %s, then follow the passes with: %s", pos.Next.Index, pos.Passes, pos.Next.Release, follow)
	case len(p.Passes) == 0:
		return "no pass can be planned; see the findings and checks, then run again: " + planCmd
	}
	first := p.Passes[0]
	msg := resumeFirst(p)
	if first.Trigger == TriggerValues {
		// A workload cluster below the next release's window steps on the
		// release it runs first: no overlay, no chart upgrade yet.
		step := fmt.Sprintf("pass 1 of %d: set k8s_version_short: %q in the values of this cluster's sylva-units release (on Sylva %s) and let it settle", len(p.Passes), first.Values.K8sVersionShort, first.Release)
		if len(p.Passes) == 1 {
			return msg + step + "; then check it with: " + follow
		}
		return msg + step + fmt.Sprintf("; then plan the rest with --kubernetes %s: %s", first.Values.K8sVersionShort, withKubernetes(p, planCmd, first.Values.K8sVersionShort))
	}
	if slices.ContainsFunc(p.Findings, func(f Finding) bool { return f.Code == CodeOverlayUnavailable }) {
		msg = "give values generate what the overlay-unavailable finding names; then "
	}
	// The commands from here on run in the environment-values
	// directory, not where the plan ran: their paths are absolute.
	abs := sel.Abs()
	msg += "in your environment-values directory, write the helper values with `" + generateCommand(p, rerun, abs) +
		"`, list transition under components: of its kustomization.yaml and apply it; then " +
		fmt.Sprintf("upgrade the sylva-units HelmRelease to Sylva %s (pass 1 of %d", first.Release, len(p.Passes))
	if len(p.Route) > 2 {
		msg += fmt.Sprintf(", hop 1 of %d", len(p.Route)-1)
	}
	return msg + "), then follow the passes with: " + abs.Live().Command("status", "--to", p.To.Release)
}

// withKubernetes is the plan command cmd for the cluster once its control
// plane runs minor m: --kubernetes m in place of the minor given on the
// command line, or added when the minor came from the plan's other inputs
// (a status or the cluster), which then say m themselves once the pass is
// done.
func withKubernetes(p *Plan, cmd, m string) string {
	if p.Cluster.KubernetesSource != "--kubernetes" {
		return cmd
	}
	old := " --kubernetes " + p.Cluster.Kubernetes
	if i := strings.Index(cmd+" ", old+" "); i >= 0 {
		return cmd[:i] + " --kubernetes " + m + cmd[i+len(old):]
	}
	return cmd + " --cluster workload --kubernetes " + m
}

// resumeFirst is what comes before any pass of a plan whose status says
// Flux objects of the release are suspended: resuming them, since nothing
// runs until then; empty otherwise.
func resumeFirst(p *Plan) string {
	if p.Position == nil || p.Position.Suspended == "" {
		return ""
	}
	return "resume " + p.Position.Suspended + " first: nothing runs while it is suspended; then "
}

// generateFlags are the flags of a plan command that values generate
// takes too and that change the overlay, beside the selecting flags.
var generateFlags = []string{"--bootstrap-provider", "--workers", "--cluster", "--kubernetes", "--kubernetes-to"}

// generateCommand is the values generate command that writes the overlay
// of p as a kustomize Component into the directory transition: p's
// releases, and the flags of rerun that values generate takes, their
// values as rerun quotes them, and the selecting flags of sel.
func generateCommand(p *Plan, rerun string, sel envelope.Selection) string {
	parts := []string{"--from", p.From.Release, "--to", p.To.Release}
	words := shellWords(rerun)
	for i := 0; i+1 < len(words); i++ {
		if slices.Contains(generateFlags, words[i]) && !strings.HasPrefix(words[i+1], "--") {
			parts = append(parts, words[i], words[i+1])
			i++
		}
	}
	return sel.Command("values generate", append(parts, "--kustomize", "transition")...)
}

// shellWords splits a command into its words as a POSIX shell would for
// the quoting shellQuote gives (single quotes, '\” inside), keeping each
// word's quotes.
func shellWords(cmd string) []string {
	var words []string
	var cur strings.Builder
	quoted, in, escaped := false, false, false
	for _, r := range cmd {
		switch {
		case escaped:
			escaped = false
			cur.WriteRune(r)
		case r == '\\' && !quoted:
			escaped, in = true, true
			cur.WriteRune(r)
		case r == '\'':
			quoted = !quoted
			in = true
			cur.WriteRune(r)
		case r == ' ' && !quoted:
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			in = true
			cur.WriteRune(r)
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}

// onlyBlocker reports whether every blocker of p has code.
func onlyBlocker(p *Plan, code string) bool {
	n := 0
	for _, f := range p.Findings {
		if f.Severity == SeverityBlocker {
			if f.Code != code {
				return false
			}
			n++
		}
	}
	return n > 0
}
