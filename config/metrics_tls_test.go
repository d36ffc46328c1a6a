package config_test

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"gitlab.com/sylva-projects/sylva-planner/reconciler"
)

func nested(t *testing.T, obj map[string]any, path ...string) any {
	t.Helper()
	v, ok, err := unstructured.NestedFieldNoCopy(obj, path...)
	if err != nil || !ok {
		t.Fatalf("%s %v: field %v absent (%v)", obj["kind"], obj["metadata"], path, err)
	}
	return v
}

// TestTheServiceMonitorVerifiesTheIssuedCertificate checks that the
// ServiceMonitor verifies the controller's certificate, against the CA of
// the Secret cert-manager issues for the metrics Service's name, and that
// the Deployment mounts that Secret where the controller reads it.
func TestTheServiceMonitorVerifiesTheIssuedCertificate(t *testing.T) {
	prom, def := build(t, "prometheus"), build(t, "default")
	sm := find(prom, "ServiceMonitor", "sylva-planner-controller")
	cert := find(prom, "Certificate", "sylva-planner-metrics")
	svc := find(def, "Service", "sylva-planner-metrics")
	deploy := find(def, "Deployment", "sylva-planner-controller")
	if sm == nil || cert == nil || svc == nil || deploy == nil {
		t.Fatal("the ServiceMonitor, the Certificate, the metrics Service or the Deployment is missing")
	}
	endpoints := nested(t, sm, "spec", "endpoints").([]any)
	if len(endpoints) != 1 {
		t.Fatalf("%d ServiceMonitor endpoints, want 1", len(endpoints))
	}
	ep := endpoints[0].(map[string]any)
	tlsConfig, _ := ep["tlsConfig"].(map[string]any)
	if skip, _ := tlsConfig["insecureSkipVerify"].(bool); skip || ep["scheme"] != "https" {
		t.Errorf("ServiceMonitor endpoint scheme %v, tlsConfig %v: want https with verification", ep["scheme"], tlsConfig)
	}
	secretName := nested(t, cert, "spec", "secretName")
	if ca := nested(t, tlsConfig, "ca", "secret"); !reflect.DeepEqual(ca, map[string]any{"name": secretName, "key": "ca.crt"}) {
		t.Errorf("ServiceMonitor CA %v, want ca.crt of the Secret %v the Certificate is issued into", ca, secretName)
	}
	svcNS := nested(t, svc, "metadata", "namespace")
	serverName := fmt.Sprintf("%s.%s.svc", nested(t, svc, "metadata", "name"), svcNS)
	if tlsConfig["serverName"] != serverName {
		t.Errorf("ServiceMonitor serverName %v, want the metrics Service's name %s", tlsConfig["serverName"], serverName)
	}
	if dns := nested(t, cert, "spec", "dnsNames").([]any); !slices.Contains(dns, any(serverName)) {
		t.Errorf("Certificate dnsNames %v lack %s", dns, serverName)
	}
	for _, o := range []map[string]any{sm, cert} {
		if ns := nested(t, o, "metadata", "namespace"); ns != svcNS {
			t.Errorf("%s in namespace %v, want %v with the Service and the Secret", o["kind"], ns, svcNS)
		}
	}

	spec := nested(t, deploy, "spec", "template", "spec").(map[string]any)
	volume := ""
	for _, v := range spec["volumes"].([]any) {
		v := v.(map[string]any)
		if s, _ := v["secret"].(map[string]any); s != nil && s["secretName"] == secretName {
			volume, _ = v["name"].(string)
		}
	}
	mounted := ""
	for _, m := range spec["containers"].([]any)[0].(map[string]any)["volumeMounts"].([]any) {
		if m := m.(map[string]any); m["name"] == volume {
			mounted, _ = m["mountPath"].(string)
		}
	}
	if volume == "" || mounted != reconciler.DefaultMetricsCertDir {
		t.Errorf("the Deployment mounts the Secret %v (volume %q) at %q, want it at %s", secretName, volume, mounted, reconciler.DefaultMetricsCertDir)
	}
}

// TestTheNetworkPolicyAdmitsOnlyPrometheusAndProbes checks the controller's
// NetworkPolicy against its Deployment: it selects the controller's pods,
// admits only ingress, to the metrics port from Prometheus and to the probe
// port; the API server accepts it (TestTheControllerServiceAccount… applies
// config/default).
func TestTheNetworkPolicyAdmitsOnlyPrometheusAndProbes(t *testing.T) {
	objs := build(t, "default")
	np := find(objs, "NetworkPolicy", "sylva-planner-controller")
	deploy := find(objs, "Deployment", "sylva-planner-controller")
	if np == nil || deploy == nil {
		t.Fatal("config/default has no NetworkPolicy or Deployment sylva-planner-controller")
	}
	podLabels := nested(t, deploy, "spec", "template", "metadata", "labels").(map[string]any)
	for k, v := range nested(t, np, "spec", "podSelector", "matchLabels").(map[string]any) {
		if podLabels[k] != v {
			t.Errorf("the NetworkPolicy selects %s=%v, which the controller's pods do not carry", k, v)
		}
	}
	if types := nested(t, np, "spec", "policyTypes").([]any); !slices.Contains(types, any("Ingress")) {
		t.Errorf("policyTypes %v, want Ingress", types)
	}
	ports := map[any]bool{}
	for _, p := range nested(t, deploy, "spec", "template", "spec", "containers").([]any)[0].(map[string]any)["ports"].([]any) {
		ports[p.(map[string]any)["name"]] = true
	}
	var open []string
	for _, rule := range nested(t, np, "spec", "ingress").([]any) {
		rule := rule.(map[string]any)
		rulePorts, _ := rule["ports"].([]any)
		if len(rulePorts) == 0 {
			t.Errorf("an ingress rule admits every port: %v", rule)
		}
		for _, p := range rulePorts {
			name := p.(map[string]any)["port"]
			if !ports[name] {
				t.Errorf("the NetworkPolicy admits port %v, which the controller does not name", name)
			}
			from, _ := rule["from"].([]any)
			open = append(open, fmt.Sprintf("%v from %d peer(s)", name, len(from)))
			if name == "metrics" && len(from) == 0 {
				t.Errorf("the metrics port is open to every source")
			}
		}
	}
	if want := []string{"metrics from 1 peer(s)", "probes from 0 peer(s)"}; !slices.Equal(open, want) {
		t.Errorf("ingress %v, want %v", open, want)
	}
}
