package planner

import (
	"fmt"
	"strings"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
)

// Stable finding codes of the bootstrap providers.
const (
	CodeKubeadmWorkerLag  = "kubeadm-worker-lag"
	CodeRKE2SkewUnchecked = "rke2-skew-enforced-by-planner"
)

// providerFindings states what the bootstrap provider leaves to the planner.
func (p *Plan) providerFindings(provider catalog.Provider) {
	switch provider {
	case catalog.ProviderKubeadm:
		var lagging []string
		for _, ps := range p.Passes {
			if ps.Workers.From != ps.ControlPlane.To && !ps.Workers.Rolls {
				lagging = append(lagging, fmt.Sprintf("%d (workers %s, control plane %s)", ps.Index, ps.Workers.From, ps.ControlPlane.To))
			}
		}
		if len(lagging) > 0 {
			p.add(Finding{
				Code: CodeKubeadmWorkerLag, Severity: SeverityWarning, Subject: "workers",
				Message:     "with kubeadm, Cluster API's MachineSet preflight checks stop workers whose minor differs from the control plane's from scaling up or being remediated during pass " + strings.Join(lagging, ", pass "),
				Remediation: "avoid scaling machine deployments and expect no automatic remediation of workers until they roll",
			})
		}
	case catalog.ProviderRKE2:
		p.add(Finding{
			Code: CodeRKE2SkewUnchecked, Severity: SeverityInfo, Subject: "control plane",
			Message: "the RKE2ControlPlane webhook does not refuse a control-plane minor skip; this plan moves the control plane one minor per pass, and nothing else enforces it",
		})
	}
}
