package helmengine

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/units"
	"gitlab.com/sylva-projects/sylva-planner/yamldoc"
)

// Source answers the `lookup` calls of templates. Get returns found=false
// when the object does not exist. An empty namespace means a cluster-scoped
// object, or every namespace for List. Implementations are read-only; the
// live one is built by the caller, never by this package.
type Source interface {
	Get(ctx context.Context, apiVersion, kind, namespace, name string) (obj map[string]any, found bool, err error)
	List(ctx context.Context, apiVersion, kind, namespace string) ([]map[string]any, error)
}

// Objects is an in-memory Source over a fixed set of Kubernetes objects.
type Objects struct {
	items []map[string]any
}

// NewObjects returns a Source serving the given objects.
func NewObjects(objs ...map[string]any) *Objects {
	return &Objects{items: slices.Clone(objs)}
}

// Add adds objects to the source.
func (o *Objects) Add(objs ...map[string]any) { o.items = append(o.items, objs...) }

// Len is the number of objects served.
func (o *Objects) Len() int { return len(o.items) }

// ParseObjects decodes Kubernetes objects from YAML: one or more documents
// separated by `---`, each an object or a `kind: List` (or any `*List`) whose
// items are objects. Every object needs apiVersion, kind and metadata.name.
func ParseObjects(data []byte) ([]map[string]any, error) {
	if err := yamldoc.DuplicateKey(data); err != nil {
		return nil, err
	}
	var out []map[string]any
	for i, doc := range yamldoc.Split(data) {
		var m map[string]any
		if err := yaml.Unmarshal(doc, &m); err != nil {
			return nil, fmt.Errorf("document %d: %w", i+1, err)
		}
		if len(m) == 0 {
			continue
		}
		objs := []map[string]any{m}
		if kind, _ := m["kind"].(string); strings.HasSuffix(kind, "List") {
			objs = nil
			items, _ := m["items"].([]any)
			for j, it := range items {
				im, ok := it.(map[string]any)
				if !ok {
					return nil, fmt.Errorf("document %d: item %d is not an object", i+1, j)
				}
				objs = append(objs, im)
			}
		}
		for _, obj := range objs {
			u := unstructured.Unstructured{Object: obj}
			if u.GetAPIVersion() == "" || u.GetKind() == "" || u.GetName() == "" {
				return nil, fmt.Errorf("document %d: an object needs apiVersion, kind and metadata.name", i+1)
			}
			out = append(out, obj)
		}
	}
	return out, nil
}

func matchObject(obj map[string]any, apiVersion, kind, namespace string) bool {
	u := unstructured.Unstructured{Object: obj}
	return u.GetAPIVersion() == apiVersion && u.GetKind() == kind && (namespace == "" || u.GetNamespace() == namespace)
}

// Get implements Source.
func (o *Objects) Get(_ context.Context, apiVersion, kind, namespace, name string) (map[string]any, bool, error) {
	for _, obj := range o.items {
		if u := (&unstructured.Unstructured{Object: obj}); matchObject(obj, apiVersion, kind, namespace) && u.GetName() == name {
			return units.DeepCopy(obj), true, nil
		}
	}
	return nil, false, nil
}

// List implements Source. Items come in the order the objects were given.
func (o *Objects) List(_ context.Context, apiVersion, kind, namespace string) ([]map[string]any, error) {
	var out []map[string]any
	for _, obj := range o.items {
		if matchObject(obj, apiVersion, kind, namespace) {
			out = append(out, units.DeepCopy(obj))
		}
	}
	return out, nil
}

// AllowRule admits lookups of one group/version/kind in a namespace and by a
// name. Any is the only wildcard: a field equal to Any matches anything. An
// empty Group is the core group; any other empty field matches nothing, so
// a rule left half filled in admits nothing rather than everything.
type AllowRule struct {
	Group, Version, Kind string
	Namespace, Name      string
}

// Any is the wildcard of an AllowRule field.
const Any = "*"

func (r AllowRule) String() string {
	g := r.Group
	if g == "" {
		g = "core"
	}
	return g + "/" + r.Version + "/" + r.Kind + "/" + r.Namespace + "/" + r.Name
}

var coreVersion = regexp.MustCompile(`^v[0-9]+((alpha|beta)[0-9]+)?$`)

