package inventorykube

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"

	"gitlab.com/sylva-projects/sylva-planner/inventory"
	"gitlab.com/sylva-projects/sylva-planner/planner"
	"gitlab.com/sylva-projects/sylva-planner/removedapis"
)

// Check names, stable: they appear in plans and drain checks.
const (
	CheckInventory  = "live-inventory"
	CheckPDBs       = "drain-pdbs"
	CheckWorkloads  = "drain-workloads"
	CheckPods       = "drain-pods"
	CheckNodes      = "drain-nodes"
	CheckAPIs       = "api-versions"
	CheckMetric     = "deprecated-api-requests"
	CheckHelm       = "helm-releases"
	defaultPageSize = 500
	defaultTimeout  = 60 * time.Second
)

// Options tune Collect.
type Options struct {
	// Context is the kubeconfig context, named in the source and errors.
	Context string
	// PageSize is the Limit of each list request; 500 when zero.
	PageSize int64
}

// metadataOnly are the resources read only for the API versions their
// objects were written with: the kinds whose older versions Kubernetes
// removed.
var metadataOnly = []struct {
	gvr  schema.GroupVersionResource
	kind string
}{
	{schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "daemonsets"}, "DaemonSet"},
	{schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "cronjobs"}, "CronJob"},
	{schema.GroupVersionResource{Group: "networking.k8s.io", Version: "v1", Resource: "ingresses"}, "Ingress"},
	{schema.GroupVersionResource{Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers"}, "HorizontalPodAutoscaler"},
}

// Collect reads the facts from the cluster cfg points at. A refused list
// (403) is reported in the checks; any other failure is an error.
func Collect(ctx context.Context, cfg *rest.Config, opts Options) (*inventory.Facts, error) {
	cfg = withDefaults(cfg)
	cs, err := typedClient(cfg, opts)
	if err != nil {
		return nil, err
	}
	md, err := metadata.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("build a metadata client%s: %w", contextText(opts.Context), err)
	}
	c := &collector{
		cs: cs, md: md, limit: opts.PageSize, ctxName: opts.Context,
		facts: &inventory.Facts{Source: sourceOf(opts.Context), Inventory: &inventory.Inventory{}},
	}
	if c.limit <= 0 {
		c.limit = defaultPageSize
	}
	return c.run(ctx)
}

// withDefaults is a copy of cfg with the collectors' timeout and user
// agent where cfg sets none.
func withDefaults(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	if cfg.Timeout == 0 {
		cfg.Timeout = defaultTimeout
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = "sylva-planner"
	}
	return cfg
}

// typedClient is the client of the built-in types over cfg, in protobuf:
// several times cheaper to decode than JSON for the large pod and node
// lists; every built-in type supports it.
func typedClient(cfg *rest.Config, opts Options) (kubernetes.Interface, error) {
	pcfg := rest.CopyConfig(cfg)
	pcfg.ContentType = "application/vnd.kubernetes.protobuf"
	pcfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	cs, err := kubernetes.NewForConfig(pcfg)
	if err != nil {
		return nil, fmt.Errorf("build a client%s: %w", contextText(opts.Context), err)
	}
	return cs, nil
}

// contextText names the kubeconfig context ctx in an error, as the status
// reader does: " (context mgmt)"; empty names none.
func contextText(ctx string) string {
	if ctx == "" {
		return ""
	}
	return " (context " + ctx + ")"
}

// sourceOf is the input a cluster of context ctx is listed as: "cluster
// mgmt", or "cluster".
func sourceOf(ctx string) string {
	if ctx == "" {
		return "cluster"
	}
	return "cluster " + ctx
}

type collector struct {
	cs      kubernetes.Interface
	md      metadata.Interface
	limit   int64
	ctxName string
	facts   *inventory.Facts
	refused []string // resources the cluster refused to list
}

// refusal records a 403 and returns nil, or returns any other error with
// context.
func (c *collector) refusal(resource string, err error) (bool, error) {
	if err == nil {
		return false, nil
	}
	if apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) {
		c.refused = append(c.refused, resource+" (refused: "+reason(err)+")")
		return true, nil
	}
	if apierrors.IsNotFound(err) {
		c.refused = append(c.refused, resource+" (not served)")
		return true, nil
	}
	return false, fmt.Errorf("list %s%s: %w", resource, contextText(c.ctxName), err)
}

