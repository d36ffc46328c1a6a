package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/inventory"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/skew"
)

// readInventory reads manifests and turns what runs into planner facts.
func readInventory(e *env, cat *catalog.Catalog, dir string) (*planner.Observed, skew.Version, bool, error) {
	root := e.path(dir)
	st, err := os.Stat(root)
	if err != nil || !st.IsDir() {
		return nil, skew.Version{}, false, fmt.Errorf("--inventory %s: not a readable directory", dir)
	}
	inv, err := inventory.Read(e.dirFS(dir))
	if err != nil {
		return nil, skew.Version{}, false, fmt.Errorf("--inventory %s: %w", dir, err)
	}
	rules, err := detectionRules(cat)
	if err != nil {
		return nil, skew.Version{}, false, err
	}
	obs := &planner.Observed{Source: "manifests in " + filepath.ToSlash(dir)}
	for _, d := range inv.Detect(rules) {
		obs.Components = append(obs.Components, planner.ObservedComponent{Name: d.Component, Raw: d.Raw, Version: d.Version, Where: d.Where})
	}
	check := planner.Check{
		Name: "inventory", Required: true, Status: planner.CheckAssessed,
		Detail: fmt.Sprintf("files read: %d, objects: %d, components detected: %d", inv.Files, len(inv.Objects), len(obs.Components)),
	}
	switch {
	case inv.Files == 0 || len(inv.Objects) == 0:
		check.Status, check.Detail = planner.CheckNotAssessed, "no manifest found in "+filepath.ToSlash(dir)
	case len(inv.Skipped) > 0:
		check.Status = planner.CheckPartial
		check.Detail += fmt.Sprintf("; %d files did not parse: %s", len(inv.Skipped), strings.Join(inv.Skipped, "; "))
	}
	obs.Checks = []planner.Check{check}
	oldest, _, rke2 := inv.Nodes()
	return obs, oldest, rke2, nil
}

func detectionRules(cat *catalog.Catalog) ([]inventory.Rule, error) {
	var rules []inventory.Rule
	for _, comp := range cat.Components {
		r := inventory.Rule{Component: comp.Name}
		for _, re := range comp.Images {
			rx, err := regexp.Compile(re)
			if err != nil {
				return nil, fmt.Errorf("catalog: component %s: %w", comp.Name, err)
			}
			r.Images = append(r.Images, rx)
		}
		for _, l := range comp.Labels {
			k, v, _ := strings.Cut(l.Selector, "=")
			r.Labels = append(r.Labels, inventory.LabelRule{Key: k, Value: v, VersionLabel: l.VersionLabel})
		}
		rules = append(rules, r)
	}
	return rules, nil
}
