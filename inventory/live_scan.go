package inventory

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"runtime"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/cell"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/removedapis"
	"gitlab.com/sylva-projects/sylva-planner/yamldoc"
)

// CheckManifests is the name of the manifest scan's check.
const CheckManifests = "drain-manifests"

// Scan reads fsys like Read, in the same single pass, and also gathers the
// drain model (nodes, pods, workloads, budgets) and the API version of every
// object. Pods and statuses are usually absent from manifests: the drain
// rules then judge the workloads' pod templates and the budgets' specs.
func Scan(fsys fs.FS, source string) (*Facts, error) {
	return scan(fsys, source, runtime.GOMAXPROCS(0))
}

// scan is Scan with at most workers files decoded at once.
func scan(fsys fs.FS, source string, workers int) (*Facts, error) {
	f := &Facts{Source: source, Inventory: &Inventory{}}
	if err := f.walk(fsys, workers, (*Facts).addFile); err != nil {
		return nil, err
	}
	inv, s := f.Inventory, &f.Snapshot
	check := planner.Check{
		Name: CheckManifests, Required: true, Status: planner.CheckAssessed,
		Detail: fmt.Sprintf("%s, %s: %s, %s, %s, %s; statuses only where the manifests carry them",
			cell.Count(inv.Files, "file", "files"), cell.Count(len(inv.Objects), "object", "objects"), cell.Count(len(s.PDBs), "PodDisruptionBudget", "PodDisruptionBudgets"),
			cell.Count(len(s.Workloads), "workload", "workloads"), cell.Count(len(s.Pods), "pod", "pods"), cell.Count(len(s.Nodes), "node", "nodes")),
	}
	f.Checks = append([]planner.Check{inv.Judge(check, source)}, inv.ReleaseChecks()...)
	return f, nil
}

// Judge returns check (assessed, its detail what was found) as the files
// read from source allow: not assessed when no object was read (saying
// why the files did not parse, when they did not), partial when some files
// did not parse (naming them).
func (inv *Inventory) Judge(check planner.Check, source string) planner.Check {
	switch {
	case len(inv.Objects) == 0 && len(inv.Skipped) > 0:
		check.Status, check.Detail = planner.CheckNotAssessed, fmt.Sprintf("no manifest of %s parsed: %s", source, strings.Join(inv.Skipped, "; "))
	case inv.Files == 0 || len(inv.Objects) == 0:
		check.Status, check.Detail = planner.CheckNotAssessed, "no manifest found in "+source
	case len(inv.Skipped) > 0:
		check.Status = planner.CheckPartial
		check.Detail += fmt.Sprintf("; %s not parse: %s", cell.Count(len(inv.Skipped), "file did", "files did"), strings.Join(inv.Skipped, "; "))
	}
	return check
}

// addFile decodes a file's documents. Objects whose spec the checks do not
// read (services, config maps, ingresses…) only need their header, which
// headerOf reads without a YAML parser; everything else, and any header
// headerOf is unsure about, goes through the full decoder.
func (f *Facts) addFile(file string, data []byte) error {
	for _, doc := range yamldoc.Split(data) {
		if h, ok := headerOf(doc); ok && !detailed[h.Kind] {
			f.Inventory.Objects = append(f.Inventory.Objects, Object{APIVersion: h.APIVersion, Kind: h.Kind, Namespace: h.Namespace, Name: h.Name, Labels: h.Labels, File: file})
			f.Uses = append(f.Uses, removedapis.Use{APIVersion: h.APIVersion, Kind: h.Kind, Namespace: h.Namespace, Name: h.Name, Where: "manifest " + file})
			continue
		}
		// One conversion to JSON serves both the generic map (images,
		// labels, Helm releases) and the typed drain model, which is
		// decoded from the same bytes instead of re-encoding the map.
		// The errors read as sigs.k8s.io/yaml.Unmarshal words them; a key
		// given twice is refused (strict), named on one line.
		raw, err := yaml.YAMLToJSONStrict(doc)
		if err != nil {
			if derr := yamldoc.DuplicateKey(doc); derr != nil {
				return derr
			}
			return fmt.Errorf("error converting YAML to JSON: %w", err)
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			return fmt.Errorf("error unmarshaling JSON: while decoding JSON: %w", err)
		}
		if err := f.addDocument(file, m, raw); err != nil {
			return err
		}
	}
	return nil
}

// detailed are the kinds whose body Scan reads: the drain model, images,
// node versions, Helm releases and lists.
var detailed = map[string]bool{
	"Pod": true, "Node": true, "Deployment": true, "StatefulSet": true, "DaemonSet": true, "ReplicaSet": true,
	"Job": true, "CronJob": true, "PodDisruptionBudget": true, "Secret": true,
}

type header struct {
	APIVersion, Kind, Name, Namespace string
	Labels                            map[string]string
}