func reason(err error) string {
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		return fmt.Sprintf("%d %s", st.Status().Code, strings.ToLower(string(st.Status().Reason)))
	}
	return err.Error()
}

// pagedList is a list the API server returns a page of: Continue names
// the next page, empty on the last.
type pagedList interface{ GetContinue() string }

// listPaged lists with opts (its Limit the size of a page) page by page,
// one request a page, until a page has no Continue, calling each on every
// item of every page in order (items gives a page's items). It returns
// how many items it saw; a failed request ends the list with its error,
// the items of the pages before handed to each already.
func listPaged[L pagedList, T any](ctx context.Context, opts metav1.ListOptions, list func(context.Context, metav1.ListOptions) (L, error), items func(L) []T, each func(*T)) (int, error) {
	n := 0
	for {
		l, err := list(ctx, opts)
		if err != nil {
			return n, err
		}
		page := items(l)
		for i := range page {
			each(&page[i])
		}
		n += len(page)
		next := l.GetContinue()
		if next == "" {
			return n, nil
		}
		opts.Continue = next
	}
}

// page is the options of a list of c: pages of c.limit.
func (c *collector) page() metav1.ListOptions { return metav1.ListOptions{Limit: c.limit} }

// collectorRead is one read of the collector: how many objects it saw,
// counted for check, under the name of resource.
type collectorRead struct {
	check, resource string
	read            func(context.Context) (int, error)
}

// reads are the reads of c, in the order it makes them: nodes, pods,
// deployments, statefulsets and budgets with what the drain needs of
// them, the metadata of the kinds whose older API versions Kubernetes
// removed, the Helm release Secrets, and the apiserver's metrics.
func (c *collector) reads() []collectorRead {
	reads := []collectorRead{
		{CheckNodes, "nodes", c.readNodes},
		{CheckPods, "pods", c.readPods},
		{CheckWorkloads, "deployments", c.readDeployments},
		{CheckWorkloads, "statefulsets", c.readStatefulSets},
		{CheckPDBs, "poddisruptionbudgets", c.readPDBs},
	}
	for _, r := range metadataOnly {
		reads = append(reads, collectorRead{CheckAPIs, r.gvr.Resource, func(ctx context.Context) (int, error) {
			return c.readAPIUses(ctx, r.gvr, r.kind)
		}})
	}
	return append(reads,
		collectorRead{CheckHelm, "helm release secrets", c.helmReleases},
		collectorRead{CheckMetric, "apiserver metrics", c.readDeprecatedRequests})
}

// run makes the reads of c in order and returns the facts with their
// checks: a read the cluster refused (or does not serve) makes its check
// partial or not assessed, and the API versions check partial when any
// list it reads was not whole; any other failure is an error.
func (c *collector) run(ctx context.Context) (*inventory.Facts, error) {
	t := checkTally{status: map[string]planner.CheckStatus{}, detail: map[string]string{}}
	for _, r := range c.reads() {
		n, err := r.read(ctx)
		refused, err := c.refusal(r.resource, err)
		if err != nil {
			return nil, err
		}
		t.record(r.check, r.resource, refused, n)
	}
	// The API versions come from every list above.
	if t.status[CheckAPIs] == planner.CheckAssessed && (t.status[CheckPods] != planner.CheckAssessed || t.status[CheckWorkloads] != planner.CheckAssessed || t.status[CheckPDBs] != planner.CheckAssessed || t.status[CheckNodes] != planner.CheckAssessed) {
		t.status[CheckAPIs] = planner.CheckPartial
	}
	f := c.facts
	f.Checks = append([]planner.Check{c.inventoryCheck()}, t.checks(f.Inventory)...)
	slices.SortStableFunc(f.Uses, func(a, b removedapis.Use) int {
		return strings.Compare(a.APIVersion+"\x00"+a.Kind+"\x00"+a.Namespace+"\x00"+a.Name, b.APIVersion+"\x00"+b.Kind+"\x00"+b.Namespace+"\x00"+b.Name)
	})
	return f, nil
}

// checkTally is what the reads say of each check: its status and detail.
type checkTally struct {
	status map[string]planner.CheckStatus
	detail map[string]string
}

