package action

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"gitlab.com/sylva-projects/sylva-planner/inventory"
	"gitlab.com/sylva-projects/sylva-planner/status"
	"gitlab.com/sylva-projects/sylva-planner/values/helmengine"
)

// StatusSource reads the sylva-units-status ConfigMap (and, live, the Flux
// objects beside it): from a file or a live cluster.
type StatusSource interface {
	Observation(ctx context.Context) (status.Observation, error)
	// Input names what was read, for the plan's header ("status FILE",
	// "status live NAMESPACE/sylva-units-status (context NAME)"); it is
	// asked after Observation.
	Input() string
}

// FactsSource reads the facts of what runs: from manifests or a live
// cluster.
type FactsSource interface {
	Facts(ctx context.Context) (*inventory.Facts, error)
	// Input names what was read, as StatusSource.Input.
	Input() string
}

// Manifests is the FactsSource of a directory of manifests (kubectl get
// -A -o yaml dumps, Helm release Secrets), walked once by inventory.Scan.
type Manifests struct {
	// FS is the directory; Dir names it in messages and in the plan
	// ("manifests in DIR"), with forward slashes.
	FS  fs.FS
	Dir string
	// Flag names the option that gave the directory in errors
	// ("--inventory").
	Flag string
}

// Facts scans the manifests.
func (m Manifests) Facts(context.Context) (*inventory.Facts, error) {
	f, err := inventory.Scan(m.FS, m.Source())
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", m.Flag, m.Dir, err)
	}
	return f, nil
}

// manifestsIn prefixes the source of facts read from manifests.
const manifestsIn = "manifests in "

// Source is how the facts name the manifests.
func (m Manifests) Source() string { return manifestsIn + m.Dir }

// Input names the manifests in the plan's header.
func (m Manifests) Input() string { return "inventory " + m.Dir }

// StatusFile is the StatusSource of a file: the sylva-units-status
// ConfigMap, or a List with it and the Flux objects (of several
// namespaces, the objects of Namespace), read with Read, whose errors name
// the file and the flag.
type StatusFile struct {
	Read func(name string) ([]byte, error)
	// Flag names the option that gave the file in errors ("--status").
	Flag, Name             string
	HelmRelease, Namespace string
}

// Observation reads and decodes the file.
func (s StatusFile) Observation(context.Context) (status.Observation, error) {
	data, err := s.Read(s.Name)
	if err != nil {
		return status.Observation{}, err
	}
	obs, err := status.DecodeNamespaceObservation(data, s.HelmRelease, s.Namespace)
	if err != nil {
		return status.Observation{}, fmt.Errorf("%s %s: %w", s.Flag, s.Name, err)
	}
	return obs, nil
}

// Input names the file in the plan's header.
func (s StatusFile) Input() string { return "status " + filepath.ToSlash(s.Name) }

// FleetFile is a FleetSource over a file: a List of every namespace's
// ConfigMaps, Kustomizations and HelmReleases, read with Read, whose
// errors name the file and the flag.
type FleetFile struct {
	Read func(name string) ([]byte, error)
	// Flag names the option that gave the file in errors ("--file").
	Flag, Name, HelmRelease string
}

// Fleet reads and decodes the file.
func (s FleetFile) Fleet(context.Context) ([]status.FleetEntry, error) {
	data, err := s.Read(s.Name)
	if err != nil {
		return nil, err
	}
	entries, err := status.DecodeFleet(data, s.HelmRelease)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w; give the List `kubectl get configmaps,kustomizations,helmreleases -A -o yaml` prints", s.Flag, s.Name, err)
	}
	return entries, nil
}

// Input names the file in the headers.
func (s FleetFile) Input() string { return "status " + filepath.ToSlash(s.Name) }

// Cluster builds the sources of a live cluster (package live builds them;
// cmd hands one in, as action builds no client). Each connects when it is
// first read.
type Cluster interface {
	// Status reads the status objects of a release namespace.
	Status(namespace, helmRelease string) StatusSource
	// Fleet reads the status objects of every namespace.
	Fleet(helmRelease string) FleetSource
	// Facts reads what runs: workloads, budgets, nodes, APIs.
	Facts() FactsSource
	// Nodes reads only the nodes and the DaemonSets' images.
	Nodes() FactsSource
	// Objects serves lookup, read-only.
	Objects() (helmengine.Source, error)
}

// Readers is where the inputs a command line names are read: files and
// directories ("-" is standard input; relative names as the command line
// resolves them), and the cluster of a kubeconfig and context. cmd
// provides it.
type Readers struct {
	// ReadFile reads the file name given with flag; its errors name the
	// flag. Read is ReadFile without the flag in its errors.
	ReadFile func(flag, name string) ([]byte, error)
	Read     func(name string) ([]byte, error)
	// DirFS is the directory name as a file system.
	DirFS func(name string) fs.FS
	// Cluster is the live cluster of kubeconfig and context (empty: the
	// kubeconfig rule's default).
	Cluster func(kubeconfig, context string) Cluster
}

