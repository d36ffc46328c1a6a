package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"gitlab.com/sylva-projects/sylva-planner/apis"
	"gitlab.com/sylva-projects/sylva-planner/availability"
	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/inventory"
	inventorykube "gitlab.com/sylva-projects/sylva-planner/inventory/kube"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/skew"
)

// checkRemovedAPIs is the check of the removed-API findings.
const checkRemovedAPIs = "removed-apis"

// factsOptions say where the drain facts come from: a live cluster
// (kubeconfig or context set) or manifests in dir.
type factsOptions struct {
	kubeconfig, context, dir string
}

func (o factsOptions) live(e *env) bool {
	return o.kubeconfig != "" || o.context != "" || (o.dir == "" && e.getenv("KUBECONFIG") != "")
}

// readFacts reads the drain and removed-API facts.
func readFacts(ctx context.Context, e *env, o factsOptions) (*inventory.Facts, error) {
	if o.live(e) {
		cfg, ctxName, err := e.restConfig(o.kubeconfig, o.context)
		if err != nil {
			return nil, err
		}
		return inventorykube.Collect(ctx, cfg, inventorykube.Options{Context: ctxName})
	}
	if o.dir == "" {
		return nil, errors.New("give --kubeconfig (or --context) for a live cluster, or --inventory DIR for manifests")
	}
	root := e.path(o.dir)
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("--inventory %s: not a readable directory", o.dir)
	}
	f, err := inventory.Scan(e.dirFS(o.dir), "manifests in "+filepath.ToSlash(o.dir))
	if err != nil {
		return nil, fmt.Errorf("--inventory %s: %w", o.dir, err)
	}
	return f, nil
}

// removedAPIFindings judges the API versions in use against each target
// and returns the findings and the check that reports them.
func removedAPIFindings(uses []apis.Use, targets []apis.Target) ([]planner.Finding, planner.Check, error) {
	kb, err := apis.Default()
	if err != nil {
		return nil, planner.Check{}, err
	}
	check := planner.Check{
		Name: checkRemovedAPIs, Required: true, Status: planner.CheckAssessed,
		Detail: fmt.Sprintf("%d API version uses against the removed-API knowledge base (Kubernetes up to %s)", len(uses), kb.Horizon),
	}
	findings, beyond := kb.Check(uses, targets)
	if beyond {
		check.Status = planner.CheckPartial
		check.Detail += fmt.Sprintf("; the target %s is newer than the knowledge base: run `go generate ./apis` with a newer k8s.io/api", targets[len(targets)-1].ControlPlane.Short())
	}
	return findings, check, nil
}

// addLiveChecks adds the drain and removed-API checks of plan and report
// when a cluster (--kubeconfig, --context) is given, and the removed-API
// check alone for manifests (--inventory). The removed-API findings depend on each pass's control-plane
// target, and the passes do not depend on findings: so the plan is
// computed once without them to learn the targets, and the findings then
// join in.Observed, before the verdict of the final Compute.
func addLiveChecks(c *cli.Context, e *env, cat *catalog.Catalog, in *planner.Input, opts gateOptions) error {
	fo := factsOptions{kubeconfig: opts.live.kubeconfig, context: opts.live.context, dir: opts.inventory}
	if fo.kubeconfig == "" && fo.context == "" && fo.dir == "" {
		return nil
	}
	facts, err := readFacts(c.Context, e, fo)
	if err != nil {
		return err
	}
	if in.Observed == nil {
		in.Observed = &planner.Observed{Source: facts.Source}
		rules, err := detectionRules(cat)
		if err != nil {
			return err
		}
		for _, d := range facts.Inventory.Detect(rules) {
			in.Observed.Components = append(in.Observed.Components, planner.ObservedComponent{Name: d.Component, Raw: d.Raw, Version: d.Version, Where: d.Where})
		}
	}
	if fo.live(e) {
		// Manifests carry no pod or budget status: the drain rules run on
		// them in drain-check, and join the plan only from a live cluster.
		in.Observed.Checks = append(in.Observed.Checks, facts.Checks...)
		items := availability.Check(facts.Snapshot, availability.Options{ProdNamespaces: prodNamespaces(c)})
		in.Observed.Findings = append(in.Observed.Findings, availability.Findings(items)...)
	}

	first, err := planner.Compute(*in)
	if err != nil {
		return err
	}
	var targets []apis.Target
	for _, ps := range first.Passes {
		if v, err := skew.Parse(ps.ControlPlane.To); err == nil {
			targets = append(targets, apis.Target{Pass: ps.Index, ControlPlane: v})
		}
	}
	findings, check, err := removedAPIFindings(facts.Uses, targets)
	if err != nil {
		return err
	}
	in.Observed.Findings = append(in.Observed.Findings, findings...)
	in.Observed.Checks = append(in.Observed.Checks, check)
	return nil
}
