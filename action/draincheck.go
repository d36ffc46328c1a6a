package action

import (
	"context"
	"strings"

	"gitlab.com/sylva-projects/sylva-planner/availability"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/removedapis"
	"gitlab.com/sylva-projects/sylva-planner/semver"
)

// DrainRequest is what drain-check is asked.
type DrainRequest struct {
	// Facts is the cluster or the manifests to judge.
	Facts FactsSource
	// ProdNamespaces are the namespace globs of production workloads.
	ProdNamespaces []string
	// Kubernetes, when set, also reports the API versions that minor no
	// longer serves.
	Kubernetes semver.Version
	// Kubectl is how the report's kubectl commands (inspect, and the fix
	// where it names one) reach the cluster read: kubectl with its
	// --kubeconfig and --context (envelope.Selection.Kubectl); empty or
	// "kubectl" leaves them as they are.
	Kubectl string
}

// Run reads the facts once and judges whether the nodes drain.
func (r DrainRequest) Run(ctx context.Context) (availability.Report, error) {
	facts, err := r.Facts.Facts(ctx)
	if err != nil {
		return availability.Report{}, err
	}
	items := availability.Check(facts.Snapshot, availability.Options{ProdNamespaces: r.ProdNamespaces})
	checks := facts.Checks
	if target := r.Kubernetes.MinorOnly(); !r.Kubernetes.IsZero() {
		kb, err := removedapis.Default()
		if err != nil {
			return availability.Report{}, err
		}
		findings, check := removedAPIFindings(kb, facts.Uses, []removedapis.Target{{Pass: 1, ControlPlane: target}})
		checks = append(checks, check)
		for _, f := range findings {
			if f.Code == removedapis.CodeRemoved {
				f.Subject = "Kubernetes " + target.Short()
				// A per-pass message, reworded for a single target.
				f.Message = strings.Replace(f.Message, "; pass 1 takes the control plane to "+target.Short(), "; the target is "+target.Short(), 1)
			}
			items = append(items, availability.Item{Finding: f, Object: "api/" + f.Code})
		}
	}
	if r.Kubectl != "" && r.Kubectl != "kubectl" {
		for i := range items {
			it := &items[i]
			it.Inspect = strings.ReplaceAll(it.Inspect, "kubectl ", r.Kubectl+" ")
			it.Remediation = strings.ReplaceAll(it.Remediation, "(kubectl ", "("+r.Kubectl+" ")
		}
	}
	return availability.NewReport(facts.Source, checks, items), nil
}

// DrainOutcome is the outcome of a drain check: a blocked or held verdict
// fails (a node that does not drain is acted on either way), and so does
// unknown unless allowIncomplete.
func DrainOutcome(rep availability.Report, allowIncomplete bool) Outcome {
	switch rep.Verdict {
	case planner.VerdictBlocked, planner.VerdictHeld:
		return OutcomeFail
	case planner.VerdictUnknown:
		return failIf(!allowIncomplete)
	case planner.VerdictReady:
	}
	return OutcomePass
}

// SetSources sets the facts of r from s: the manifests of Inventory, else
// the cluster's.
func (r *DrainRequest) SetSources(s Sources) error {
	if s.Inventory == "" {
		r.Facts = s.cluster().Facts()
		return nil
	}
	var err error
	r.Facts, err = s.Manifests()
	return err
}

// KubernetesMinor reads drain-check's --kubernetes: a Kubernetes minor (a
// patch given is dropped); empty is none. A version that does not parse
// is refused (BadRequestError).
func KubernetesMinor(s string) (semver.Version, error) {
	if s == "" {
		return semver.Version{}, nil
	}
	v, err := semver.Parse(s)
	if err != nil {
		return v, badRequest("--kubernetes: %v; give a Kubernetes minor such as 1.32", err)
	}
	return v.MinorOnly(), nil
}
