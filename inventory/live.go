package inventory

import (
	"encoding/json"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"gitlab.com/sylva-projects/sylva-planner/availability"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/removedapis"
)

// Facts is what the drain and removed-API checks judge, read from a live
// cluster (package inventory/inventorykube) or from manifests (Scan).
type Facts struct {
	// Source names where the facts come from.
	Source   string
	Snapshot availability.Snapshot
	// Uses are the API versions objects were written with.
	Uses []removedapis.Use
	// Inventory holds the objects running versions are detected from.
	Inventory *Inventory
	// Checks say what could be read: assessed, partial (with what was
	// refused) or not assessed.
	Checks []planner.Check
}

// lastApplied is the annotation kubectl apply records the applied object in.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// APIUses returns the API versions meta says the object was written with:
// the distinct apiVersions of its managedFields, or, without managed fields,
// the apiVersion of its last-applied-configuration annotation. kind is the
// object's kind; current is the version it was read with, left out.
func APIUses(kind, current string, meta *metav1.ObjectMeta) []removedapis.Use {
	var out []removedapis.Use
	seen := map[string]bool{current: true}
	for _, mf := range meta.ManagedFields {
		if mf.APIVersion == "" || seen[mf.APIVersion] {
			continue
		}
		seen[mf.APIVersion] = true
		out = append(out, removedapis.Use{APIVersion: mf.APIVersion, Kind: kind, Namespace: meta.Namespace, Name: meta.Name, Where: "managedFields"})
	}
	if len(meta.ManagedFields) > 0 {
		return out
	}
	if la := meta.Annotations[lastApplied]; la != "" {
		var head struct {
			APIVersion string `json:"apiVersion"`
		}
		if json.Unmarshal([]byte(la), &head) == nil && head.APIVersion != "" && !seen[head.APIVersion] {
			out = append(out, removedapis.Use{APIVersion: head.APIVersion, Kind: kind, Namespace: meta.Namespace, Name: meta.Name, Where: "last-applied-configuration"})
		}
	}
	return out
}

// NodeOf returns the drain model of a Node.
func NodeOf(n *corev1.Node) availability.Node {
	_, cp := n.Labels["node-role.kubernetes.io/control-plane"]
	if !cp {
		_, cp = n.Labels["node-role.kubernetes.io/master"]
	}
	return availability.Node{
		Name: n.Name, Zone: n.Labels[availability.ZoneLabel], ControlPlane: cp,
		Kubelet: n.Status.NodeInfo.KubeletVersion, Runtime: n.Status.NodeInfo.ContainerRuntimeVersion,
	}
}

// PodOf returns the drain model of a Pod.
func PodOf(p *corev1.Pod) availability.Pod {
	out := availability.Pod{
		Namespace: p.Namespace, Name: p.Name, Labels: p.Labels, Node: p.Spec.NodeName,
		Terminating: p.DeletionTimestamp != nil || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed,
	}
	if ref := metav1.GetControllerOfNoCopy(p); ref != nil {
		out.Owner = ref.Kind + "/" + ref.Name
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
			out.Healthy = true
		}
	}
	for _, c := range p.Spec.InitContainers {
		out.Images = append(out.Images, c.Image)
	}
	for _, c := range p.Spec.Containers {
		out.Images = append(out.Images, c.Image)
	}
	return out
}

// DeploymentOf returns the drain model of a Deployment.
func DeploymentOf(d *appsv1.Deployment) availability.Workload {
	w := workloadOf("Deployment", &d.ObjectMeta, d.Spec.Replicas, d.Spec.Selector, &d.Spec.Template)
	st := d.Status
	w.Status = availability.WorkloadStatus{
		Known: st.ObservedGeneration > 0, Generation: d.Generation, ObservedGeneration: st.ObservedGeneration,
		UpdatedReplicas: st.UpdatedReplicas, ReadyReplicas: st.ReadyReplicas, UnavailableReplicas: st.UnavailableReplicas,
	}
	return w
}