// record counts a read of resource for check: n objects seen, or the
// resource refused.
func (t *checkTally) record(check, resource string, refused bool, n int) {
	t.status[check] = statusAfter(t.status[check], refused)
	word := fmt.Sprintf("%d %s", n, resource)
	if refused {
		word = resource + " refused"
	}
	if t.detail[check] != "" {
		t.detail[check] += ", "
	}
	t.detail[check] += word
}

// statusAfter decides the status of a check, prev so far, after one more
// read counted for it: not assessed when its first read was refused,
// partial once one read was refused and another was not, assessed while
// every read was made.
func statusAfter(prev planner.CheckStatus, refused bool) planner.CheckStatus {
	switch {
	case refused && prev == "":
		return planner.CheckNotAssessed
	case refused:
		return planner.CheckPartial
	case prev == planner.CheckNotAssessed:
		return planner.CheckPartial
	case prev == "":
		return planner.CheckAssessed
	}
	return prev
}

// checks are the checks of the reads, as t counted them, the Helm
// releases' as inv read them.
func (t *checkTally) checks(inv *inventory.Inventory) []planner.Check {
	return []planner.Check{
		{Name: CheckPDBs, Required: true, Status: t.status[CheckPDBs], Detail: "PodDisruptionBudgets with status: " + t.detail[CheckPDBs]},
		{Name: CheckWorkloads, Required: true, Status: t.status[CheckWorkloads], Detail: "workloads with replicas, selectors, preStop, grace period, spread: " + t.detail[CheckWorkloads]},
		{Name: CheckPods, Required: true, Status: t.status[CheckPods], Detail: "pods with owners, nodes, readiness: " + t.detail[CheckPods]},
		{Name: CheckNodes, Required: false, Status: t.status[CheckNodes], Detail: "nodes with zones and versions: " + t.detail[CheckNodes]},
		{Name: CheckAPIs, Required: true, Status: t.status[CheckAPIs], Detail: "API versions objects were written with (managedFields, last-applied-configuration): " + t.detail[CheckAPIs]},
		{Name: CheckMetric, Required: false, Status: t.status[CheckMetric], Detail: "apiserver_requested_deprecated_apis: " + t.detail[CheckMetric]},
		helmCheck(t.status[CheckHelm], t.detail[CheckHelm], inv),
	}
}

// inventoryCheck decides the check of the inventory as a whole: assessed,
// read in one pass, or partial, naming what the cluster refused.
func (c *collector) inventoryCheck() planner.Check {
	check := planner.Check{
		Name: CheckInventory, Required: true, Status: planner.CheckAssessed,
		Detail: fmt.Sprintf("read %s in one pass", c.facts.Source),
	}
	if len(c.refused) > 0 {
		check.Status = planner.CheckPartial
		check.Detail += "; refused: " + strings.Join(c.refused, ", ")
	}
	return check
}

// readNodes reads the nodes into the snapshot and the inventory, with the
// API versions they were written with.
func (c *collector) readNodes(ctx context.Context) (int, error) {
	f := c.facts
	return listPaged(ctx, c.page(), c.cs.CoreV1().Nodes().List, func(l *corev1.NodeList) []corev1.Node { return l.Items }, func(node *corev1.Node) {
		f.Snapshot.Nodes = append(f.Snapshot.Nodes, inventory.NodeOf(node))
		o := inventory.ObjectOf("v1", "Node", &node.ObjectMeta, nil)
		o.KubeletVersion = node.Status.NodeInfo.KubeletVersion
		f.Inventory.Objects = append(f.Inventory.Objects, o)
		f.Uses = append(f.Uses, inventory.APIUses("Node", "v1", &node.ObjectMeta)...)
	})
}

// readPods reads the pods of every namespace into the snapshot and the
// inventory, with their images and the API versions they were written
// with.
func (c *collector) readPods(ctx context.Context) (int, error) {
	f := c.facts
	return listPaged(ctx, c.page(), c.cs.CoreV1().Pods("").List, func(l *corev1.PodList) []corev1.Pod { return l.Items }, func(p *corev1.Pod) {
		mp := inventory.PodOf(p)
		f.Snapshot.Pods = append(f.Snapshot.Pods, mp)
		f.Inventory.Objects = append(f.Inventory.Objects, inventory.ObjectOf("v1", "Pod", &p.ObjectMeta, mp.Images))
		f.Uses = append(f.Uses, inventory.APIUses("Pod", "v1", &p.ObjectMeta)...)
	})
}

