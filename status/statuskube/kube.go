package statuskube

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"gitlab.com/sylva-projects/sylva-planner/fileio"
	"gitlab.com/sylva-projects/sylva-planner/status"
)

// ErrNoCluster is returned by RESTConfig when no kubeconfig file exists and
// the process does not run in a cluster.
var ErrNoCluster = errors.New("no cluster configured")

// Resources of the Flux objects read.
var (
	KustomizationResource = kustomizev1.GroupVersion.WithResource("kustomizations")
	HelmReleaseResource   = helmv2.GroupVersion.WithResource("helmreleases")
)

// InClusterContext is the context name reported for the in-cluster
// configuration.
const InClusterContext = "in-cluster"

// defaultTimeout bounds each request when the configuration sets none, so
// that an unreachable server fails instead of hanging.
const defaultTimeout = 30 * time.Second

// Options tune a Reader.
type Options struct {
	// HelmRelease is the name of the sylva-units HelmRelease;
	// status.DefaultHelmRelease when empty.
	HelmRelease string
	// Context is the kubeconfig context the configuration came from; it is
	// named in errors.
	Context string
}

// Reader reads an Observation from a cluster: Fetch over a
// controller-runtime client that reads the API server directly (no cache).
type Reader struct {
	client client.Reader
	opts   Options
	// capi reads the Cluster API objects (ReadAll across the cluster,
	// Read in the namespace).
	capi *ClusterAPI
}

// NewReader returns a Reader for the cluster cfg points at. It does not
// contact the cluster.
func NewReader(cfg *rest.Config, opts Options) (*Reader, error) {
	cfg = rest.CopyConfig(cfg)
	if cfg.Timeout == 0 {
		cfg.Timeout = defaultTimeout
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = "sylva-planner"
	}
	c, err := client.New(cfg, client.Options{Scheme: Scheme(), Mapper: restMapper()})
	if err != nil {
		return nil, fmt.Errorf("build a client%s: %w", contextText(opts.Context), err)
	}
	capi, err := NewClusterAPIForConfig(cfg, c)
	if err != nil {
		return nil, fmt.Errorf("build a discovery client%s: %w", contextText(opts.Context), err)
	}
	r := NewReaderForClient(c, opts)
	r.capi = capi
	return r, nil
}

// NewReaderForClient returns a Reader over c (a fake in tests). ReadAll
// needs c to list unstructured objects too; it reads the Cluster API kinds
// at their newest version without asking which the server serves.
func NewReaderForClient(c client.Reader, opts Options) *Reader {
	if opts.HelmRelease == "" {
		opts.HelmRelease = status.DefaultHelmRelease
	}
	return &Reader{client: c, opts: opts, capi: &ClusterAPI{client: c}}
}

// Read reads the sylva-units-status ConfigMap, the sylva-units-status
// Kustomization, the HelmRelease and the Cluster API objects in namespace
// with Fetch. Absent objects
// are nil in the Observation, whose FluxRead is true. A ConfigMap with a
// malformed value (Snapshot.Invalid) is an error naming the key (a
// *status.KeyError in the chain), the object and the context.
func (r *Reader) Read(ctx context.Context, namespace string) (status.Observation, error) {
	s, err := Fetch(ctx, r.client, Target{Namespace: namespace, HelmRelease: r.opts.HelmRelease, Context: r.opts.Context, ClusterAPI: r.capi})
	if err != nil {
		return status.Observation{}, err
	}
	if s.Invalid != nil {
		return status.Observation{}, s.Invalid
	}
	return s.Observation, nil
}

// convertFlux converts a HelmRelease (kind HelmReleaseKind) or a
// Kustomization from its unstructured form through the Flux API types.
func convertFlux(kind string, obj map[string]any) (*status.FluxObject, error) {
	conv := runtime.DefaultUnstructuredConverter
	if kind == HelmReleaseKind.Kind {
		var hr helmv2.HelmRelease
		if err := conv.FromUnstructured(obj, &hr); err != nil {
			return nil, err
		}
		return status.FromHelmRelease(&hr), nil
	}
	var ks kustomizev1.Kustomization
	if err := conv.FromUnstructured(obj, &ks); err != nil {
		return nil, err
	}
	return status.FromKustomization(&ks), nil
}

// wrap prefixes err with what failed and the context.
func (r *Reader) wrap(what string, err error) error {
	return fmt.Errorf("%s%s: %w", what, contextText(r.opts.Context), err)
}

func contextText(name string) string {
	if name == "" {
		return ""
	}
	return fmt.Sprintf(" (context %s)", name)
}

// ConfigOptions are the kubectl-style inputs of RESTConfig.
type ConfigOptions struct {
	// Kubeconfig is --kubeconfig: one file, which must exist.
	Kubeconfig string
	// Context is --context; the kubeconfig's current context when empty.
	Context string
	// As and AsGroups are --as and --as-group: the user (and groups) the
	// requests impersonate; empty for the kubeconfig's own user.
	As       string
	AsGroups []string
	// Getenv reads KUBECONFIG (a list of files, as kubectl reads it),
	// HOME (for ~/.kube/config), and KUBERNETES_SERVICE_HOST and
	// KUBERNETES_SERVICE_PORT (in a pod). Nil reads nothing.
	Getenv func(string) string
	// ServiceAccountDir holds the in-cluster token and ca.crt;
	// DefaultServiceAccountDir when empty.
	ServiceAccountDir string
}