// Sources are the inputs a command line names, as given, read through
// Readers: a file of the status objects (File, given with FileFlag:
// --file unless it says), a directory of manifests (Inventory, given with
// --inventory), the cluster of Kubeconfig and Context, and the release
// (Namespace, HelmRelease). Live says the cluster was asked for (--live,
// --kubeconfig or --context) where a command is offline unless asked.
type Sources struct {
	Readers
	File, FileFlag         string
	Inventory              string
	Live                   bool
	Kubeconfig, Context    string
	Namespace, HelmRelease string
}

// fileFlag is the flag that named File.
func (s Sources) fileFlag() string { return cmp.Or(s.FileFlag, "--file") }

// read reads the files of flag.
func (s Sources) read(flag string) func(string) ([]byte, error) {
	return func(name string) ([]byte, error) { return s.ReadFile(flag, name) }
}

// cluster is the cluster of the connection.
func (s Sources) cluster() Cluster { return s.Cluster(s.Kubeconfig, s.Context) }

// Status is the status of the release: File, or the cluster's.
func (s Sources) Status() StatusSource {
	if s.File != "" {
		return StatusFile{Read: s.read(s.fileFlag()), Flag: s.fileFlag(), Name: s.File, HelmRelease: s.HelmRelease, Namespace: s.Namespace}
	}
	return s.cluster().Status(s.Namespace, s.HelmRelease)
}

// Fleet is the status of every namespace: File, or the cluster's.
func (s Sources) Fleet() FleetSource {
	if s.File != "" {
		return FleetFile{Read: s.read(s.fileFlag()), Flag: s.fileFlag(), Name: s.File, HelmRelease: s.HelmRelease}
	}
	return s.cluster().Fleet(s.HelmRelease)
}

// Manifests is the directory of Inventory, or the one manifest file it
// names (read as a directory that holds it alone), refused when it is
// neither; nil without one.
func (s Sources) Manifests() (FactsSource, error) {
	if s.Inventory == "" {
		return nil, nil
	}
	fsys := s.DirFS(s.Inventory)
	if st, err := fs.Stat(fsys, "."); err == nil && st.IsDir() {
		return Manifests{FS: fsys, Dir: filepath.ToSlash(s.Inventory), Flag: "--inventory"}, nil
	}
	dir, name := filepath.Split(s.Inventory)
	if st, err := fs.Stat(s.DirFS(cmp.Or(dir, ".")), name); err == nil && st.Mode().IsRegular() {
		return Manifests{FS: oneFile{fsys: s.DirFS(cmp.Or(dir, ".")), name: name}, Dir: filepath.ToSlash(s.Inventory), Flag: "--inventory"}, nil
	}
	return nil, fmt.Errorf("--inventory %s: not a readable directory or manifest file; give a directory of manifests (kubectl get -A -o yaml dumps) or one such file", s.Inventory)
}

// oneFile is a directory seen as holding its file name alone: an
// --inventory that names one manifest file.
type oneFile struct {
	fsys fs.FS
	name string
}

func (o oneFile) Open(name string) (fs.File, error) {
	if name != "." && name != o.name {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return o.fsys.Open(name)
}

// ReadDir lists the file alone, so that a walk of the directory reads
// nothing else.
func (o oneFile) ReadDir(name string) ([]fs.DirEntry, error) {
	if name != "." {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	st, err := fs.Stat(o.fsys, o.name)
	if err != nil {
		return nil, err
	}
	return []fs.DirEntry{fs.FileInfoToDirEntry(st)}, nil
}

// readInput reads the file given with flag (none when name is empty) and
// parses it; the error names the flag and the file.
func readInput[T any](s Sources, flag, name string, parse func([]byte) (T, error)) (T, error) {
	var zero T
	if name == "" {
		return zero, nil
	}
	data, err := s.Read(name)
	if err == nil {
		var v T
		if v, err = parse(data); err == nil {
			return v, nil
		}
	}
	return zero, fmt.Errorf("%s %s: %w", flag, name, err)
}

// Lookup serves lookup, when first asked, from the file File (--status,
// the status of Namespace) and the objects files (--object), or read-only
// from the cluster when Live.
func (s Sources) Lookup(objects []string) func() (helmengine.Source, error) {
	return func() (helmengine.Source, error) {
		if !s.Live {
			return LookupFiles(s.ReadFile, s.File, s.Namespace, objects)
		}
		if s.File != "" || len(objects) > 0 {
			return nil, errors.New("give either --status/--object files or --live (--kubeconfig/--context), not both")
		}
		return s.cluster().Objects()
	}
}

// ValuesFiles reads the values files names, given with flag (-f), in
// order.
func (in Readers) ValuesFiles(flag string, names []string) ([]helmengine.File, error) {
	var out []helmengine.File
	for _, name := range names {
		data, err := in.ReadFile(flag, name)
		if err != nil {
			return nil, err
		}
		out = append(out, helmengine.File{Name: name, Data: data})
	}
	return out, nil
}