// StatefulSetOf returns the drain model of a StatefulSet.
func StatefulSetOf(s *appsv1.StatefulSet) availability.Workload {
	w := workloadOf("StatefulSet", &s.ObjectMeta, s.Spec.Replicas, s.Spec.Selector, &s.Spec.Template)
	st := s.Status
	w.Status = availability.WorkloadStatus{
		Known: st.ObservedGeneration > 0, Generation: s.Generation, ObservedGeneration: st.ObservedGeneration,
		UpdatedReplicas: st.UpdatedReplicas, ReadyReplicas: st.ReadyReplicas, CurrentRevision: st.CurrentRevision, UpdateRevision: st.UpdateRevision,
	}
	if st.ObservedGeneration > 0 && st.ReadyReplicas < w.Replicas {
		w.Status.UnavailableReplicas = w.Replicas - st.ReadyReplicas
	}
	return w
}

func workloadOf(kind string, meta *metav1.ObjectMeta, replicas *int32, sel *metav1.LabelSelector, tpl *corev1.PodTemplateSpec) availability.Workload {
	w := availability.Workload{
		Kind: kind, Namespace: meta.Namespace, Name: meta.Name, Replicas: 1, Selector: sel,
		TemplateLabels: tpl.Labels, GracePeriodSeconds: tpl.Spec.TerminationGracePeriodSeconds,
	}
	if replicas != nil {
		w.Replicas = *replicas
	}
	for _, c := range tpl.Spec.Containers {
		ct := availability.Container{Name: c.Name}
		if c.Lifecycle != nil && c.Lifecycle.PreStop != nil {
			ct.PreStop = true
			ct.PreStopSleepSeconds = sleepSeconds(c.Lifecycle.PreStop)
		}
		w.Containers = append(w.Containers, ct)
	}
	for _, tsc := range tpl.Spec.TopologySpreadConstraints {
		w.SpreadKeys = append(w.SpreadKeys, tsc.TopologyKey)
	}
	if a := tpl.Spec.Affinity; a != nil && a.PodAntiAffinity != nil {
		for _, term := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
			w.SpreadKeys = append(w.SpreadKeys, term.TopologyKey)
		}
		for _, term := range a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			w.SpreadKeys = append(w.SpreadKeys, term.PodAffinityTerm.TopologyKey)
		}
	}
	return w
}

// sleepSeconds reads the duration of a sleep action, or of an exec hook
// running `sleep N` (possibly through a shell).
func sleepSeconds(h *corev1.LifecycleHandler) int64 {
	if h.Sleep != nil {
		return h.Sleep.Seconds
	}
	if h.Exec == nil {
		return 0
	}
	fields := strings.Fields(strings.Join(h.Exec.Command, " "))
	for i := 0; i+1 < len(fields); i++ {
		if strings.HasSuffix(fields[i], "sleep") {
			if n, err := strconv.ParseFloat(strings.Trim(fields[i+1], `"';`), 64); err == nil {
				return int64(n)
			}
		}
	}
	return 0
}

// PDBOf returns the drain model of a PodDisruptionBudget.
func PDBOf(b *policyv1.PodDisruptionBudget) availability.PDB {
	out := availability.PDB{
		Namespace: b.Namespace, Name: b.Name, Generation: b.Generation, Selector: b.Spec.Selector,
		MinAvailable: b.Spec.MinAvailable, MaxUnavailable: b.Spec.MaxUnavailable,
	}
	if b.Spec.UnhealthyPodEvictionPolicy != nil {
		out.UnhealthyPodEvictionPolicy = string(*b.Spec.UnhealthyPodEvictionPolicy)
	}
	if st := b.Status; st.ObservedGeneration > 0 {
		out.Status = &availability.PDBStatus{
			ObservedGeneration: st.ObservedGeneration, DisruptionsAllowed: st.DisruptionsAllowed,
			CurrentHealthy: st.CurrentHealthy, DesiredHealthy: st.DesiredHealthy, ExpectedPods: st.ExpectedPods,
		}
	}
	return out
}

// ObjectOf returns the inventory object of a live object, for Detect.
func ObjectOf(apiVersion, kind string, meta *metav1.ObjectMeta, images []string) Object {
	return Object{
		APIVersion: apiVersion, Kind: kind, Namespace: meta.Namespace, Name: meta.Name, Labels: meta.Labels, Images: images,
		File: "cluster",
	}
}

// Images returns the container images of a pod spec.
func Images(spec *corev1.PodSpec) []string {
	var out []string
	for _, c := range spec.InitContainers {
		out = append(out, c.Image)
	}
	for _, c := range spec.Containers {
		out = append(out, c.Image)
	}
	return out
}
