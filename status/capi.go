package status

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"gitlab.com/sylva-projects/sylva-planner/semver"
)

// This file is what the Cluster API objects of a release namespace say of
// its cluster: the management cluster holds, in each workload cluster's
// namespace, the control plane object and the MachineDeployments the
// chart's cluster unit renders (domain §2d), and in sylva-system its own.

// ClusterKind says which cluster of a fleet a release is for.
type ClusterKind string

// Cluster kinds, spelled as plan --cluster takes them.
const (
	// ClusterManagement is the management cluster's release, in
	// DefaultNamespace.
	ClusterManagement ClusterKind = "management"
	// ClusterWorkload is a workload cluster's release, in its own
	// namespace of the management cluster.
	ClusterWorkload ClusterKind = "workload"
)

// ClusterKindOf is the kind of the release in namespace: management for
// DefaultNamespace (and for no namespace, which reads as it), else
// workload.
func ClusterKindOf(namespace string) ClusterKind {
	if namespace == "" || namespace == DefaultNamespace {
		return ClusterManagement
	}
	return ClusterWorkload
}

// Group names and kinds of the Cluster API objects read.
const (
	// ClusterAPIGroup is the group of MachineDeployments.
	ClusterAPIGroup = "cluster.x-k8s.io"
	// ControlPlaneGroup is the group of the control plane kinds.
	ControlPlaneGroup = "controlplane.cluster.x-k8s.io"
	// KindMachineDeployment is a MachineDeployment's kind.
	KindMachineDeployment = "MachineDeployment"
	// ControlPlaneSuffix ends the name of the control plane object the
	// chart renders: <cluster name>-control-plane.
	ControlPlaneSuffix = "-control-plane"
)

// ControlPlaneKinds are the control plane kinds of the bootstrap
// providers Sylva uses (cabpk, cabpr, cabpck, cabpoa), in group
// ControlPlaneGroup.
var ControlPlaneKinds = []string{"KubeadmControlPlane", "RKE2ControlPlane", "CK8sControlPlane", "OpenshiftAssistedControlPlane"}

// CAPIObject is one Cluster API object of a release namespace, as plain
// values.
type CAPIObject struct {
	// Kind is the object's kind (KubeadmControlPlane, MachineDeployment).
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Version is the Kubernetes version the object asks for, as written:
	// spec.version of a control plane, spec.template.spec.version of a
	// MachineDeployment ("v1.29.15", "v1.31.8+rke2r1"); empty when absent.
	Version string `json:"version,omitempty"`
}

// Field is where o's Version is written: spec.version, or
// spec.template.spec.version for a MachineDeployment.
func (o CAPIObject) Field() string {
	if o.Kind == KindMachineDeployment {
		return "spec.template.spec.version"
	}
	return "spec.version"
}

// String names o and its version: "KubeadmControlPlane
// wl1/wl1-control-plane spec.version v1.29.15".
func (o CAPIObject) String() string {
	v := o.Version
	if v == "" {
		v = "(none)"
	}
	return fmt.Sprintf("%s %s/%s %s %s", o.Kind, o.Namespace, o.Name, o.Field(), v)
}

// minor is o's Version reduced to its minor ("1.29"); false when it does
// not parse.
func (o CAPIObject) minor() (semver.Version, bool) {
	v, err := semver.Parse(o.Version)
	if err != nil {
		return semver.Version{}, false
	}
	return v.MinorOnly(), true
}

// Kubernetes is what the Cluster API objects of a release namespace say of
// its cluster's Kubernetes: the control plane's minor and the oldest minor
// of its MachineDeployments (what the workers run at the least), and the
// objects they were read from.
type Kubernetes struct {
	// ControlPlane is the control plane object's minor ("1.29"); empty
	// when there is none or its version does not parse.
	ControlPlane string `json:"controlPlane,omitempty"`
	// Workers is the oldest minor of the MachineDeployments; empty when
	// there is none.
	Workers string `json:"workers,omitempty"`
	// Source names the objects read, control plane first, then the
	// MachineDeployment whose minor is Workers: "KubeadmControlPlane
	// wl1/wl1-control-plane spec.version v1.29.15; MachineDeployment
	// wl1/wl1-md0 spec.template.spec.version v1.28.9".
	Source string `json:"source,omitempty"`
}

// IsZero is true when nothing was read.
func (k Kubernetes) IsZero() bool { return k == Kubernetes{} }

