package removedapis

import (
	"cmp"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/semver"
)

// Stable finding codes.
const (
	// CodeRemoved: an object uses an API version removed at or before a
	// pass's control-plane target.
	CodeRemoved = "removed-api"
	// CodeRemovedNext: an object uses an API version removed in the minor
	// after the plan's final control-plane target.
	CodeRemovedNext = "removed-api-next"
)

//go:embed data/removed.json
var removedJSON []byte

// KB is the removed-API knowledge base.
type KB struct {
	// Horizon is the newest Kubernetes minor the knowledge base knows: a
	// target above it may remove APIs the base does not list.
	Horizon string `json:"horizon"`
	// Generator says how the file was produced.
	Generator string `json:"generator"`
	APIs      []API  `json:"apis"`
}

// API is one kind in one API version that Kubernetes removes.
type API struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
	// Deprecated and Removed are Kubernetes minors ("1.22"); Deprecated may
	// be empty.
	Deprecated string `json:"deprecated,omitempty"`
	Removed    string `json:"removed"`
	// Replacement is "group/version Kind", or empty when there is none.
	Replacement string `json:"replacement,omitempty"`
	// Source is where the fact comes from: "k8s.io/api" or a URL.
	Source string `json:"source"`
}

// APIVersion is the API version as written in manifests ("apps/v1", "v1").
func (a API) APIVersion() string {
	if a.Group == "" {
		return a.Version
	}
	return a.Group + "/" + a.Version
}

var (
	defaultOnce sync.Once
	defaultKB   *KB
	defaultErr  error
)

// Default returns the embedded knowledge base.
func Default() (*KB, error) {
	defaultOnce.Do(func() { defaultKB, defaultErr = Parse(removedJSON) })
	return defaultKB, defaultErr
}

// Parse decodes a knowledge base and checks its versions.
func Parse(data []byte) (*KB, error) {
	var kb KB
	if err := json.Unmarshal(data, &kb); err != nil {
		return nil, fmt.Errorf("decode removed-API knowledge base: %w", err)
	}
	if _, err := semver.Parse(kb.Horizon); err != nil {
		return nil, fmt.Errorf("removed-API knowledge base: horizon: %w", err)
	}
	for _, a := range kb.APIs {
		if _, err := semver.Parse(a.Removed); err != nil {
			return nil, fmt.Errorf("removed-API knowledge base: %s %s: removed: %w", a.APIVersion(), a.Kind, err)
		}
	}
	return &kb, nil
}

// Lookup returns what the knowledge base says about kind in apiVersion.
func (kb *KB) Lookup(apiVersion, kind string) (API, bool) {
	group, version := splitAPIVersion(apiVersion)
	i, ok := slices.BinarySearchFunc(kb.APIs, API{Group: group, Version: version, Kind: kind}, compareAPI)
	if !ok {
		return API{}, false
	}
	return kb.APIs[i], true
}

func compareAPI(a, b API) int {
	return cmp.Or(cmp.Compare(a.Group, b.Group), cmp.Compare(a.Version, b.Version), cmp.Compare(a.Kind, b.Kind))
}

// SortAPIs sorts by group, version and kind, the order Lookup needs.
func SortAPIs(apis []API) { slices.SortFunc(apis, compareAPI) }

func splitAPIVersion(apiVersion string) (group, version string) {
	if g, v, ok := strings.Cut(apiVersion, "/"); ok {
		return g, v
	}
	return "", apiVersion
}

// Use is an API version an object was written with, or one the API server
// saw requested.
type Use struct {
	APIVersion, Kind string
	// Namespace and Name identify the object; both empty for a request
	// counted by the API server's metric.
	Namespace, Name string
	// Where says how the version was found: "manifest FILE",
	// "managedFields", "last-applied-configuration",
	// "apiserver_requested_deprecated_apis".
	Where string
	// Removed is the removal minor when the source states it (the API
	// server's metric); empty means look it up.
	Removed string
}

// Target is the control-plane minor a pass of a plan ends on.
type Target struct {
	Pass         int
	ControlPlane semver.Version
}

