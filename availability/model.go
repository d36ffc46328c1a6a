package availability

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Snapshot is what the drain check judges: the nodes, pods, workloads and
// PodDisruptionBudgets of a cluster (or of a set of manifests, where pods
// and statuses are usually absent).
type Snapshot struct {
	Nodes     []Node
	Pods      []Pod
	Workloads []Workload
	PDBs      []PDB
}

// ZoneLabel is the well-known label that places a node in a zone.
const ZoneLabel = "topology.kubernetes.io/zone"

// HostnameLabel is the well-known topology key of a node.
const HostnameLabel = "kubernetes.io/hostname"

// Node is a node of the cluster.
type Node struct {
	Name string
	// Zone is the node's topology.kubernetes.io/zone label; empty when unset.
	Zone         string
	ControlPlane bool
	// Kubelet and Runtime are status.nodeInfo.kubeletVersion and
	// containerRuntimeVersion.
	Kubelet, Runtime string
}

// Pod is a pod as the disruption controller sees it.
type Pod struct {
	Namespace, Name string
	Labels          map[string]string
	// Node is spec.nodeName; empty when the pod is not scheduled.
	Node string
	// Owner is the controller owner reference, "Kind/name"; empty when none.
	Owner string
	// Healthy is true when the pod's Ready condition is True: the disruption
	// controller counts such pods in currentHealthy.
	Healthy bool
	// Terminating is true when the pod has a deletion timestamp or has
	// finished (Succeeded, Failed); such pods are ignored.
	Terminating bool
	Images      []string
}

// Workload is a Deployment or a StatefulSet.
type Workload struct {
	Kind, Namespace, Name string
	// Replicas is spec.replicas (1 when unset).
	Replicas int32
	Selector *metav1.LabelSelector
	// TemplateLabels are the labels of the pod template.
	TemplateLabels map[string]string
	Containers     []Container
	// GracePeriodSeconds is the pod template's terminationGracePeriodSeconds;
	// nil means the Kubernetes default (30 s).
	GracePeriodSeconds *int64
	// SpreadKeys are the topology keys of the template's
	// topologySpreadConstraints and required pod anti-affinity terms.
	SpreadKeys []string
	// Status is the workload's status; zero in manifests.
	Status WorkloadStatus
}

// WorkloadStatus is the part of a workload's status that tells a rollout
// in progress.
type WorkloadStatus struct {
	// Known is false when the object carried no status (manifests).
	Known                                               bool
	Generation, ObservedGeneration                      int64
	UpdatedReplicas, ReadyReplicas, UnavailableReplicas int32
	// CurrentRevision and UpdateRevision are a StatefulSet's revisions.
	CurrentRevision, UpdateRevision string
}

// Container is a container of a workload's pod template.
type Container struct {
	Name string
	// PreStop is true when the container has a preStop hook of any kind.
	PreStop bool
	// PreStopSleepSeconds is the duration of a preStop sleep action (or of
	// an exec hook running `sleep N`); zero when unknown or absent.
	PreStopSleepSeconds int64
}

// PDB is a PodDisruptionBudget.
type PDB struct {
	Namespace, Name string
	Generation      int64
	// Selector nil selects no pod; an empty selector selects every pod of
	// the namespace (policy/v1).
	Selector                     *metav1.LabelSelector
	MinAvailable, MaxUnavailable *intstr.IntOrString
	// UnhealthyPodEvictionPolicy is "IfHealthyBudget" (the default when
	// empty) or "AlwaysAllow".
	UnhealthyPodEvictionPolicy string
	// Status is nil when the object carried no status (manifests) or when
	// the disruption controller has not observed its generation yet.
	Status *PDBStatus
}

// PDBStatus is a PodDisruptionBudget's status.
type PDBStatus struct {
	ObservedGeneration                                               int64
	DisruptionsAllowed, CurrentHealthy, DesiredHealthy, ExpectedPods int32
}

// AlwaysAllow is the unhealthyPodEvictionPolicy that lets unhealthy pods be
// evicted whatever the budget says.
const AlwaysAllow = "AlwaysAllow"
