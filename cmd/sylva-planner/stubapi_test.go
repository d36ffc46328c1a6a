package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
	"sigs.k8s.io/yaml"
)

// stubAPI is the script command `stubapi [-404] [FILE...]`: an HTTP server
// that answers GET for the objects of the YAML FILEs (one object, or a
// List) at their API paths, /version as Kubernetes 1.31, and a Kubernetes
// NotFound Status for anything else; with -404 it answers a plain 404 to
// everything, as a server that is no Kubernetes API server. It writes the
// kubeconfig kc.yaml (context stub) into $WORK and stops with the script.
func stubAPI(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("usage: stubapi [-404] [FILE...]")
	}
	plain404 := len(args) > 0 && args[0] == "-404"
	if plain404 {
		args = args[1:]
	}
	objects := map[string][]byte{}
	for _, name := range args {
		var doc struct {
			Items []map[string]any `json:"items"`
		}
		data := []byte(ts.ReadFile(name))
		ts.Check(yaml.Unmarshal(data, &doc))
		if doc.Items == nil {
			var obj map[string]any
			ts.Check(yaml.Unmarshal(data, &obj))
			doc.Items = []map[string]any{obj}
		}
		for _, obj := range doc.Items {
			b, err := yaml.Marshal(obj)
			ts.Check(err)
			j, err := yaml.YAMLToJSON(b)
			ts.Check(err)
			objects[objectPath(obj)] = j
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if plain404 {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/version" {
			fmt.Fprint(w, `{"major":"1","minor":"31","gitVersion":"v1.31.0"}`)
			return
		}
		if obj, ok := objects[r.URL.Path]; ok && r.Method == http.MethodGet {
			_, _ = w.Write(obj)
			return
		}
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404,"message":"%s not found"}`, filepath.Base(r.URL.Path))
	}))
	ts.Defer(srv.Close)
	kc := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: stub
  cluster: {server: %q}
users:
- name: stub
  user: {token: stub}
contexts:
- name: stub
  context: {cluster: stub, user: stub}
current-context: stub
`, srv.URL)
	ts.Check(os.WriteFile(ts.MkAbs("kc.yaml"), []byte(kc), 0o600))
}

// objectPath is the API path of obj: /api/v1/… for the core group,
// /apis/GROUP/VERSION/… otherwise, with the plural of its kind.
func objectPath(obj map[string]any) string {
	api, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	md, _ := obj["metadata"].(map[string]any)
	ns, _ := md["namespace"].(string)
	name, _ := md["name"].(string)
	prefix := "/apis/" + api
	if api == "v1" {
		prefix = "/api/v1"
	}
	return fmt.Sprintf("%s/namespaces/%s/%ss/%s", prefix, ns, strings.ToLower(kind), name)
}
