package action

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"

	"gitlab.com/sylva-projects/sylva-planner/inventory"
	"gitlab.com/sylva-projects/sylva-planner/status"
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
