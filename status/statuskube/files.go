package statuskube

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"

	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	certutil "k8s.io/client-go/util/cert"

	"gitlab.com/sylva-projects/sylva-planner/fileio"
)

// DefaultServiceAccountDir is where a pod's service account token and CA
// certificate are mounted: the in-cluster configuration reads them there.
const DefaultServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// checkNamedFile applies the rule of the kubeconfig itself
// (checkKubeconfigFile) to a file a kubeconfig names, before anything
// opens it: it must exist, be a regular file (or a symlink to one) and
// hold at most maxKubeconfig bytes.
func checkNamedFile(name string) error {
	st, err := os.Stat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s does not exist; fix the path", name)
	case err != nil:
		return err
	case !st.Mode().IsRegular():
		return fileio.NotRegular(name, st.Mode())
	case st.Size() > maxKubeconfig:
		return fmt.Errorf("%s is %d bytes, more than the limit of %d MiB for a file a kubeconfig names; give the right file", name, st.Size(), maxKubeconfig>>20)
	}
	return nil
}

// readNamedFile reads a file a kubeconfig names under checkNamedFile's
// rule (fileio.ReadFile checks it again once open).
func readNamedFile(name string) ([]byte, error) {
	if err := checkNamedFile(name); err != nil {
		return nil, err
	}
	return fileio.ReadFile(name, maxKubeconfig)
}

// namedFiles are the files the selected context of a kubeconfig names,
// read under checkNamedFile's rule.
type namedFiles struct {
	// tokenFile is the user's tokenFile, read again when it changes
	// (tokenFileTransport); empty when the user names none.
	tokenFile string
}

// loadNamedFiles reads the files that the context contextName of raw
// names (the cluster's certificate-authority, the user's
// client-certificate, client-key and tokenFile) under checkNamedFile's
// rule, and puts their content into raw in place of the paths, so that
// client-go, which would read them whole and unguarded (and open a named
// pipe, blocking), never opens them. A context, cluster or user that does
// not exist is left to client-go to report. in names the kubeconfig
// files in errors when they come from a list (the file that defined the
// entry), or is false when the source names the one file.
func loadNamedFiles(raw *clientcmdapi.Config, contextName string, list bool) (namedFiles, error) {
	var nf namedFiles
	kctx := raw.Contexts[contextName]
	if kctx == nil {
		return nf, nil
	}
	where := func(kind, name, origin string) string {
		if list && origin != "" {
			return fmt.Sprintf("%s %q (in %s)", kind, name, origin)
		}
		return fmt.Sprintf("%s %q", kind, name)
	}
	read := func(owner, field, path string) ([]byte, error) {
		data, err := readNamedFile(path)
		if err != nil {
			return nil, fmt.Errorf("%s of %s: %w", field, owner, err)
		}
		return data, nil
	}
	if c := raw.Clusters[kctx.Cluster]; c != nil && c.CertificateAuthority != "" {
		data, err := read(where("cluster", kctx.Cluster, c.LocationOfOrigin), "certificate-authority", c.CertificateAuthority)
		if err != nil {
			return nf, err
		}
		// Both given is client-go's error to report; the file was checked.
		if len(c.CertificateAuthorityData) == 0 {
			c.CertificateAuthorityData, c.CertificateAuthority = data, ""
		}
	}
	u := raw.AuthInfos[kctx.AuthInfo]
	if u == nil {
		return nf, nil
	}
	owner := where("user", kctx.AuthInfo, u.LocationOfOrigin)
	if u.ClientCertificate != "" {
		data, err := read(owner, "client-certificate", u.ClientCertificate)
		if err != nil {
			return nf, err
		}
		if len(u.ClientCertificateData) == 0 {
			u.ClientCertificateData, u.ClientCertificate = data, ""
		}
	}
	if u.ClientKey != "" {
		data, err := read(owner, "client-key", u.ClientKey)
		if err != nil {
			return nf, err
		}
		if len(u.ClientKeyData) == 0 {
			u.ClientKeyData, u.ClientKey = data, ""
		}
	}
	if u.TokenFile != "" {
		data, err := read(owner, "tokenFile", u.TokenFile)
		if err != nil {
			return nf, err
		}
		// As client-go: the file's token is used while it can be read, the
		// token field when it cannot.
		nf.tokenFile = u.TokenFile
		if u.Token == "" {
			u.Token = string(bytes.TrimSpace(data))
		}
		u.TokenFile = ""
	}
	return nf, nil
}