// ParseAllowRule parses `group/version/kind[/namespace/name]`. The core
// group is written "core", or left out before a bare core version
// ("v1/Secret/ns/name"). "*" is the only wildcard and matches anything in
// every field, the group included; the three-field form stands for
// "*/*" (any namespace, any name). An empty field is an error: an unset
// variable must not widen the rule.
func ParseAllowRule(s string) (AllowRule, error) {
	parts := strings.Split(s, "/")
	if len(parts) > 0 && coreVersion.MatchString(parts[0]) {
		parts = append([]string{"core"}, parts...)
	}
	if len(parts) != 3 && len(parts) != 5 {
		return AllowRule{}, fmt.Errorf("allow rule %q: want group/version/kind or group/version/kind/namespace/name, for example core/v1/Secret/sylva-system/my-secret", s)
	}
	fields := []string{"group", "version", "kind", "namespace", "name"}
	for i, p := range parts {
		if p == "" {
			return AllowRule{}, fmt.Errorf("allow rule %q: the %s is empty; write it out, or * for any %s (core group: core)", s, fields[i], fields[i])
		}
	}
	if parts[0] == "core" {
		parts[0] = ""
	}
	r := AllowRule{Group: parts[0], Version: parts[1], Kind: parts[2], Namespace: Any, Name: Any}
	if len(parts) == 5 {
		r.Namespace, r.Name = parts[3], parts[4]
	}
	return r, nil
}

// field reports whether a rule field admits a value: Any admits anything,
// an empty field nothing, any other field only itself.
func field(rule, value string) bool {
	return rule == Any || (rule != "" && rule == value)
}

func (r AllowRule) allows(gv schema.GroupVersion, kind, namespace, name string) bool {
	return (r.Group == Any || r.Group == gv.Group) && field(r.Version, gv.Version) && field(r.Kind, kind) &&
		field(r.Namespace, namespace) && field(r.Name, name)
}

// DefaultAllowList is what templates may look up unless widened: the
// sylva-units-status ConfigMap and the Flux Kustomizations and HelmReleases
// of the release namespace. An empty namespace admits nothing.
func DefaultAllowList(namespace string) []AllowRule {
	return []AllowRule{
		{Version: "v1", Kind: "ConfigMap", Namespace: namespace, Name: StatusConfigMap},
		{Group: "helm.toolkit.fluxcd.io", Version: Any, Kind: "HelmRelease", Namespace: namespace, Name: Any},
		{Group: "kustomize.toolkit.fluxcd.io", Version: Any, Kind: "Kustomization", Namespace: namespace, Name: Any},
	}
}

// StatusConfigMap is the name of the ConfigMap the sylva-units-status unit
// writes in the release namespace.
const StatusConfigMap = "sylva-units-status"

// lookupGuard adapts a Source and an allow list to Helm's ClientProvider,
// collecting a warning for every refused lookup.
type lookupGuard struct {
	ctx   context.Context
	src   Source
	allow []AllowRule
	mu    sync.Mutex
	// denied holds the first maxDeniedListed refused lookups in sorted
	// order (whatever order the templates ran in); deniedAll tells every
	// distinct one apart by a hash, to count the rest.
	denied    map[string]bool
	deniedAll map[uint64]bool
	// missed names the first maxMissedNamed lookups that found nothing,
	// refused or absent (sorted), and why (empty when nothing is
	// served); served is false when no Source serves any object. They
	// explain a template that then failed.
	missed map[string]string
	served bool
}

// maxMissedNamed bounds the lookups that found nothing named in the
// explanation of a failed template.
const maxMissedNamed = 3

// miss records a lookup that found nothing. Called with g.mu held.
func (g *lookupGuard) miss(what, why string) {
	if g.missed == nil {
		g.missed = map[string]string{}
	}
	putSmallest(g.missed, what, why, maxMissedNamed)
}

// putSmallest puts k in m, which keeps the limit smallest keys: so what m
// lists does not depend on the order in which (parallel) templates asked.
func putSmallest[V any](m map[string]V, k string, v V, limit int) {
	if _, ok := m[k]; ok || len(m) < limit {
		m[k] = v
		return
	}
	if last := slices.Max(slices.Collect(maps.Keys(m))); k < last {
		delete(m, last)
		m[k] = v
	}
}

// explain says which lookups found nothing and how to serve them; empty
// when every lookup found what it asked for.
func (g *lookupGuard) explain() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.missed) == 0 {
		return ""
	}
	parts := make([]string, 0, len(g.missed))
	for _, k := range sortedKeys(g.missed) {
		if why := g.missed[k]; why != "" {
			k += " (" + why + ")"
		}
		parts = append(parts, k)
	}
	s := "the lookups of this render that found nothing: " + strings.Join(parts, ", ")
	if !g.served {
		s += "; no object is served to lookup: give them with --status or --object, or read a cluster with --live, --kubeconfig or --context"
	}
	return s
}

// maxDeniedListed bounds the refused lookups listed one per warning; the
// others are counted in one more warning.
const maxDeniedListed = 20