// maxKubeconfig bounds the size of a kubeconfig file: real ones hold a few
// certificates and tokens, kilobytes; client-go reads a file whole.
const maxKubeconfig = 16 << 20

// checkKubeconfigFile refuses, before client-go reads it, a kubeconfig that
// is not a regular file (a device such as /dev/zero would be read without
// end, a named pipe would block) or is larger than maxKubeconfig. A path
// that does not exist is left to client-go (a KUBECONFIG entry may be
// missing; --kubeconfig may not). "" is no file.
func checkKubeconfigFile(name string) error {
	if name == "" {
		return nil
	}
	st, err := os.Stat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case !st.Mode().IsRegular():
		return fileio.NotRegular(name, st.Mode())
	case st.Size() > maxKubeconfig:
		return fmt.Errorf("%s is %d bytes, more than a kubeconfig's limit of %d MiB; give a kubeconfig file", name, st.Size(), maxKubeconfig>>20)
	}
	return nil
}

// RESTConfig returns the configuration kubectl would use for the same
// flags and environment, and the name of the context it selected
// (InClusterContext when running in a pod without a kubeconfig): client-go's
// default loading rules (--kubeconfig, else the KUBECONFIG list, else
// ~/.kube/config, else in-cluster), with the environment read through
// o.Getenv.
//
// Every file involved is held to the kubeconfig's rule (a regular file of
// at most 16 MiB, checked before it is opened): the kubeconfig files, the
// files the selected context names (certificate-authority,
// client-certificate, client-key, tokenFile) and the in-cluster token and
// CA certificate. Their content is put into the configuration, so that
// client-go never opens them; a token file is read again when it changes
// (tokenFileWrapper). An exec credential plugin is run by execPlugin,
// bounded by each request's deadline and killed with its children on
// SIGINT or SIGTERM, not by client-go.
func RESTConfig(o ConfigOptions) (*rest.Config, string, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	// The defaults read the process's environment; the caller's is used
	// instead, and nothing is migrated on disk.
	rules.Precedence, rules.MigrationRules = nil, nil
	rules.ExplicitPath = o.Kubeconfig
	source := "--kubeconfig " + o.Kubeconfig
	list := false
	if o.Kubeconfig == "" {
		if kc := getenv(clientcmd.RecommendedConfigPathEnvVar); kc != "" {
			rules.Precedence = filepath.SplitList(kc)
			source = "KUBECONFIG=" + kc
			list = len(rules.Precedence) > 1
		} else if home := getenv("HOME"); home != "" {
			rules.Precedence = []string{filepath.Join(home, clientcmd.RecommendedHomeDir, clientcmd.RecommendedFileName)}
			source = rules.Precedence[0]
		} else {
			source = "no kubeconfig"
		}
	}
	for _, f := range append([]string{rules.ExplicitPath}, rules.Precedence...) {
		if err := checkKubeconfigFile(f); err != nil {
			return nil, "", fmt.Errorf("load kubeconfig (%s): %w", source, err)
		}
	}
	overrides := &clientcmd.ConfigOverrides{CurrentContext: o.Context}
	overrides.AuthInfo.Impersonate = o.As
	overrides.AuthInfo.ImpersonateGroups = o.AsGroups
	loaded, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides).RawConfig()
	if err != nil {
		return nil, "", fmt.Errorf("load kubeconfig (%s): %w", source, err)
	}
	raw := loaded.DeepCopy()
	name := o.Context
	if name == "" {
		name = raw.CurrentContext
	}
	named, err := loadNamedFiles(raw, name, list)
	if err != nil {
		return nil, "", fmt.Errorf("load kubeconfig (%s)%s: %w", source, contextText(name), err)
	}
	cfg, err := clientcmd.NewNonInteractiveClientConfig(*raw, "", overrides, nil).ClientConfig()
	if (err != nil && clientcmd.IsEmptyConfig(err)) || (err == nil && rules.IsDefaultConfig(cfg)) {
		// As client-go: no kubeconfig, or one that says nothing, is the
		// in-cluster configuration when the process runs in a pod.
		icc, ok, ierr := inClusterConfig(getenv, cmp.Or(o.ServiceAccountDir, DefaultServiceAccountDir))
		if ierr != nil {
			return nil, "", fmt.Errorf("load the in-cluster configuration: %w", ierr)
		}
		if ok {
			icc.Impersonate = rest.ImpersonationConfig{UserName: o.As, Groups: o.AsGroups}
			return icc, InClusterContext, nil
		}
	}
	if err != nil {
		if clientcmd.IsEmptyConfig(err) {
			return nil, "", fmt.Errorf("%w (%s): give --kubeconfig, set KUBECONFIG or create ~/.kube/config", ErrNoCluster, source)
		}
		return nil, "", fmt.Errorf("load kubeconfig (%s)%s: %w", source, contextText(name), err)
	}
	if named.tokenFile != "" && rest.IsConfigTransportTLS(*cfg) {
		// As client-go: a user's credentials go to a TLS server only.
		cfg.Wrap(tokenFileWrapper(named.tokenFile, cfg.BearerToken))
		cfg.BearerToken = ""
	}
	if cfg.ExecProvider != nil {
		user := ""
		if c := raw.Contexts[name]; c != nil {
			user = c.AuthInfo
		}
		if err := useExecPlugin(cfg, user); err != nil {
			return nil, "", fmt.Errorf("load kubeconfig (%s)%s: %w", source, contextText(name), err)
		}
	}
	if len(raw.Contexts) == 0 && name == "" {
		name = InClusterContext
	}
	return cfg, name, nil
}
