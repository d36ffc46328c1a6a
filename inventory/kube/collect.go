package kube

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

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

// pages lists with Limit/Continue until the list ends.
func pages(ctx context.Context, limit int64, list func(context.Context, metav1.ListOptions) (string, error)) error {
	opts := metav1.ListOptions{Limit: limit}
	for {
		next, err := list(ctx, opts)
		if err != nil {
			return err
		}
		if next == "" {
			return nil
		}
		opts.Continue = next
	}
}

func (c *collector) run(ctx context.Context) (*inventory.Facts, error) {
	f := c.facts
	inv := f.Inventory
	status := map[string]planner.CheckStatus{}
	detail := map[string]string{}
	record := func(check, resource string, err error, n int) error {
		refused, err := c.refusal(resource, err)
		if err != nil {
			return err
		}
		switch {
		case refused && status[check] == "":
			status[check] = planner.CheckNotAssessed
		case refused:
			status[check] = planner.CheckPartial
		case status[check] == planner.CheckNotAssessed:
			status[check] = planner.CheckPartial
		case status[check] == "":
			status[check] = planner.CheckAssessed
		}
		word := fmt.Sprintf("%d %s", n, resource)
		if refused {
			word = resource + " refused"
		}
		if detail[check] != "" {
			detail[check] += ", "
		}
		detail[check] += word
		return nil
	}

	n := 0
	err := pages(ctx, c.limit, func(ctx context.Context, o metav1.ListOptions) (string, error) {
		l, err := c.cs.CoreV1().Nodes().List(ctx, o)
		if err != nil {
			return "", err
		}
		for i := range l.Items {
			node := &l.Items[i]
			f.Snapshot.Nodes = append(f.Snapshot.Nodes, inventory.NodeOf(node))
			o := inventory.ObjectOf("v1", "Node", &node.ObjectMeta, nil)
			o.KubeletVersion = node.Status.NodeInfo.KubeletVersion
			inv.Objects = append(inv.Objects, o)
			f.Uses = append(f.Uses, inventory.APIUses("Node", "v1", &node.ObjectMeta)...)
		}
		n += len(l.Items)
		return l.Continue, nil
	})
	if err := record(CheckNodes, "nodes", err, n); err != nil {
		return nil, err
	}

	n = 0
	err = pages(ctx, c.limit, func(ctx context.Context, o metav1.ListOptions) (string, error) {
		l, err := c.cs.CoreV1().Pods("").List(ctx, o)
		if err != nil {
			return "", err
		}
		for i := range l.Items {
			p := &l.Items[i]
			mp := inventory.PodOf(p)
			f.Snapshot.Pods = append(f.Snapshot.Pods, mp)
			inv.Objects = append(inv.Objects, inventory.ObjectOf("v1", "Pod", &p.ObjectMeta, mp.Images))
			f.Uses = append(f.Uses, inventory.APIUses("Pod", "v1", &p.ObjectMeta)...)
		}
		n += len(l.Items)
		return l.Continue, nil
	})
	if err := record(CheckPods, "pods", err, n); err != nil {
		return nil, err
	}

	n = 0
	err = pages(ctx, c.limit, func(ctx context.Context, o metav1.ListOptions) (string, error) {
		l, err := c.cs.AppsV1().Deployments("").List(ctx, o)
		if err != nil {
			return "", err
		}
		for i := range l.Items {
			d := &l.Items[i]
			f.Snapshot.Workloads = append(f.Snapshot.Workloads, inventory.DeploymentOf(d))
			inv.Objects = append(inv.Objects, inventory.ObjectOf("apps/v1", "Deployment", &d.ObjectMeta, inventory.Images(&d.Spec.Template.Spec)))
			f.Uses = append(f.Uses, inventory.APIUses("Deployment", "apps/v1", &d.ObjectMeta)...)
		}
		n += len(l.Items)
		return l.Continue, nil
	})
	if err := record(CheckWorkloads, "deployments", err, n); err != nil {
		return nil, err
	}

	n = 0
	err = pages(ctx, c.limit, func(ctx context.Context, o metav1.ListOptions) (string, error) {
		l, err := c.cs.AppsV1().StatefulSets("").List(ctx, o)
		if err != nil {
			return "", err
		}
		for i := range l.Items {
			s := &l.Items[i]
			f.Snapshot.Workloads = append(f.Snapshot.Workloads, inventory.StatefulSetOf(s))
			inv.Objects = append(inv.Objects, inventory.ObjectOf("apps/v1", "StatefulSet", &s.ObjectMeta, inventory.Images(&s.Spec.Template.Spec)))
			f.Uses = append(f.Uses, inventory.APIUses("StatefulSet", "apps/v1", &s.ObjectMeta)...)
		}
		n += len(l.Items)
		return l.Continue, nil
	})
	if err := record(CheckWorkloads, "statefulsets", err, n); err != nil {
		return nil, err
	}

	n = 0
	err = pages(ctx, c.limit, func(ctx context.Context, o metav1.ListOptions) (string, error) {
		l, err := c.cs.PolicyV1().PodDisruptionBudgets("").List(ctx, o)
		if err != nil {
			return "", err
		}
		for i := range l.Items {
			b := &l.Items[i]
			f.Snapshot.PDBs = append(f.Snapshot.PDBs, inventory.PDBOf(b))
			f.Uses = append(f.Uses, inventory.APIUses("PodDisruptionBudget", "policy/v1", &b.ObjectMeta)...)
		}
		n += len(l.Items)
		return l.Continue, nil
	})
	if err := record(CheckPDBs, "poddisruptionbudgets", err, n); err != nil {
		return nil, err
	}

	for _, r := range metadataOnly {
		n = 0
		err = pages(ctx, c.limit, func(ctx context.Context, o metav1.ListOptions) (string, error) {
			l, err := c.md.Resource(r.gvr).List(ctx, o)
			if err != nil {
				return "", err
			}
			for i := range l.Items {
				f.Uses = append(f.Uses, inventory.APIUses(r.kind, r.gvr.GroupVersion().String(), &l.Items[i].ObjectMeta)...)
			}
			n += len(l.Items)
			return l.Continue, nil
		})
		if err := record(CheckAPIs, r.gvr.Resource, err, n); err != nil {
			return nil, err
		}
	}

	n, err = c.helmReleases(ctx)
	if err := record(CheckHelm, "helm release secrets", err, n); err != nil {
		return nil, err
	}

	metricUses, err := c.deprecatedRequests(ctx)
	if err := record(CheckMetric, "apiserver metrics", err, len(metricUses)); err != nil {
		return nil, err
	}
	f.Uses = append(f.Uses, metricUses...)

	// The API versions come from every list above.
	if status[CheckAPIs] == planner.CheckAssessed && (status[CheckPods] != planner.CheckAssessed || status[CheckWorkloads] != planner.CheckAssessed || status[CheckPDBs] != planner.CheckAssessed || status[CheckNodes] != planner.CheckAssessed) {
		status[CheckAPIs] = planner.CheckPartial
	}

	f.Checks = []planner.Check{
		{Name: CheckPDBs, Required: true, Status: status[CheckPDBs], Detail: "PodDisruptionBudgets with status: " + detail[CheckPDBs]},
		{Name: CheckWorkloads, Required: true, Status: status[CheckWorkloads], Detail: "workloads with replicas, selectors, preStop, grace period, spread: " + detail[CheckWorkloads]},
		{Name: CheckPods, Required: true, Status: status[CheckPods], Detail: "pods with owners, nodes, readiness: " + detail[CheckPods]},
		{Name: CheckNodes, Required: false, Status: status[CheckNodes], Detail: "nodes with zones and versions: " + detail[CheckNodes]},
		{Name: CheckAPIs, Required: true, Status: status[CheckAPIs], Detail: "API versions objects were written with (managedFields, last-applied-configuration): " + detail[CheckAPIs]},
		{Name: CheckMetric, Required: false, Status: status[CheckMetric], Detail: "apiserver_requested_deprecated_apis: " + detail[CheckMetric]},
		helmCheck(status[CheckHelm], detail[CheckHelm], inv),
	}
	inventoryCheck := planner.Check{
		Name: CheckInventory, Required: true, Status: planner.CheckAssessed,
		Detail: fmt.Sprintf("read %s in one pass", f.Source),
	}
	if len(c.refused) > 0 {
		inventoryCheck.Status = planner.CheckPartial
		inventoryCheck.Detail += "; refused: " + strings.Join(c.refused, ", ")
	}
	f.Checks = append([]planner.Check{inventoryCheck}, f.Checks...)
	slices.SortStableFunc(f.Uses, func(a, b removedapis.Use) int {
		return strings.Compare(a.APIVersion+"\x00"+a.Kind+"\x00"+a.Namespace+"\x00"+a.Name, b.APIVersion+"\x00"+b.Kind+"\x00"+b.Namespace+"\x00"+b.Name)
	})
	return f, nil
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
	err := pages(ctx, c.limit, func(ctx context.Context, o metav1.ListOptions) (string, error) {
		o.FieldSelector, o.LabelSelector = releaseFields, releaseLabels
		l, err := c.md.Resource(secretsGVR).List(ctx, o)
		if err != nil {
			return "", err
		}
		for i := range l.Items {
			m := &l.Items[i].ObjectMeta
			secrets = append(secrets, inventory.ReleaseSecret{Namespace: m.Namespace, Name: m.Name, Labels: m.Labels})
		}
		return l.Continue, nil
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
	err = pages(ctx, min(c.limit, releasePageSize), func(ctx context.Context, o metav1.ListOptions) (string, error) {
		o.FieldSelector, o.LabelSelector = releaseFields, releaseLabels
		l, err := c.cs.CoreV1().Secrets("").List(ctx, o)
		if err != nil {
			return "", err
		}
		for i := range l.Items {
			s := &l.Items[i]
			name := s.Namespace + "/" + s.Name
			key, rev, _ := inventory.ReleaseSecret{Namespace: s.Namespace, Name: s.Name, Labels: s.Labels}.Release()
			if last, ok := newest[key]; chosen[name] || !ok || rev > last {
				// A release that is not read is listed in SkippedReleases.
				_ = inv.AddHelmRelease(name, s.Data["release"])
			}
		}
		return l.Continue, nil
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
