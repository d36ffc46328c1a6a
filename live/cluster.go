package live

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Cluster is a cluster named by a kubeconfig: Config builds the client
// configuration (statuskube.RESTConfig with the command line's --as and
// timeouts) and names the context it used.
type Cluster struct {
	Config func() (*rest.Config, string, error)
}

// CheckAPIServer refuses a server that is no Kubernetes API server (one
// that answers 404 to everything, GET /version included), whose "not
// found" would otherwise read as "no object". Other errors are left to the
// reads that follow.
func CheckAPIServer(ctx context.Context, cfg *rest.Config, contextName string) error {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	_, err = cs.Discovery().RESTClient().Get().AbsPath("/version").DoRaw(ctx)
	if apierrors.IsNotFound(err) {
		where := cfg.Host
		if contextName != "" {
			where += " (context " + contextName + ")"
		}
		return fmt.Errorf("the server at %s is not a Kubernetes API server: GET /version answered 404 Not Found, so the resources it reads are not served; check --kubeconfig and --context", where)
	}
	return nil
}