// headerOf reads apiVersion, kind and metadata name, namespace and labels
// from a block-style YAML document as kubectl and Helm write them. It
// returns false whenever the document uses anything else (flow style,
// anchors, tags, block scalars, managed fields or the last-applied
// annotation, a List) so that the caller falls back to the YAML decoder.
// A line must hold no tab; a top-level line is read by topLevel, a line
// under metadata by metadataLine, and the lines of other sections are
// skipped.
func headerOf(doc []byte) (header, bool) {
	var s headerScan
	for len(doc) > 0 {
		var line []byte
		line, doc = nextLine(doc)
		line = bytes.TrimRight(line, " \r")
		trimmed := bytes.TrimLeft(line, " ")
		if len(trimmed) == 0 || trimmed[0] == '#' {
			continue
		}
		if bytes.IndexByte(line, '\t') >= 0 {
			return s.h, false
		}
		indent := len(line) - len(trimmed)
		if indent > 0 && s.section != "metadata" {
			// A line of another section: only its tabs matter.
			continue
		}
		key, value, ok := bytes.Cut(trimmed, []byte(":"))
		if ok && indent == 0 {
			ok = s.topLevel(string(key), value)
		} else if ok {
			ok = s.metadataLine(indent, key, value, doc)
		}
		if !ok {
			return s.h, false
		}
	}
	return s.h, s.h.complete()
}

// nextLine splits doc into its first line, without the newline, and the
// rest.
func nextLine(doc []byte) (line, rest []byte) {
	if i := bytes.IndexByte(doc, '\n'); i >= 0 {
		return doc[:i], doc[i+1:]
	}
	return doc, nil
}

// complete decides whether h is a header the caller may use: one with an
// apiVersion and a kind, not a List's.
func (h *header) complete() bool {
	return h.Kind != "" && h.APIVersion != "" && !strings.HasSuffix(h.Kind, "List")
}

// headerScan is headerOf's reading of a document so far.
type headerScan struct {
	h header
	// section is the top-level key of the line read, sub the key of
	// metadata it is under (metadata's own lines).
	section, sub string
}

// topLevel decides whether headerOf can read top-level key with value,
// and reads it: apiVersion and kind must be simple scalars, metadata a
// block, and the value of any other key no anchor, alias or tag.
func (s *headerScan) topLevel(key string, value []byte) bool {
	s.section, s.sub = key, ""
	switch key {
	case "apiVersion", "kind":
		v, ok := scalar(value)
		if !ok {
			return false
		}
		if key == "kind" {
			s.h.Kind = v
		} else {
			s.h.APIVersion = v
		}
		return true
	case "metadata":
		return len(bytes.TrimSpace(value)) == 0
	}
	v := bytes.TrimSpace(value)
	return len(v) == 0 || (v[0] != '&' && v[0] != '*' && v[0] != '!')
}

// metadataLine decides whether headerOf can read a line of metadata
// indented by indent, and reads it: a field of metadata (metadataField),
// a label, whose key and value must be simple scalars, or a line under
// another field, skipped; labels nested deeper are not read.
func (s *headerScan) metadataLine(indent int, key, value, rest []byte) bool {
	switch indent {
	case 2:
		return s.metadataField(string(key), value, rest)
	case 4:
		if s.sub != "labels" {
			return true
		}
		k, ok1 := scalar(key)
		v, ok2 := scalar(value)
		if !ok1 || !ok2 {
			return false
		}
		s.h.Labels[k] = v
		return true
	}
	return s.sub != "labels"
}

// metadataField decides whether headerOf can read field key of metadata
// with value (rest: the document after it), and reads it: name and
// namespace must be simple scalars and labels a block; managed fields are
// not read, nor annotations when the document holds the last-applied
// annotation; other fields are skipped.
func (s *headerScan) metadataField(key string, value, rest []byte) bool {
	s.sub = key
	switch key {
	case "name", "namespace":
		v, ok := scalar(value)
		if !ok {
			return false
		}
		if key == "name" {
			s.h.Name = v
		} else {
			s.h.Namespace = v
		}
	case "labels":
		if len(bytes.TrimSpace(value)) > 0 {
			return false
		}
		s.h.Labels = map[string]string{}
	case "managedFields":
		return false
	case "annotations":
		return !bytes.Contains(rest, []byte(lastApplied))
	}
	return true
}

