package statuskube

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// pluginKubeconfig writes a shell script plugin and a kubeconfig whose
// user runs it, for server.
func pluginKubeconfig(t *testing.T, server, script, mode string) string {
	t.Helper()
	dir := t.TempDir()
	plugin := filepath.Join(dir, "plugin.sh")
	if err := os.WriteFile(plugin, []byte("#!/bin/sh\n"+script), 0o700); err != nil {
		t.Fatal(err)
	}
	return writeKubeconfig(t, dir, "kc", server, ", insecure-skip-tls-verify: true",
		fmt.Sprintf("exec: {apiVersion: client.authentication.k8s.io/v1, command: %s, interactiveMode: %s, env: [{name: DIR, value: %q}]}", plugin, mode, dir))
}

// gone reports whether process pid has ended (a zombie has).
func gone(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) != nil
	}
	_, rest, _ := strings.Cut(string(data), ") ")
	return strings.HasPrefix(rest, "Z")
}

// TestAnExecPluginIsBoundedAndLeavesNothingRunning: the plugin runs with
// the request's deadline (--request-timeout); past it the plugin and what
// it started are killed and the request fails, instead of hanging as
// client-go's runner does.
func TestAnExecPluginIsBoundedAndLeavesNothingRunning(t *testing.T) {
	var s authServer
	url := s.start(t)
	kc := pluginKubeconfig(t, url, "sleep 1000 &\necho $! > \"$DIR/pid\"\nwait\n", "Never")
	cfg, _, err := restConfigWithin(t, ConfigOptions{Kubeconfig: kc})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ExecProvider != nil {
		t.Fatal("the exec plugin is left to client-go")
	}
	cfg.Timeout = time.Second
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- getVersion(t, cfg) }()
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("a hanging exec plugin holds the request past its timeout")
	}
	if err == nil || !strings.Contains(err.Error(), "exec plugin") || !strings.Contains(err.Error(), "no answer within") {
		t.Fatalf("request with a hanging plugin: %v, want the plugin named as not answering", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the request took %s with a 1s timeout", took)
	}
	data, err := os.ReadFile(filepath.Join(filepath.Dir(kc), "pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !gone(pid) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the plugin's sleep (pid %d) still runs after the request failed", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestAnExecPluginsTokenIsUsedAndRenewedOnUnauthorized: the token the
// plugin returns is sent; when the API server refuses it (401), the
// plugin runs again and the request is sent once more with the new one.
func TestAnExecPluginsTokenIsUsedAndRenewedOnUnauthorized(t *testing.T) {
	s := authServer{reject: map[string]bool{"token-1": true}}
	url := s.start(t)
	// Each run returns the next token: token-1, token-2, ...
	kc := pluginKubeconfig(t, url, `n=$(cat "$DIR/n" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$DIR/n"
case "$KUBERNETES_EXEC_INFO" in *'"interactive":false'*) ;; *) echo "not told it is not interactive" >&2; exit 1;; esac
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"token-%s"}}' $n
`, "IfAvailable")
	cfg, _, err := restConfigWithin(t, ConfigOptions{Kubeconfig: kc})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Timeout = 10 * time.Second
	if err := getVersion(t, cfg); err != nil || s.last() != "Bearer token-2" {
		t.Fatalf("request: %v, Authorization %q; want token-2 after token-1 was refused", err, s.last())
	}
	if err := getVersion(t, cfg); err != nil || s.last() != "Bearer token-2" {
		t.Fatalf("second request: %v, Authorization %q; want the cached token-2", err, s.last())
	}
}

// TestAnExecPluginThatMisbehavesIsRefused: a plugin that writes without
// end is stopped; one that fails says its last line of standard error; one
// that needs a terminal is refused up front.
func TestAnExecPluginThatMisbehavesIsRefused(t *testing.T) {
	var s authServer
	url := s.start(t)
	for _, tt := range []struct{ name, script, want string }{
		{"a plugin writing without end", "exec yes\n", "wrote more than 1024 KiB on standard output"},
		{"a plugin that fails", "echo 'please log in with: login-tool' >&2\nexit 3\n", "exit status 3: please log in with: login-tool"},
		{"a plugin returning a client certificate only", `printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"clientCertificateData":"x","clientKeyData":"y"}}'`, "returned a client certificate"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg, _, err := restConfigWithin(t, ConfigOptions{Kubeconfig: pluginKubeconfig(t, url, tt.script, "Never")})
			if err != nil {
				t.Fatal(err)
			}
			cfg.Timeout = 10 * time.Second
			start := time.Now()
			if err := getVersion(t, cfg); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("request: %v, want %q", err, tt.want)
			}
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("took %s", took)
			}
		})
	}
	t.Run("a plugin that needs a terminal", func(t *testing.T) {
		_, _, err := restConfigWithin(t, ConfigOptions{Kubeconfig: pluginKubeconfig(t, url, "exit 0\n", "Always")})
		if err == nil || !strings.Contains(err.Error(), "interactiveMode Always") {
			t.Fatalf("RESTConfig: %v, want interactiveMode Always refused", err)
		}
	})
}
