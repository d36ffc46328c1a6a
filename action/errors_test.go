package action

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"gitlab.com/sylva-projects/sylva-planner/catalog"
	"gitlab.com/sylva-projects/sylva-planner/reconciler"
	"gitlab.com/sylva-projects/sylva-planner/semver"
	"gitlab.com/sylva-projects/sylva-planner/values/helmengine"
)

// A request its flags made wrong is refused by the action itself, as a
// BadRequestError naming the flags, before it reads anything; a request
// that can run is not.
func TestRequestsRefuseTheirBadFlags(t *testing.T) {
	ns := reconciler.Target{Namespace: "sylva-system", HelmRelease: "sylva-units"}
	files := []helmengine.File{{Name: "values.yaml", Data: []byte("a: 1\n")}}
	_, noValues := PruneAuditRequest{}.Run(context.Background())
	_, noChartDir := PruneAuditRequest{Chart: "chart.tgz", ChartPath: chartArchive(t)}.Run(context.Background())
	_, badMinor := KubernetesMinor("1.x")
	fromAndStatus := (&PlanRequest{Releases: Releases{From: "1.4", To: "1.6"}, Sources: Sources{File: "s.yaml"}}).readSources()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	fleet := func(p PlanRequest) FleetPlanRequest {
		p.Catalog = cat
		return FleetPlanRequest{Plan: p}
	}
	for _, tt := range []struct {
		name string
		err  error
		want string
	}{
		{"reconcile without namespace", ReconcileRequest{}.Validate(), "--namespace must not be empty"},
		{"reconcile --wait --timeout 0", ReconcileRequest{Target: ns, Wait: true}.Validate(), "--timeout 0s: want a positive duration such as 2h"},
		{"reconcile --file without --dry-run", ReconcileRequest{Target: ns, File: "s.yaml"}.Validate(), "--file decides from a file and cannot patch it: add --dry-run"},
		{"reconcile --file --wait", ReconcileRequest{Target: ns, File: "s.yaml", DryRun: true, Wait: true, Timeout: time.Hour}.Validate(), "--wait follows a cluster; it does not go with --file"},
		{"reconcile --file --dry-run", ReconcileRequest{Target: ns, File: "s.yaml", DryRun: true}.Validate(), ""},
		{"reconcile --wait", ReconcileRequest{Target: ns, Wait: true, Timeout: time.Hour}.Validate(), ""},
		{"values render without -f", ValuesRenderRequest{}.Validate(), "values render needs at least one -f FILE"},
		{"values render --validate without --chart", ValuesRenderRequest{Files: files, ValidateChart: true}.Validate(), "--skip-schema-validation and --validate go with --chart"},
		{"values render --chart --validate", ValuesRenderRequest{Chart: "c", ValidateChart: true}.Validate(), ""},
		{"values render -f", ValuesRenderRequest{Files: files}.Validate(), ""},
		{"prune-audit without -f", noValues, "prune-audit needs the sylva-units values: -f charts/sylva-units/values.yaml (with --chart DIR, DIR/values.yaml is the default)"},
		{"prune-audit --chart ARCHIVE without -f", noChartDir, "prune-audit needs the sylva-units values: -f charts/sylva-units/values.yaml (with --chart DIR, DIR/values.yaml is the default)"},
		{"drain-check --kubernetes 1.x", badMinor, "--kubernetes: " + skewErr(t, "1.x") + "; give a Kubernetes minor such as 1.32"},
		{"plan --from --status", fromAndStatus, "give --from or --status, not both: --status reads the installed release from the status ConfigMap, and where a transition in progress stands"},
		{"plan -A --from", fleet(PlanRequest{Releases: Releases{From: "1.4", To: "1.6"}}).Validate(), "--from does not go with --all-namespaces: each release is planned from its own status"},
		{"plan -A --workers", fleet(PlanRequest{Releases: Releases{Workers: "1.30", To: "1.6"}}).Validate(), "--workers does not go with --all-namespaces: each release is planned from its own status"},
		{"plan -A --to", fleet(PlanRequest{Releases: Releases{To: "1.6"}}).Validate(), ""},
		{"controller without a scope", ControllerRequest{LogLevel: "info"}.Validate(), "give --namespace NAMESPACE or --all-namespaces"},
		{"controller -n -A", ControllerRequest{Controller: reconciler.ControllerOptions{Namespace: "a"}, AllNamespaces: true, LogLevel: "info"}.Validate(), "give --namespace or --all-namespaces, not both"},
		{"controller --log-level loud", ControllerRequest{AllNamespaces: true, LogLevel: "loud"}.Validate(), `--log-level "loud": want debug, info, warn or error`},
		{"controller -n a,b --log-level debug", ControllerRequest{Controller: reconciler.ControllerOptions{Namespace: "a,b"}, LogLevel: "debug"}.Validate(), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.want == "" {
				if tt.err != nil {
					t.Fatalf("refused: %v", tt.err)
				}
				return
			}
			var bad *BadRequestError
			if !errors.As(tt.err, &bad) || bad.Error() != tt.want {
				t.Fatalf("got %#v, want a BadRequestError %q", tt.err, tt.want)
			}
		})
	}
}

// skewErr is semver.Parse's error for s.
func skewErr(t *testing.T, s string) string {
	t.Helper()
	_, err := semver.Parse(s)
	if err == nil {
		t.Fatalf("semver.Parse(%q) parsed", s)
	}
	return err.Error()
}

// chartArchive writes a chart archive (.tgz) that loads: a Chart.yaml and
// nothing else, no values.yaml to default -f to.
func chartArchive(t *testing.T) string {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	meta := []byte("apiVersion: v2\nname: c\nversion: 0.1.0\n")
	if err := tw.WriteHeader(&tar.Header{Name: "c/Chart.yaml", Mode: 0o644, Size: int64(len(meta))}); err != nil {
		t.Fatal(err)
	}
	if _, err := tw.Write(meta); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), "chart.tgz")
	if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

func TestMetricsBindAddressDefaultsToLoopbackForPlainHTTP(t *testing.T) {
	tests := []struct {
		name, flag string
		secure     bool
		want       string
	}{
		{name: "secure metrics listen on every interface, behind authentication", secure: true, want: ":8443"},
		{name: "plain HTTP metrics listen on loopback only", want: "127.0.0.1:8080"},
		{name: "an explicit address wins", flag: ":9090", want: ":9090"},
		{name: "0 disables metrics", flag: "0", secure: true, want: "0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (ControllerRequest{Controller: reconciler.ControllerOptions{MetricsBindAddress: tt.flag, MetricsSecure: tt.secure}}).MetricsAddress(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
