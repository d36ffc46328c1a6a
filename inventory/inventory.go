package inventory

import (
	"cmp"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"sigs.k8s.io/yaml"

	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/yamldoc"
)

// Object is one Kubernetes object as read, with where it came from.
type Object struct {
	APIVersion string
	Kind       string
	Namespace  string
	Name       string
	Labels     map[string]string
	// Images are the container images of a Pod or a workload's template.
	Images []string
	// KubeletVersion is set for Nodes.
	KubeletVersion string
	// File is the path (relative to the inventory root) the object came
	// from; "#release" is appended for objects of a Helm release manifest.
	File string
}

// Inventory is what Read found.
type Inventory struct {
	Objects []Object
	// Files counts the files read; Skipped lists the ones that did not parse.
	Files   int
	Skipped []string
	// ReleaseSecrets counts the Helm release Secrets seen (every
	// revision); Releases counts the manifests read, one per release: the
	// newest deployed revision. SkippedReleases lists, as "NAME: why",
	// the release Secrets whose manifest was not read or not read whole.
	ReleaseSecrets, Releases int
	SkippedReleases          []string

	// pending are the release Secrets of manifest files that may be the
	// newest deployed revision of their release, read once every file is.
	pending []pendingRelease
	// releaseBytes is what the releases read so far decompressed,
	// releaseObjects the objects their manifests added and releaseParsed
	// the bytes of their documents the YAML parser read.
	releaseBytes, releaseParsed int64
	releaseObjects              int
}

// Rule detects one component's version: the first group of an image
// pattern, or a label on objects matching a selector.
type Rule struct {
	Component string
	Images    []*regexp.Regexp
	Labels    []LabelRule
}

// LabelRule reads VersionLabel on objects carrying Key=Value.
type LabelRule struct{ Key, Value, VersionLabel string }

// Detected is a component version seen running. Version is zero when Raw
// does not parse.
type Detected struct {
	Component string
	Raw       string
	Version   semver.Version
	Where     string
}

// walk hands every *.yaml, *.yml and *.json file of fsys to add, counts
// the files, lists those add refuses in Skipped, then sorts the objects
// by file, kind, namespace and name.
//
// The files are read and decoded by a bounded pool of workers (at most
// workers, one per processor in Read and Scan), each into a part of its own; the parts are then joined in the
// order fs.WalkDir lists the files, so the Facts do not depend on which
// worker finished first. A file that add refuses keeps the objects add
// found before the error, as a sequential walk would.
func (f *Facts) walk(fsys fs.FS, workers int, add func(part *Facts, path string, data []byte) error) error {
	var files []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		switch path.Ext(p) {
		case ".yaml", ".yml", ".json":
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	parts := make([]filePart, len(files))
	work := func(i int) {
		p := files[i]
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			parts[i].readErr = fmt.Errorf("read manifest %s: %w", p, err)
			return
		}
		parts[i].facts, parts[i].addErr = addSplit(p, data, add)
	}
	workers = min(workers, len(files))
	if workers <= 1 {
		for i := range files {
			work(i)
		}
	} else {
		var next atomic.Int64
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				for i := int(next.Add(1)) - 1; i < len(files); i = int(next.Add(1)) - 1 {
					work(i)
				}
			})
		}
		wg.Wait()
	}
	inv := f.Inventory
	objects, uses := 0, 0
	for _, part := range parts {
		if part.readErr != nil {
			return part.readErr
		}
		objects += len(part.facts.Inventory.Objects)
		uses += len(part.facts.Uses)
	}
	// The joined slices are allocated once, at their final length, and
	// each part is dropped once joined.
	inv.Objects = slices.Grow(inv.Objects, objects)
	f.Uses = slices.Grow(f.Uses, uses)
	for i := range parts {
		inv.Files++
		f.join(parts[i].facts)
		if parts[i].addErr != nil {
			inv.Skipped = append(inv.Skipped, files[i]+": "+parts[i].addErr.Error())
		}
		parts[i].facts = nil
	}
	inv.readPending()
	inv.sortObjects()
	return nil
}

