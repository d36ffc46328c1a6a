package main

import "gitlab.com/sylva-projects/sylva-planner/removedapis"

// guide is the Kubernetes Deprecated API Migration Guide; each anchor lists
// the API versions no longer served from that minor on.
const guide = "https://kubernetes.io/docs/reference/using-api/deprecation-guide/"

// supplement lists removed API versions whose types k8s.io/api no longer
// carries (so their lifecycle methods are gone), each with the section of
// the migration guide that states it. Generated entries win when both exist.
var supplement = []removedapis.API{
	// v1.16: https://kubernetes.io/docs/reference/using-api/deprecation-guide/#v1-16
	{Group: "extensions", Version: "v1beta1", Kind: "DaemonSet", Removed: "1.16", Replacement: "apps/v1 DaemonSet", Source: guide + "#v1-16"},
	{Group: "apps", Version: "v1beta2", Kind: "DaemonSet", Removed: "1.16", Replacement: "apps/v1 DaemonSet", Source: guide + "#v1-16"},
	{Group: "extensions", Version: "v1beta1", Kind: "Deployment", Removed: "1.16", Replacement: "apps/v1 Deployment", Source: guide + "#v1-16"},
	{Group: "apps", Version: "v1beta1", Kind: "Deployment", Removed: "1.16", Replacement: "apps/v1 Deployment", Source: guide + "#v1-16"},
	{Group: "apps", Version: "v1beta2", Kind: "Deployment", Removed: "1.16", Replacement: "apps/v1 Deployment", Source: guide + "#v1-16"},
	{Group: "apps", Version: "v1beta1", Kind: "StatefulSet", Removed: "1.16", Replacement: "apps/v1 StatefulSet", Source: guide + "#v1-16"},
	{Group: "apps", Version: "v1beta2", Kind: "StatefulSet", Removed: "1.16", Replacement: "apps/v1 StatefulSet", Source: guide + "#v1-16"},
	{Group: "extensions", Version: "v1beta1", Kind: "ReplicaSet", Removed: "1.16", Replacement: "apps/v1 ReplicaSet", Source: guide + "#v1-16"},
	{Group: "apps", Version: "v1beta1", Kind: "ReplicaSet", Removed: "1.16", Replacement: "apps/v1 ReplicaSet", Source: guide + "#v1-16"},
	{Group: "apps", Version: "v1beta2", Kind: "ReplicaSet", Removed: "1.16", Replacement: "apps/v1 ReplicaSet", Source: guide + "#v1-16"},
	{Group: "extensions", Version: "v1beta1", Kind: "NetworkPolicy", Removed: "1.16", Replacement: "networking.k8s.io/v1 NetworkPolicy", Source: guide + "#v1-16"},
	{Group: "extensions", Version: "v1beta1", Kind: "PodSecurityPolicy", Removed: "1.16", Replacement: "policy/v1beta1 PodSecurityPolicy", Source: guide + "#v1-16"},

	// v1.22: https://kubernetes.io/docs/reference/using-api/deprecation-guide/#v1-22
	{Group: "admissionregistration.k8s.io", Version: "v1beta1", Kind: "MutatingWebhookConfiguration", Deprecated: "1.16", Removed: "1.22", Replacement: "admissionregistration.k8s.io/v1 MutatingWebhookConfiguration", Source: guide + "#v1-22"},
	{Group: "admissionregistration.k8s.io", Version: "v1beta1", Kind: "ValidatingWebhookConfiguration", Deprecated: "1.16", Removed: "1.22", Replacement: "admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration", Source: guide + "#v1-22"},
	{Group: "apiextensions.k8s.io", Version: "v1beta1", Kind: "CustomResourceDefinition", Deprecated: "1.16", Removed: "1.22", Replacement: "apiextensions.k8s.io/v1 CustomResourceDefinition", Source: guide + "#v1-22"},
	{Group: "apiregistration.k8s.io", Version: "v1beta1", Kind: "APIService", Deprecated: "1.19", Removed: "1.22", Replacement: "apiregistration.k8s.io/v1 APIService", Source: guide + "#v1-22"},
	{Group: "authentication.k8s.io", Version: "v1beta1", Kind: "TokenReview", Deprecated: "1.19", Removed: "1.22", Replacement: "authentication.k8s.io/v1 TokenReview", Source: guide + "#v1-22"},
	{Group: "authorization.k8s.io", Version: "v1beta1", Kind: "SubjectAccessReview", Deprecated: "1.19", Removed: "1.22", Replacement: "authorization.k8s.io/v1 SubjectAccessReview", Source: guide + "#v1-22"},
	{Group: "certificates.k8s.io", Version: "v1beta1", Kind: "CertificateSigningRequest", Deprecated: "1.19", Removed: "1.22", Replacement: "certificates.k8s.io/v1 CertificateSigningRequest", Source: guide + "#v1-22"},
	{Group: "coordination.k8s.io", Version: "v1beta1", Kind: "Lease", Deprecated: "1.19", Removed: "1.22", Replacement: "coordination.k8s.io/v1 Lease", Source: guide + "#v1-22"},
	{Group: "extensions", Version: "v1beta1", Kind: "Ingress", Deprecated: "1.14", Removed: "1.22", Replacement: "networking.k8s.io/v1 Ingress", Source: guide + "#v1-22"},
	{Group: "networking.k8s.io", Version: "v1beta1", Kind: "Ingress", Deprecated: "1.19", Removed: "1.22", Replacement: "networking.k8s.io/v1 Ingress", Source: guide + "#v1-22"},
	{Group: "networking.k8s.io", Version: "v1beta1", Kind: "IngressClass", Deprecated: "1.19", Removed: "1.22", Replacement: "networking.k8s.io/v1 IngressClass", Source: guide + "#v1-22"},
	{Group: "rbac.authorization.k8s.io", Version: "v1beta1", Kind: "ClusterRole", Deprecated: "1.17", Removed: "1.22", Replacement: "rbac.authorization.k8s.io/v1 ClusterRole", Source: guide + "#v1-22"},
	{Group: "rbac.authorization.k8s.io", Version: "v1beta1", Kind: "ClusterRoleBinding", Deprecated: "1.17", Removed: "1.22", Replacement: "rbac.authorization.k8s.io/v1 ClusterRoleBinding", Source: guide + "#v1-22"},
	{Group: "rbac.authorization.k8s.io", Version: "v1beta1", Kind: "Role", Deprecated: "1.17", Removed: "1.22", Replacement: "rbac.authorization.k8s.io/v1 Role", Source: guide + "#v1-22"},
	{Group: "rbac.authorization.k8s.io", Version: "v1beta1", Kind: "RoleBinding", Deprecated: "1.17", Removed: "1.22", Replacement: "rbac.authorization.k8s.io/v1 RoleBinding", Source: guide + "#v1-22"},
	{Group: "scheduling.k8s.io", Version: "v1beta1", Kind: "PriorityClass", Deprecated: "1.14", Removed: "1.22", Replacement: "scheduling.k8s.io/v1 PriorityClass", Source: guide + "#v1-22"},
	{Group: "storage.k8s.io", Version: "v1beta1", Kind: "CSIDriver", Deprecated: "1.19", Removed: "1.22", Replacement: "storage.k8s.io/v1 CSIDriver", Source: guide + "#v1-22"},
	{Group: "storage.k8s.io", Version: "v1beta1", Kind: "CSINode", Deprecated: "1.17", Removed: "1.22", Replacement: "storage.k8s.io/v1 CSINode", Source: guide + "#v1-22"},
	{Group: "storage.k8s.io", Version: "v1beta1", Kind: "StorageClass", Deprecated: "1.19", Removed: "1.22", Replacement: "storage.k8s.io/v1 StorageClass", Source: guide + "#v1-22"},
	{Group: "storage.k8s.io", Version: "v1beta1", Kind: "VolumeAttachment", Deprecated: "1.19", Removed: "1.22", Replacement: "storage.k8s.io/v1 VolumeAttachment", Source: guide + "#v1-22"},

	// v1.25: https://kubernetes.io/docs/reference/using-api/deprecation-guide/#v1-25
	{Group: "batch", Version: "v1beta1", Kind: "CronJob", Deprecated: "1.21", Removed: "1.25", Replacement: "batch/v1 CronJob", Source: guide + "#v1-25"},
	{Group: "discovery.k8s.io", Version: "v1beta1", Kind: "EndpointSlice", Deprecated: "1.21", Removed: "1.25", Replacement: "discovery.k8s.io/v1 EndpointSlice", Source: guide + "#v1-25"},
	{Group: "events.k8s.io", Version: "v1beta1", Kind: "Event", Deprecated: "1.22", Removed: "1.25", Replacement: "events.k8s.io/v1 Event", Source: guide + "#v1-25"},
	{Group: "autoscaling", Version: "v2beta1", Kind: "HorizontalPodAutoscaler", Deprecated: "1.22", Removed: "1.25", Replacement: "autoscaling/v2 HorizontalPodAutoscaler", Source: guide + "#v1-25"},
	{Group: "policy", Version: "v1beta1", Kind: "PodDisruptionBudget", Deprecated: "1.21", Removed: "1.25", Replacement: "policy/v1 PodDisruptionBudget", Source: guide + "#v1-25"},
	{Group: "policy", Version: "v1beta1", Kind: "PodSecurityPolicy", Deprecated: "1.21", Removed: "1.25", Source: guide + "#v1-25"},
	{Group: "node.k8s.io", Version: "v1beta1", Kind: "RuntimeClass", Deprecated: "1.22", Removed: "1.25", Replacement: "node.k8s.io/v1 RuntimeClass", Source: guide + "#v1-25"},

	// v1.26: https://kubernetes.io/docs/reference/using-api/deprecation-guide/#v1-26
	{Group: "flowcontrol.apiserver.k8s.io", Version: "v1beta1", Kind: "FlowSchema", Deprecated: "1.23", Removed: "1.26", Replacement: "flowcontrol.apiserver.k8s.io/v1 FlowSchema", Source: guide + "#v1-26"},
	{Group: "flowcontrol.apiserver.k8s.io", Version: "v1beta1", Kind: "PriorityLevelConfiguration", Deprecated: "1.23", Removed: "1.26", Replacement: "flowcontrol.apiserver.k8s.io/v1 PriorityLevelConfiguration", Source: guide + "#v1-26"},
	{Group: "autoscaling", Version: "v2beta2", Kind: "HorizontalPodAutoscaler", Deprecated: "1.23", Removed: "1.26", Replacement: "autoscaling/v2 HorizontalPodAutoscaler", Source: guide + "#v1-26"},

	// v1.27: https://kubernetes.io/docs/reference/using-api/deprecation-guide/#v1-27
	{Group: "storage.k8s.io", Version: "v1beta1", Kind: "CSIStorageCapacity", Deprecated: "1.24", Removed: "1.27", Replacement: "storage.k8s.io/v1 CSIStorageCapacity", Source: guide + "#v1-27"},

	// v1.29: https://kubernetes.io/docs/reference/using-api/deprecation-guide/#v1-29
	{Group: "flowcontrol.apiserver.k8s.io", Version: "v1beta2", Kind: "FlowSchema", Deprecated: "1.26", Removed: "1.29", Replacement: "flowcontrol.apiserver.k8s.io/v1 FlowSchema", Source: guide + "#v1-29"},
	{Group: "flowcontrol.apiserver.k8s.io", Version: "v1beta2", Kind: "PriorityLevelConfiguration", Deprecated: "1.26", Removed: "1.29", Replacement: "flowcontrol.apiserver.k8s.io/v1 PriorityLevelConfiguration", Source: guide + "#v1-29"},

	// v1.32: https://kubernetes.io/docs/reference/using-api/deprecation-guide/#v1-32
	{Group: "flowcontrol.apiserver.k8s.io", Version: "v1beta3", Kind: "FlowSchema", Deprecated: "1.29", Removed: "1.32", Replacement: "flowcontrol.apiserver.k8s.io/v1 FlowSchema", Source: guide + "#v1-32"},
	{Group: "flowcontrol.apiserver.k8s.io", Version: "v1beta3", Kind: "PriorityLevelConfiguration", Deprecated: "1.29", Removed: "1.32", Replacement: "flowcontrol.apiserver.k8s.io/v1 PriorityLevelConfiguration", Source: guide + "#v1-32"},
}