func (g *lookupGuard) warnings() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]string, 0, len(g.denied)+1)
	for _, k := range sortedKeys(g.denied) {
		out = append(out, fmt.Sprintf("lookup %s is not allowed; the template got an empty result (widen with --allow-lookup)", k))
	}
	if more := len(g.deniedAll) - len(g.denied); more > 0 {
		out = append(out, fmt.Sprintf("%d more lookups (not listed) are not allowed; their templates got empty results (widen with --allow-lookup)", more))
	}
	return out
}

// deny records a refused lookup. Called with g.mu held.
func (g *lookupGuard) deny(what string) {
	if g.denied == nil {
		g.denied, g.deniedAll = map[string]bool{}, map[uint64]bool{}
	}
	h := fnv.New64a()
	h.Write([]byte(what))
	g.deniedAll[h.Sum64()] = true
	putSmallest(g.denied, what, true, maxDeniedListed)
}

// orAll names an empty namespace or name of a lookup: every one.
func orAll(s string) string {
	if s == "" {
		return "*"
	}
	return s
}

func (g *lookupGuard) check(apiVersion, kind, namespace, name string) bool {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err == nil {
		for _, r := range g.allow {
			if r.allows(gv, kind, namespace, name) {
				return true
			}
		}
	}
	what := fmt.Sprintf("%s %s %s/%s", apiVersion, kind, orAll(namespace), orAll(name))
	g.mu.Lock()
	g.deny(what)
	g.miss(what, "not allowed: widen with --allow-lookup")
	g.mu.Unlock()
	return false
}

// GetClientFor implements engine.ClientProvider. Every kind is reported as
// namespaced so that the namespace reaches the Source unchanged.
func (g *lookupGuard) GetClientFor(apiVersion, kind string) (dynamic.NamespaceableResourceInterface, bool, error) {
	return &guardedResource{g: g, apiVersion: apiVersion, kind: kind}, true, nil
}

// guardedResource implements the two calls Helm's lookup makes (Get, List);
// the embedded nil interface makes any other call panic, which the engine
// recovers into a render error.
type guardedResource struct {
	dynamic.NamespaceableResourceInterface
	g                *lookupGuard
	apiVersion, kind string
	namespace        string
}

func (r *guardedResource) Namespace(ns string) dynamic.ResourceInterface {
	c := *r
	c.namespace = ns
	return &c
}

var errReadOnly = errors.New("lookup source is read-only")

func (r *guardedResource) Get(_ context.Context, name string, _ metav1.GetOptions, _ ...string) (*unstructured.Unstructured, error) {
	gvr := schema.GroupResource{Resource: strings.ToLower(r.kind)}
	if !r.g.check(r.apiVersion, r.kind, r.namespace, name) {
		return nil, apierrors.NewNotFound(gvr, name)
	}
	obj, found, err := r.g.src.Get(r.g.ctx, r.apiVersion, r.kind, r.namespace, name)
	if err != nil {
		return nil, fmt.Errorf("lookup %s %s %s/%s: %w", r.apiVersion, r.kind, r.namespace, name, err)
	}
	if !found {
		why := "not found"
		if !r.g.served {
			why = ""
		}
		r.g.mu.Lock()
		r.g.miss(fmt.Sprintf("%s %s %s/%s", r.apiVersion, r.kind, orAll(r.namespace), name), why)
		r.g.mu.Unlock()
		return nil, apierrors.NewNotFound(gvr, name)
	}
	return &unstructured.Unstructured{Object: obj}, nil
}

func (r *guardedResource) List(_ context.Context, _ metav1.ListOptions) (*unstructured.UnstructuredList, error) {
	list := &unstructured.UnstructuredList{Object: map[string]any{"apiVersion": r.apiVersion, "kind": r.kind + "List"}}
	// A list is allowed when a rule admits any name (and, for a list over
	// every namespace, any namespace).
	if !r.g.check(r.apiVersion, r.kind, r.namespace, "") {
		return list, nil
	}
	objs, err := r.g.src.List(r.g.ctx, r.apiVersion, r.kind, r.namespace)
	if err != nil {
		return nil, fmt.Errorf("lookup %s %s in %q: %w", r.apiVersion, r.kind, r.namespace, err)
	}
	for _, o := range objs {
		list.Items = append(list.Items, unstructured.Unstructured{Object: o})
	}
	return list, nil
}

// Create and the other writes are refused explicitly rather than panicking.
func (r *guardedResource) Create(context.Context, *unstructured.Unstructured, metav1.CreateOptions, ...string) (*unstructured.Unstructured, error) {
	return nil, errReadOnly
}