// Check returns the findings for uses against the passes' targets, in pass
// order: a blocker at the first pass whose target no longer serves the API
// version, a warning when the minor after the last target removes it. It
// also reports whether the last target is beyond the horizon.
func (kb *KB) Check(uses []Use, targets []Target) (findings []planner.Finding, beyondHorizon bool) {
	if len(targets) == 0 {
		return nil, false
	}
	horizon := semver.MustParse(kb.Horizon)
	last := targets[len(targets)-1].ControlPlane
	beyondHorizon = last.CompareMinor(horizon) > 0
	next := semver.Version{Major: last.Major, Minor: last.Minor + 1}
	type key struct{ code, subject, apiVersion, kind string }
	agg := map[key][]string{}
	msgs := map[key]planner.Finding{}
	for _, u := range uses {
		removed, api, ok := kb.removal(u)
		if !ok {
			continue
		}
		obj := u.Where
		if u.Name != "" {
			obj = objectName(u)
			if u.Where != "" {
				obj += " (" + u.Where + ")"
			}
		}
		var f planner.Finding
		for _, t := range targets {
			if removed.CompareMinor(t.ControlPlane) <= 0 {
				f = planner.Finding{
					Code: CodeRemoved, Severity: planner.SeverityBlocker, Class: planner.ClassActionable,
					Subject: fmt.Sprintf("pass %d", t.Pass),
					Message: fmt.Sprintf("%s %s is removed in Kubernetes %s; pass %d takes the control plane to %s", u.Kind, u.APIVersion, removed.Short(), t.Pass, t.ControlPlane.Short()),
				}
				break
			}
		}
		if f.Code == "" && removed.CompareMinor(next) == 0 {
			f = planner.Finding{
				Code: CodeRemovedNext, Severity: planner.SeverityWarning, Subject: "Kubernetes " + next.Short(),
				Message: fmt.Sprintf("%s %s is removed in Kubernetes %s, the minor after this plan's %s", u.Kind, u.APIVersion, removed.Short(), last.Short()),
			}
		}
		if f.Code == "" {
			continue
		}
		f.Remediation = remediation(api, u)
		k := key{f.Code, f.Subject, u.APIVersion, u.Kind}
		msgs[k] = f
		agg[k] = append(agg[k], obj)
	}
	keys := make([]key, 0, len(agg))
	for k := range agg {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b key) int {
		return cmp.Or(cmp.Compare(a.code, b.code), cmp.Compare(a.subject, b.subject), cmp.Compare(a.apiVersion, b.apiVersion), cmp.Compare(a.kind, b.kind))
	})
	for _, k := range keys {
		f := msgs[k]
		objs := slices.Compact(slices.Sorted(slices.Values(agg[k])))
		noun := "objects"
		if len(objs) == 1 {
			noun = "object"
		}
		f.Message += fmt.Sprintf(": %d %s (%s)", len(objs), noun, listSome(objs, 5))
		findings = append(findings, f)
	}
	return findings, beyondHorizon
}

func (kb *KB) removal(u Use) (semver.Version, API, bool) {
	api, ok := kb.Lookup(u.APIVersion, u.Kind)
	raw := api.Removed
	if u.Removed != "" {
		raw = u.Removed
	} else if !ok {
		return semver.Version{}, API{}, false
	}
	v, err := semver.Parse(raw)
	if err != nil {
		return semver.Version{}, API{}, false
	}
	return v, api, true
}

func remediation(api API, u Use) string {
	switch {
	case api.Replacement != "":
		return fmt.Sprintf("rewrite the objects with %s and update the manifests or charts that create them", api.Replacement)
	case api.Kind != "":
		return fmt.Sprintf("%s %s has no replacement: remove the objects and what creates them", u.Kind, u.APIVersion)
	}
	return fmt.Sprintf("find the clients that request %s (the API server's audit log names them) and move them to a served version", u.APIVersion)
}

func objectName(u Use) string {
	if u.Namespace == "" {
		return u.Name
	}
	return u.Namespace + "/" + u.Name
}

func listSome(s []string, n int) string {
	if len(s) <= n {
		return strings.Join(s, ", ")
	}
	return strings.Join(s[:n], ", ") + fmt.Sprintf(" and %d more", len(s)-n)
}
