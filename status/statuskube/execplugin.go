package statuskube

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/pkg/apis/clientauthentication"
	"k8s.io/client-go/pkg/apis/clientauthentication/install"
	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// An exec credential plugin (the kubeconfig's user.exec) is run here
// rather than by client-go, whose runner has no deadline (a plugin that
// hangs holds every request past --request-timeout), reads the plugin's
// output without a bound, and leaves the plugin running when the process
// exits on a signal. Here each run:
//
//   - is bounded by the deadline of the request that needs the token
//     (--request-timeout), or pluginTimeout when it has none;
//   - runs in a process group of its own, killed whole (the plugin and
//     what it started) when the deadline passes, the request is cancelled,
//     or the process gets SIGINT or SIGTERM (killOnSignal);
//   - gets no standard input (the planner runs unattended: the plugin is
//     told it is not interactive, and one that must be is refused), and
//     its output is bounded (maxPluginOutput, maxPluginStderr).
//
// Plugins that return a token are supported; the token is used until the
// API server answers 401, then the plugin runs again and the request is
// sent once more. A plugin that returns only a client certificate is
// refused with the fix.

// pluginTimeout bounds a plugin run when the request has no deadline.
const pluginTimeout = defaultTimeout

// maxPluginOutput bounds what a plugin writes on standard output (an
// ExecCredential is a few kilobytes); maxPluginStderr what is kept of its
// standard error, for the error message.
const (
	maxPluginOutput = 1 << 20
	maxPluginStderr = 64 << 10
)

var (
	execScheme = runtime.NewScheme()
	execCodecs = serializer.NewCodecFactory(execScheme)
)

func init() { install.Install(execScheme) }

// execPlugin runs the credential plugin of a kubeconfig user and caches
// its token.
type execPlugin struct {
	cfg     clientcmdapi.ExecConfig
	gv      schema.GroupVersion
	cluster *clientauthentication.Cluster
	// name names the plugin in errors: its command and the user.
	name string
	// lock is held while the plugin runs (one run at a time); a request
	// that waits for it gives up with its context.
	lock  chan struct{}
	token string
}

// useExecPlugin has cfg's exec credential plugin run by execPlugin instead
// of client-go: cfg.ExecProvider is cleared and a transport wrapper sets
// the plugin's token on each request.
func useExecPlugin(cfg *rest.Config, user string) error {
	ec := cfg.ExecProvider
	gv, err := schema.ParseGroupVersion(ec.APIVersion)
	if err != nil || !execScheme.IsVersionRegistered(gv) {
		return fmt.Errorf("exec plugin %s of user %q: apiVersion %q is not one of client.authentication.k8s.io/v1 or v1beta1; fix the kubeconfig", ec.Command, user, ec.APIVersion)
	}
	if ec.InteractiveMode == clientcmdapi.AlwaysExecInteractiveMode {
		return fmt.Errorf("exec plugin %s of user %q has interactiveMode Always, but sylva-planner runs credential plugins without a terminal; set interactiveMode to IfAvailable or Never, or log in with the plugin first", ec.Command, user)
	}
	p := &execPlugin{cfg: *ec, gv: gv, name: fmt.Sprintf("exec plugin %s of user %q", ec.Command, user), lock: make(chan struct{}, 1)}
	if ec.ProvideClusterInfo {
		if p.cluster, err = rest.ConfigToExecCluster(cfg); err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
	}
	cfg.ExecProvider = nil
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &execTransport{p: p, base: rt} })
	return nil
}

// tokenFor returns the cached token, or runs the plugin when there is none
// or the cached one is stale (the API server refused it).
func (p *execPlugin) tokenFor(ctx context.Context, stale string) (string, error) {
	select {
	case p.lock <- struct{}{}:
	case <-ctx.Done():
		return "", fmt.Errorf("%s: waiting for its run: %w", p.name, ctx.Err())
	}
	defer func() { <-p.lock }()
	if p.token != "" && p.token != stale {
		return p.token, nil
	}
	tok, err := p.run(ctx)
	if err != nil {
		return "", err
	}
	p.token = tok
	return tok, nil
}