// Describe says k in words: "control plane 1.29, workers 1.28 (read from
// …)".
func (k Kubernetes) Describe() string {
	out := "control plane " + cmp.Or(k.ControlPlane, "unknown")
	if k.Workers != "" {
		out += ", workers " + k.Workers
	}
	if k.Source != "" {
		out += " (" + k.Source + ")"
	}
	return out
}

// ControlPlaneObject is the control plane object of the namespace: of
// obs.ControlPlanes, the one whose name ends in ControlPlaneSuffix (as
// the chart names it), else the first by kind and name; false when there
// is none.
func (obs Observation) ControlPlaneObject() (CAPIObject, bool) {
	if len(obs.ControlPlanes) == 0 {
		return CAPIObject{}, false
	}
	cps := slices.Clone(obs.ControlPlanes)
	slices.SortFunc(cps, func(a, b CAPIObject) int {
		as, bs := strings.HasSuffix(a.Name, ControlPlaneSuffix), strings.HasSuffix(b.Name, ControlPlaneSuffix)
		if as != bs {
			if as {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Name, b.Name))
	})
	return cps[0], true
}

// Kubernetes is what obs's Cluster API objects say of its cluster's
// Kubernetes minors; zero when it holds none. A version that does not
// parse is left out of the minors but named in Source.
func (obs Observation) Kubernetes() Kubernetes {
	var k Kubernetes
	var src []string
	if cp, ok := obs.ControlPlaneObject(); ok {
		src = append(src, cp.String())
		if v, ok := cp.minor(); ok {
			k.ControlPlane = v.Short()
		}
	}
	mds := slices.Clone(obs.MachineDeployments)
	slices.SortFunc(mds, func(a, b CAPIObject) int { return cmp.Compare(a.Name, b.Name) })
	var oldest *CAPIObject
	var oldestV semver.Version
	for i := range mds {
		v, ok := mds[i].minor()
		if !ok {
			continue
		}
		if oldest == nil || v.CompareMinor(oldestV) < 0 {
			oldest, oldestV = &mds[i], v
		}
	}
	if oldest != nil {
		k.Workers = oldestV.Short()
		src = append(src, oldest.String())
	}
	k.Source = strings.Join(src, "; ")
	return k
}

// KubernetesMinors is what a plan of the release takes from its Cluster
// API objects: the control plane's minor (plan --kubernetes), the
// workers' (plan --workers: the oldest MachineDeployment's, or the control
// plane's when there is none) and where they were read. ok is false when
// no control plane object with a version that parses was read: the plan
// then has nothing from the cluster.
func (obs Observation) KubernetesMinors() (controlPlane, workers, source string, ok bool) {
	k := obs.Kubernetes()
	if k.ControlPlane == "" {
		return "", "", "", false
	}
	return k.ControlPlane, cmp.Or(k.Workers, k.ControlPlane), k.Source, true
}

// CAPIObjectFromMap reads a Cluster API object in its unstructured form (a
// control plane of ControlPlaneKinds in ControlPlaneGroup, or a
// MachineDeployment in ClusterAPIGroup): its kind, namespace, name and the
// version it asks for. false when obj is of none of those kinds. A version
// that is not a string reads as absent.
func CAPIObjectFromMap(obj map[string]any) (CAPIObject, bool) {
	kind, _ := obj["kind"].(string)
	group, _, _ := strings.Cut(apiVersion(obj), "/")
	var path []string
	switch {
	case group == ClusterAPIGroup && kind == KindMachineDeployment:
		path = []string{"spec", "template", "spec", "version"}
	case group == ControlPlaneGroup && slices.Contains(ControlPlaneKinds, kind):
		path = []string{"spec", "version"}
	default:
		return CAPIObject{}, false
	}
	o := CAPIObject{Kind: kind}
	o.Name, _ = nested(obj, "metadata", "name").(string)
	o.Namespace, _ = nested(obj, "metadata", "namespace").(string)
	o.Version, _ = nested(obj, path...).(string)
	return o, true
}

// Add puts o among obs's ControlPlanes or MachineDeployments, by its kind.
func (obs *Observation) Add(o CAPIObject) {
	if o.Kind == KindMachineDeployment {
		obs.MachineDeployments = append(obs.MachineDeployments, o)
		return
	}
	obs.ControlPlanes = append(obs.ControlPlanes, o)
}
