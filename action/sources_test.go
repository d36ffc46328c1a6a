package action

import (
	"context"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"gitlab.com/sylva-projects/sylva-planner/inventory"
	"gitlab.com/sylva-projects/sylva-planner/status"
	"gitlab.com/sylva-projects/sylva-planner/values/helmengine"
)

// fakeCluster is an action.Cluster whose sources say which connection
// built them.
type fakeCluster struct{ conn string }

type fakeSource struct{ kind, conn string }

func (s fakeSource) Observation(context.Context) (status.Observation, error) {
	return status.Observation{}, nil
}

func (s fakeSource) Fleet(context.Context) ([]status.FleetEntry, error) { return nil, nil }

func (s fakeSource) Facts(context.Context) (*inventory.Facts, error) { return nil, nil }

func (s fakeSource) Input() string { return s.kind + " " + s.conn }

func (c fakeCluster) Status(ns, _ string) StatusSource    { return fakeSource{"status " + ns, c.conn} }
func (c fakeCluster) Fleet(string) FleetSource            { return fakeSource{"fleet", c.conn} }
func (c fakeCluster) Facts() FactsSource                  { return fakeSource{"facts", c.conn} }
func (c fakeCluster) Nodes() FactsSource                  { return fakeSource{"nodes", c.conn} }
func (c fakeCluster) Objects() (helmengine.Source, error) { return helmengine.NewObjects(), nil }

func testSources(file, inventory string, live bool) Sources {
	return Sources{
		Readers: Readers{
			ReadFile: func(string, string) ([]byte, error) { return nil, nil },
			Read:     func(string) ([]byte, error) { return nil, nil },
			DirFS:    func(string) fs.FS { return fstest.MapFS{"nodes.yaml": {Data: []byte("{}")}} },
			Cluster:  func(kubeconfig, context string) Cluster { return fakeCluster{kubeconfig + "/" + context} },
		},
		File: file, Inventory: inventory, Live: live,
		Kubeconfig: "kc", Context: "ctx", Namespace: "ns", HelmRelease: "sylva-units",
	}
}

// input is what src names, "" for none.
func input(src interface{ Input() string }) string {
	if src == nil {
		return ""
	}
	return src.Input()
}

// Each command reads the sources its flags name: offline unless asked
// where plan is, a file before the cluster, the cluster of the connection
// given.
func TestSourcesChooseWhatTheFlagsName(t *testing.T) {
	for _, tt := range []struct {
		name                     string
		file, inventory          string
		live                     bool
		status, inv, cluster, ns string
	}{
		{name: "plan offline"},
		{name: "plan --status", file: "s.yaml", status: "status s.yaml"},
		{name: "plan --live", live: true, status: "status ns kc/ctx", cluster: "facts kc/ctx", ns: status.DefaultNamespace},
		{name: "plan --status --live", file: "s.yaml", live: true, status: "status s.yaml", cluster: "facts kc/ctx"},
		{name: "plan --inventory", inventory: "dump", inv: "inventory dump"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := PlanRequest{Sources: testSources(tt.file, tt.inventory, tt.live)}
			if err := r.readSources(); err != nil {
				t.Fatal(err)
			}
			if got := [4]string{input(r.Status), input(r.Inventory), input(r.Cluster), r.ClusterNamespace}; got != [4]string{tt.status, tt.inv, tt.cluster, tt.ns} {
				t.Errorf("status, inventory, cluster, namespace = %q, want %q", got, [4]string{tt.status, tt.inv, tt.cluster, tt.ns})
			}
		})
	}
	for _, tt := range []struct {
		name                  string
		file                  string
		live                  bool
		fleet, cluster        string
		fromFile, statusOfOne bool
	}{
		{name: "plan -A", fleet: "fleet kc/ctx", cluster: "facts kc/ctx"},
		{name: "plan -A --status", file: "all.yaml", fleet: "status all.yaml", fromFile: true},
		{name: "plan -A --status --kubeconfig", file: "all.yaml", live: true, fleet: "status all.yaml", cluster: "facts kc/ctx", fromFile: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := FleetPlanRequest{Plan: PlanRequest{Sources: testSources(tt.file, "", tt.live)}}
			if err := r.readSources(); err != nil {
				t.Fatal(err)
			}
			if input(r.Source) != tt.fleet || input(r.Plan.Cluster) != tt.cluster || r.FromFile != tt.fromFile || r.Plan.Status != nil {
				t.Errorf("fleet %q, cluster %q, from file %v, one status %v; want %q, %q, %v, none", input(r.Source), input(r.Plan.Cluster), r.FromFile, r.Plan.Status, tt.fleet, tt.cluster, tt.fromFile)
			}
		})
	}
	var v VerifyRequest
	if err := v.SetSources(testSources("", "", false)); err != nil || input(v.Status) != "status ns kc/ctx" || input(v.Facts) != "nodes kc/ctx" {
		t.Errorf("verify live: status %q, facts %q, %v", input(v.Status), input(v.Facts), err)
	}
	if err := v.SetSources(testSources("s.yaml", "dump", false)); err != nil || input(v.Status) != "status s.yaml" || input(v.Facts) != "inventory dump" || v.StatusFile != "s.yaml" {
		t.Errorf("verify offline: status %q, facts %q, %v", input(v.Status), input(v.Facts), err)
	}
	if err := v.SetSources(testSources("s.yaml", "", false)); err == nil || !strings.Contains(err.Error(), "needs both --status FILE and --inventory DIR") {
		t.Errorf("verify --status alone: %v", err)
	}
	var d DrainRequest
	if err := d.SetSources(testSources("", "", false)); err != nil || input(d.Facts) != "facts kc/ctx" {
		t.Errorf("drain-check live: %q, %v", input(d.Facts), err)
	}
	if _, err := testSources("s.yaml", "", true).Lookup(nil)(); err == nil || !strings.Contains(err.Error(), "not both") {
		t.Errorf("lookup from --status and --live: %v", err)
	}
}