// run runs the plugin once and returns its token.
func (p *execPlugin) run(ctx context.Context) (string, error) {
	in, err := runtime.Encode(execCodecs.LegacyCodec(p.gv), &clientauthentication.ExecCredential{
		Spec: clientauthentication.ExecCredentialSpec{Interactive: false, Cluster: p.cluster},
	})
	if err != nil {
		return "", fmt.Errorf("%s: encode its input: %w", p.name, err)
	}
	limit := pluginTimeout
	if dl, ok := ctx.Deadline(); ok {
		limit = min(limit, time.Until(dl))
	}
	ctx, cancel := context.WithTimeout(ctx, pluginTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.cfg.Command, p.cfg.Args...)
	cmd.Env = cmd.Environ()
	for _, v := range p.cfg.Env {
		cmd.Env = append(cmd.Env, v.Name+"="+v.Value)
	}
	cmd.Env = append(cmd.Env, "KUBERNETES_EXEC_INFO="+string(in))
	stdout := &boundedBuffer{max: maxPluginOutput, over: cancel}
	stderr := &boundedBuffer{max: maxPluginStderr}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	inOwnGroup(cmd)
	// The pipes close when the plugin is killed, even if something it
	// started kept them open.
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return "", fmt.Errorf("%s: executable not found; install it or fix the command in the kubeconfig%s", p.name, hint(p.cfg.InstallHint))
		}
		return "", fmt.Errorf("%s: %w", p.name, err)
	}
	stop := killOnSignal(cmd)
	err = cmd.Wait()
	stop()
	switch {
	case stdout.overflow:
		return "", fmt.Errorf("%s: wrote more than %d KiB on standard output; an ExecCredential is a few kilobytes: fix the plugin", p.name, maxPluginOutput>>10)
	case ctx.Err() != nil:
		// The request's deadline or cancellation: a context error, so that
		// callers tell a silent plugin from one that failed.
		return "", fmt.Errorf("%s: no answer within %s (--request-timeout), stopped%s: %w", p.name, limit.Round(time.Millisecond), stderr.lastLine(), ctx.Err())
	case err != nil:
		return "", fmt.Errorf("%s: %w%s", p.name, err, stderr.lastLine())
	}
	out := &clientauthentication.ExecCredential{}
	_, gvk, err := execCodecs.UniversalDecoder(p.gv).Decode(stdout.Bytes(), nil, out)
	switch {
	case err != nil:
		return "", fmt.Errorf("%s: decode its output: %w", p.name, err)
	case gvk.GroupVersion() != p.gv:
		return "", fmt.Errorf("%s: returned apiVersion %s, want %s as the kubeconfig says", p.name, gvk.GroupVersion(), p.gv)
	case out.Status == nil:
		return "", fmt.Errorf("%s: returned no status", p.name)
	case out.Status.Token == "" && out.Status.ClientCertificateData != "":
		return "", fmt.Errorf("%s: returned a client certificate, which sylva-planner does not take from a plugin; write the certificate and key into the kubeconfig (client-certificate-data, client-key-data) or use a plugin that returns a token", p.name)
	case out.Status.Token == "":
		return "", fmt.Errorf("%s: returned no token", p.name)
	}
	return out.Status.Token, nil
}

func hint(s string) string {
	if s = strings.TrimSpace(s); s == "" {
		return ""
	}
	line, _, _ := strings.Cut(s, "\n")
	return " (" + line + ")"
}

// execTransport sets the plugin's token on each request that carries no
// Authorization header yet.
type execTransport struct {
	p    *execPlugin
	base http.RoundTripper
}

func (t *execTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("Authorization") != "" {
		return t.base.RoundTrip(req)
	}
	tok, err := t.p.tokenFor(req.Context(), "")
	if err != nil {
		return nil, err
	}
	res, err := t.base.RoundTrip(withToken(req, tok))
	if err != nil || res.StatusCode != http.StatusUnauthorized {
		return res, err
	}
	// The token expired or was revoked: run the plugin again, and send the
	// request once more when its body can be sent again.
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		t.p.forget(tok)
		return res, nil
	}
	fresh, err := t.p.tokenFor(req.Context(), tok)
	if err != nil || fresh == tok {
		return res, nil //nolint:nilerr // the API server's 401 is the answer
	}
	retry := withToken(req, fresh)
	if req.GetBody != nil {
		if retry.Body, err = req.GetBody(); err != nil {
			return res, nil //nolint:nilerr // the API server's 401 is the answer
		}
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	_ = res.Body.Close()
	return t.base.RoundTrip(retry)
}

// WrappedRoundTripper lets client-go find the transports below.
func (t *execTransport) WrappedRoundTripper() http.RoundTripper { return t.base }

// forget drops the cached token tok, so that the next request runs the
// plugin.
func (p *execPlugin) forget(tok string) {
	p.lock <- struct{}{}
	defer func() { <-p.lock }()
	if p.token == tok {
		p.token = ""
	}
}

func withToken(req *http.Request, tok string) *http.Request {
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", "Bearer "+tok)
	return r
}

// boundedBuffer keeps at most max bytes; past it, it calls over (which
// stops the plugin) and drops the rest. It is a plain io.Writer (no
// ReadFrom that io.Copy would use instead of Write, reading without
// bound).
type boundedBuffer struct {
	buf      bytes.Buffer
	max      int
	over     func()
	overflow bool
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.buf.Len(); len(p) > room {
		b.buf.Write(p[:max(room, 0)])
		if !b.overflow {
			b.overflow = true
			if b.over != nil {
				b.over()
			}
		}
		return len(p), nil
	}
	return b.buf.Write(p)
}

// Bytes is what was kept.
func (b *boundedBuffer) Bytes() []byte { return b.buf.Bytes() }

// lastLine is the last line the plugin wrote on standard error, as
// ": LINE", or "".
func (b *boundedBuffer) lastLine() string {
	lines := strings.Split(strings.TrimSpace(b.buf.String()), "\n")
	if l := strings.TrimSpace(lines[len(lines)-1]); l != "" {
		return ": " + l
	}
	return ""
}