// inClusterConfig is the configuration of a process running in a pod:
// the API server of KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT
// (read through getenv), the service account token and CA certificate of
// dir, read under checkNamedFile's rule. ok is false when the process
// does not run in a pod (the variables unset, or no token file), as
// client-go decides it. The token is read again when the file changes (the
// kubelet rotates it).
func inClusterConfig(getenv func(string) string, dir string) (cfg *rest.Config, ok bool, err error) {
	host, port := getenv("KUBERNETES_SERVICE_HOST"), getenv("KUBERNETES_SERVICE_PORT")
	tokenPath := filepath.Join(dir, "token")
	if host == "" || port == "" {
		return nil, false, nil
	}
	if st, err := os.Stat(tokenPath); err != nil || st.IsDir() {
		return nil, false, nil //nolint:nilerr // no token file: not in a pod, as client-go decides it
	}
	token, err := readNamedFile(tokenPath)
	if err != nil {
		return nil, true, fmt.Errorf("in-cluster service account token: %w", err)
	}
	cfg = &rest.Config{Host: "https://" + net.JoinHostPort(host, port)}
	caPath := filepath.Join(dir, "ca.crt")
	if _, err := os.Stat(caPath); err == nil {
		ca, err := readNamedFile(caPath)
		if err != nil {
			return nil, true, fmt.Errorf("in-cluster CA certificate: %w", err)
		}
		// As client-go: a CA file that holds no certificate is not used
		// (the system's roots are).
		if _, err := certutil.NewPoolFromBytes(ca); err == nil {
			cfg.CAData = ca
		}
	}
	cfg.Wrap(tokenFileWrapper(tokenPath, string(bytes.TrimSpace(token))))
	return cfg, true, nil
}

// tokenFileWrapper is a transport wrapper that sends the token of file
// path as the bearer token (token until the file is read again): the file
// is read under checkNamedFile's rule when its size or modification time
// changes, so a rotated token is used from the next request on, and the
// last token read is kept while the file cannot be read (client-go's own
// tokenFile reader would read a device or a named pipe whole, or block).
// It is the configuration's only bearer token (client-go's bearer wrapper
// would set its own first). A request that already carries an
// Authorization header (an exec plugin's token) keeps it.
func tokenFileWrapper(path, token string) func(http.RoundTripper) http.RoundTripper {
	src := &tokenFile{path: path, token: token}
	return func(rt http.RoundTripper) http.RoundTripper {
		return &tokenFileTransport{src: src, base: rt}
	}
}

// tokenFile is the token of a file, cached until the file changes.
type tokenFile struct {
	path string

	mu    sync.Mutex
	seen  fs.FileInfo
	token string
}

// current is the token of the file, read again when the file changed; the
// last one read when it cannot be read now ("" before any).
func (t *tokenFile) current() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	st, err := os.Stat(t.path)
	if err != nil || (t.seen != nil && st.Size() == t.seen.Size() && st.ModTime().Equal(t.seen.ModTime())) {
		return t.token
	}
	data, err := readNamedFile(t.path)
	if err != nil {
		return t.token
	}
	if tok := string(bytes.TrimSpace(data)); tok != "" {
		t.seen, t.token = st, tok
	}
	return t.token
}

type tokenFileTransport struct {
	src  *tokenFile
	base http.RoundTripper
}

func (t *tokenFileTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("Authorization") != "" {
		return t.base.RoundTrip(req)
	}
	tok := t.src.current()
	if tok == "" {
		return t.base.RoundTrip(req)
	}
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", "Bearer "+tok)
	return t.base.RoundTrip(r)
}

// WrappedRoundTripper lets client-go find the transports below.
func (t *tokenFileTransport) WrappedRoundTripper() http.RoundTripper { return t.base }