// readDeployments reads the Deployments of every namespace into the
// snapshot's workloads and the inventory.
func (c *collector) readDeployments(ctx context.Context) (int, error) {
	f := c.facts
	return listPaged(ctx, c.page(), c.cs.AppsV1().Deployments("").List, func(l *appsv1.DeploymentList) []appsv1.Deployment { return l.Items }, func(d *appsv1.Deployment) {
		f.Snapshot.Workloads = append(f.Snapshot.Workloads, inventory.DeploymentOf(d))
		f.Inventory.Objects = append(f.Inventory.Objects, inventory.ObjectOf("apps/v1", "Deployment", &d.ObjectMeta, inventory.Images(&d.Spec.Template.Spec)))
		f.Uses = append(f.Uses, inventory.APIUses("Deployment", "apps/v1", &d.ObjectMeta)...)
	})
}

// readStatefulSets reads the StatefulSets of every namespace into the
// snapshot's workloads and the inventory.
func (c *collector) readStatefulSets(ctx context.Context) (int, error) {
	f := c.facts
	return listPaged(ctx, c.page(), c.cs.AppsV1().StatefulSets("").List, func(l *appsv1.StatefulSetList) []appsv1.StatefulSet { return l.Items }, func(s *appsv1.StatefulSet) {
		f.Snapshot.Workloads = append(f.Snapshot.Workloads, inventory.StatefulSetOf(s))
		f.Inventory.Objects = append(f.Inventory.Objects, inventory.ObjectOf("apps/v1", "StatefulSet", &s.ObjectMeta, inventory.Images(&s.Spec.Template.Spec)))
		f.Uses = append(f.Uses, inventory.APIUses("StatefulSet", "apps/v1", &s.ObjectMeta)...)
	})
}

// readPDBs reads the PodDisruptionBudgets of every namespace into the
// snapshot, with the API versions they were written with.
func (c *collector) readPDBs(ctx context.Context) (int, error) {
	f := c.facts
	return listPaged(ctx, c.page(), c.cs.PolicyV1().PodDisruptionBudgets("").List, func(l *policyv1.PodDisruptionBudgetList) []policyv1.PodDisruptionBudget { return l.Items }, func(b *policyv1.PodDisruptionBudget) {
		f.Snapshot.PDBs = append(f.Snapshot.PDBs, inventory.PDBOf(b))
		f.Uses = append(f.Uses, inventory.APIUses("PodDisruptionBudget", "policy/v1", &b.ObjectMeta)...)
	})
}

// readAPIUses reads the metadata of the objects of gvr (of kind) for the
// API versions they were written with.
func (c *collector) readAPIUses(ctx context.Context, gvr schema.GroupVersionResource, kind string) (int, error) {
	f := c.facts
	return listPaged(ctx, c.page(), c.md.Resource(gvr).List, metadataItems, func(o *metav1.PartialObjectMetadata) {
		f.Uses = append(f.Uses, inventory.APIUses(kind, gvr.GroupVersion().String(), &o.ObjectMeta)...)
	})
}

// metadataItems are the objects of a page of a metadata list.
func metadataItems(l *metav1.PartialObjectMetadataList) []metav1.PartialObjectMetadata {
	return l.Items
}

// readDeprecatedRequests reads the deprecated API versions clients
// requested (deprecatedRequests) into the uses, and returns how many.
func (c *collector) readDeprecatedRequests(ctx context.Context) (int, error) {
	uses, err := c.deprecatedRequests(ctx)
	c.facts.Uses = append(c.facts.Uses, uses...)
	return len(uses), err
}

// Selectors of the Secrets Helm 3 stores the deployed revision of a
// release in.
const (
	releaseFields = "type=helm.sh/release.v1"
	releaseLabels = "owner=helm,status=deployed"
)

// releasePageSize is the Limit of the lists of release Secrets with their
// data: a Secret holds up to 1 MiB, so a page holds at most 64 MiB.
const releasePageSize = 64

var secretsGVR = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}