// scalar reads a plain or simply quoted scalar; it refuses anything that
// needs a YAML parser.
func scalar(b []byte) (string, bool) {
	b = bytes.TrimSpace(b)
	if i := bytes.Index(b, []byte(" #")); i >= 0 {
		b = bytes.TrimSpace(b[:i])
	}
	if len(b) == 0 {
		return "", true
	}
	switch b[0] {
	case '"':
		if len(b) < 2 || b[len(b)-1] != '"' || bytes.IndexByte(b, '\\') >= 0 {
			return "", false
		}
		return string(b[1 : len(b)-1]), true
	case '\'':
		if len(b) < 2 || b[len(b)-1] != '\'' || bytes.Count(b, []byte("'")) != 2 {
			return "", false
		}
		return string(b[1 : len(b)-1]), true
	case '{', '[', '&', '*', '!', '|', '>', '%', '@', '`':
		return "", false
	}
	if bytes.Contains(b, []byte(": ")) {
		return "", false
	}
	return string(b), true
}

func (f *Facts) addDocument(file string, m map[string]any, raw []byte) error {
	if m == nil {
		return nil
	}
	f.Inventory.addObject(file, m, 0)
	return f.addManifest(file, m, raw)
}

// addManifest adds one decoded object (or the items of a List) to the drain
// model and the API uses. raw is m as JSON when the caller has it (nil for
// the items of a List).
func (f *Facts) addManifest(file string, m map[string]any, raw []byte) error {
	kind, _ := m["kind"].(string)
	apiVersion, _ := m["apiVersion"].(string)
	if strings.HasSuffix(kind, "List") {
		items, _ := m["items"].([]any)
		for _, it := range items {
			if im, ok := it.(map[string]any); ok {
				if err := f.addManifest(file, im, nil); err != nil {
					return err
				}
			}
		}
		return nil
	}
	meta, _ := m["metadata"].(map[string]any)
	f.addManifestUses(file, kind, apiVersion, meta)
	return f.addDrainObject(kind, apiVersion, meta, m, raw)
}

// addManifestUses adds the API uses of one object of file: its own
// apiVersion and kind, and those its managedFields or last-applied
// configuration record.
func (f *Facts) addManifestUses(file, kind, apiVersion string, meta map[string]any) {
	name, _ := meta["name"].(string)
	ns, _ := meta["namespace"].(string)
	if kind != "" && apiVersion != "" {
		f.Uses = append(f.Uses, removedapis.Use{APIVersion: apiVersion, Kind: kind, Namespace: ns, Name: name, Where: "manifest " + file})
	}
	if _, ok := meta["managedFields"]; ok || hasLastApplied(meta) {
		var om metav1.ObjectMeta
		if err := remarshal(meta, &om); err == nil {
			f.Uses = append(f.Uses, APIUses(kind, apiVersion, &om)...)
		}
	}
}

// addDrainObject adds one object the drain model reads (a Pod, a Node, a
// Deployment, a StatefulSet, a PodDisruptionBudget) to the snapshot;
// other kinds are left out.
func (f *Facts) addDrainObject(kind, apiVersion string, meta, m map[string]any, raw []byte) error {
	name, _ := meta["name"].(string)
	ns, _ := meta["namespace"].(string)
	group, _, _ := strings.Cut(apiVersion, "/")
	var err error
	switch {
	case kind == "Pod" && apiVersion == "v1":
		var p corev1.Pod
		if err = decode(m, raw, &p); err == nil {
			f.Snapshot.Pods = append(f.Snapshot.Pods, PodOf(&p))
		}
	case kind == "Node" && apiVersion == "v1":
		var n corev1.Node
		if err = decode(m, raw, &n); err == nil {
			f.Snapshot.Nodes = append(f.Snapshot.Nodes, NodeOf(&n))
		}
	case kind == "Deployment" && (group == "apps" || group == "extensions"):
		var d appsv1.Deployment
		if err = decode(m, raw, &d); err == nil {
			f.Snapshot.Workloads = append(f.Snapshot.Workloads, DeploymentOf(&d))
		}
	case kind == "StatefulSet" && group == "apps":
		var s appsv1.StatefulSet
		if err = decode(m, raw, &s); err == nil {
			f.Snapshot.Workloads = append(f.Snapshot.Workloads, StatefulSetOf(&s))
		}
	case kind == "PodDisruptionBudget" && group == "policy":
		var b policyv1.PodDisruptionBudget
		if err = decode(m, raw, &b); err == nil {
			f.Snapshot.PDBs = append(f.Snapshot.PDBs, PDBOf(&b))
		}
	}
	if err == nil {
		return nil
	}
	if kind != "Node" { // a Node has no namespace
		name = ns + "/" + name
	}
	return fmt.Errorf("%s %s: %w", strings.ToLower(kind), name, err)
}

func hasLastApplied(meta map[string]any) bool {
	ann, _ := meta["annotations"].(map[string]any)
	_, ok := ann[lastApplied]
	return ok
}

// decode fills the typed object out from raw, the JSON of m, or from m
// itself when raw is nil.
func decode(m map[string]any, raw []byte, out any) error {
	if raw == nil {
		return remarshal(m, out)
	}
	return json.Unmarshal(raw, out)
}

// remarshal converts a decoded document into a typed object.
func remarshal(in any, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}