// sortObjects sorts the objects by file, kind, namespace and name.
func (inv *Inventory) sortObjects() {
	slices.SortFunc(inv.Objects, func(a, b Object) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
}

// docParallelMin is the number of documents from which one file's
// documents are decoded by several goroutines (a single large dump).
const docParallelMin = 512

// addSplit hands data to add. A file of many documents is cut into one
// run of documents per processor, each added into a part of its own, and
// the parts are joined in order up to the first run that failed, which
// keeps the objects before the failing document, as one add would.
func addSplit(file string, data []byte, add func(part *Facts, path string, data []byte) error) (*Facts, error) {
	f := &Facts{Inventory: &Inventory{}}
	docs := yamldoc.Split(data)
	n := min(runtime.GOMAXPROCS(0), len(docs)/docParallelMin)
	if n <= 1 {
		return f, add(f, file, data)
	}
	size := (len(docs) + n - 1) / n
	runs := make([]*Facts, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for r := range n {
		wg.Go(func() {
			runs[r] = &Facts{Inventory: &Inventory{}}
			for _, doc := range docs[r*size : min((r+1)*size, len(docs))] {
				if errs[r] = add(runs[r], file, doc); errs[r] != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	for r := range n {
		f.join(runs[r])
		if errs[r] != nil {
			return f, errs[r]
		}
	}
	return f, nil
}

// filePart is what one file gave: its facts, or why it could not be read
// (which stops the walk) or decoded (which skips the file).
type filePart struct {
	facts           *Facts
	readErr, addErr error
}

// join appends the objects, API uses and drain model of part.
func (f *Facts) join(part *Facts) {
	f.Inventory.Objects = append(f.Inventory.Objects, part.Inventory.Objects...)
	f.Inventory.pending = append(f.Inventory.pending, part.Inventory.pending...)
	f.Inventory.ReleaseSecrets += part.Inventory.ReleaseSecrets
	f.Uses = append(f.Uses, part.Uses...)
	s, p := &f.Snapshot, &part.Snapshot
	s.Nodes = append(s.Nodes, p.Nodes...)
	s.Pods = append(s.Pods, p.Pods...)
	s.Workloads = append(s.Workloads, p.Workloads...)
	s.PDBs = append(s.PDBs, p.PDBs...)
}

// addDocument decodes one document and adds its object.
func (inv *Inventory) addDocument(file string, doc []byte, depth int) error {
	var m map[string]any
	// Strict: a key given twice is refused, named on one line.
	if err := yaml.UnmarshalStrict(doc, &m); err != nil {
		if derr := yamldoc.DuplicateKey(doc); derr != nil {
			return derr
		}
		return err
	}
	if m != nil {
		inv.addObject(file, m, depth)
	}
	return nil
}

// bodyKinds are the kinds whose body addObject reads: images, kubelet
// versions, Helm releases.
var bodyKinds = map[string]bool{
	"Pod": true, "Deployment": true, "StatefulSet": true, "DaemonSet": true, "ReplicaSet": true,
	"Job": true, "CronJob": true, "Node": true, "Secret": true,
}

func (inv *Inventory) addObject(file string, m map[string]any, depth int) {
	kind, _ := m["kind"].(string)
	if strings.HasSuffix(kind, "List") {
		items, _ := m["items"].([]any)
		for _, it := range items {
			if im, ok := it.(map[string]any); ok {
				inv.addObject(file, im, depth)
			}
		}
		return
	}
	o := Object{File: file, Kind: kind}
	o.APIVersion, _ = m["apiVersion"].(string)
	meta, _ := m["metadata"].(map[string]any)
	o.Name, _ = meta["name"].(string)
	o.Namespace, _ = meta["namespace"].(string)
	if labels, ok := meta["labels"].(map[string]any); ok {
		o.Labels = map[string]string{}
		for k, v := range labels {
			if s, ok := v.(string); ok {
				o.Labels[k] = s
			}
		}
	}
	spec, _ := m["spec"].(map[string]any)
	switch kind {
	case "Pod":
		o.Images = images(spec)
	case "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job":
		o.Images = images(yamldoc.DigMap(spec, "template", "spec"))
	case "CronJob":
		o.Images = images(yamldoc.DigMap(spec, "jobTemplate", "spec", "template", "spec"))
	case "Node":
		o.KubeletVersion, _ = yamldoc.DigMap(m, "status", "nodeInfo")["kubeletVersion"].(string)
	case "Secret":
		if t, _ := m["type"].(string); t == releaseType && depth == 0 {
			inv.offerRelease(file, o, m)
		}
	}
	inv.Objects = append(inv.Objects, o)
}

func images(podSpec map[string]any) []string {
	var out []string
	for _, key := range []string{"initContainers", "containers"} {
		cs, _ := podSpec[key].([]any)
		for _, c := range cs {
			if cm, ok := c.(map[string]any); ok {
				if img, ok := cm["image"].(string); ok && img != "" {
					out = append(out, img)
				}
			}
		}
	}
	return out
}

// Detect applies the rules to the objects and returns one version per
// component: the highest seen when several run (an upgrade in progress
// leaves both), sorted by component.
func (inv *Inventory) Detect(rules []Rule) []Detected {
	best := map[string]Detected{}
	consider := func(d Detected) {
		cur, ok := best[d.Component]
		switch {
		case !ok:
			best[d.Component] = d
		case cur.Version.IsZero() && !d.Version.IsZero():
			best[d.Component] = d
		case !d.Version.IsZero() && d.Version.Compare(cur.Version) > 0:
			best[d.Component] = d
		}
	}
	for _, o := range inv.Objects {
		for _, r := range rules {
			for _, img := range o.Images {
				for _, rx := range r.Images {
					if m := rx.FindStringSubmatch(img); m != nil {
						v, _ := semver.Parse(m[1])
						consider(Detected{Component: r.Component, Raw: m[1], Version: v, Where: fmt.Sprintf("image %s of %s %s", img, o.Kind, objectName(o))})
					}
				}
			}
			for _, l := range r.Labels {
				if o.Labels[l.Key] != l.Value {
					continue
				}
				if raw, ok := o.Labels[l.VersionLabel]; ok {
					v, _ := semver.Parse(raw)
					consider(Detected{Component: r.Component, Raw: raw, Version: v, Where: fmt.Sprintf("label %s of %s %s", l.VersionLabel, o.Kind, objectName(o))})
				}
			}
		}
	}
	out := make([]Detected, 0, len(best))
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range best {
			if !yield(k) {
				return
			}
		}
	}) {
		out = append(out, best[name])
	}
	return out
}

func objectName(o Object) string {
	if o.Namespace == "" {
		return o.Name
	}
	return o.Namespace + "/" + o.Name
}

// Nodes summarises the Nodes: the lowest kubelet minor (what the skew is
// counted from), and whether any runs RKE2 (a "+rke2" build).
func (inv *Inventory) Nodes() (oldest semver.Version, count int, rke2 bool) {
	for _, o := range inv.Objects {
		if o.Kind != "Node" || o.KubeletVersion == "" {
			continue
		}
		v, err := semver.Parse(o.KubeletVersion)
		if err != nil {
			continue
		}
		count++
		if strings.Contains(v.Build, "rke2") {
			rke2 = true
		}
		if oldest.IsZero() || v.CompareMinor(oldest) < 0 {
			oldest = v.MinorOnly()
		}
	}
	return oldest, count, rke2
}