// helmReleases reads the manifest of the newest deployed revision of each
// Helm release and returns how many release Secrets it saw. The labels
// come first, without the data (a metadata list), so that only the chosen
// revisions are decompressed (inventory.NewestReleases); then the chosen
// Secrets' data, page by page. A revision deployed between the two lists
// is read as well. A release that is not read is listed in the
// inventory's SkippedReleases, which the check names.
func (c *collector) helmReleases(ctx context.Context) (int, error) {
	var secrets []inventory.ReleaseSecret
	opts := metav1.ListOptions{Limit: c.limit, FieldSelector: releaseFields, LabelSelector: releaseLabels}
	_, err := listPaged(ctx, opts, c.md.Resource(secretsGVR).List, metadataItems, func(o *metav1.PartialObjectMetadata) {
		secrets = append(secrets, inventory.ReleaseSecret{Namespace: o.Namespace, Name: o.Name, Labels: o.Labels})
	})
	if err != nil {
		return 0, err
	}
	chosen := map[string]bool{}
	newest := map[string]int{}
	for _, i := range inventory.NewestReleases(secrets) {
		s := secrets[i]
		chosen[s.Namespace+"/"+s.Name] = true
		key, rev, _ := s.Release()
		newest[key] = rev
	}
	inv := c.facts.Inventory
	opts.Limit = min(c.limit, releasePageSize)
	_, err = listPaged(ctx, opts, c.cs.CoreV1().Secrets("").List, func(l *corev1.SecretList) []corev1.Secret { return l.Items }, func(s *corev1.Secret) {
		name := s.Namespace + "/" + s.Name
		key, rev, _ := inventory.ReleaseSecret{Namespace: s.Namespace, Name: s.Name, Labels: s.Labels}.Release()
		if last, ok := newest[key]; chosen[name] || !ok || rev > last {
			// A release that is not read is listed in SkippedReleases.
			_ = inv.AddHelmRelease(name, s.Data["release"])
		}
	})
	return len(secrets), err
}

// helmCheck is the check of the Helm releases: status and detail as the
// lists left them, partial when a release was not read or not read whole,
// naming it and why.
func helmCheck(status planner.CheckStatus, detail string, inv *inventory.Inventory) planner.Check {
	c := planner.Check{Name: CheckHelm, Required: false, Status: status, Detail: "running versions from Helm releases: " + detail}
	if len(inv.SkippedReleases) > 0 {
		c.Status = planner.CheckPartial
		c.Detail += fmt.Sprintf(" (%d read, the newest deployed revision of each); %d not read: %s", inv.Releases, len(inv.SkippedReleases), strings.Join(inv.SkippedReleases, "; "))
	}
	return c
}

// deprecatedRequests reads the apiserver_requested_deprecated_apis gauge:
// one series per deprecated group/version/resource a client requested
// since the API server started, with the release that removes it.
func (c *collector) deprecatedRequests(ctx context.Context) ([]removedapis.Use, error) {
	raw, err := c.cs.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, err
	}
	return ParseDeprecatedRequests(raw), nil
}

// ParseDeprecatedRequests extracts the series of apiserver_requested_deprecated_apis
// from a Prometheus text exposition.
func ParseDeprecatedRequests(raw []byte) []removedapis.Use {
	const metric = "apiserver_requested_deprecated_apis{"
	var out []removedapis.Use
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, metric) {
			continue
		}
		end := strings.LastIndex(line, "}")
		if end < 0 {
			continue
		}
		labels := map[string]string{}
		for _, kv := range splitLabels(line[len(metric):end]) {
			k, v, _ := strings.Cut(kv, "=")
			labels[k] = strings.Trim(v, `"`)
		}
		if strings.TrimSpace(line[end+1:]) == "0" {
			continue
		}
		gv := labels["version"]
		if labels["group"] != "" {
			gv = labels["group"] + "/" + gv
		}
		if labels["subresource"] != "" {
			continue
		}
		out = append(out, removedapis.Use{APIVersion: gv, Kind: labels["resource"], Removed: labels["removed_release"], Where: "apiserver_requested_deprecated_apis"})
	}
	return out
}

func splitLabels(s string) []string {
	var out []string
	inQuote, start := false, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			inQuote = !inQuote
		case ',':
			if !inQuote {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}
