package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"

	"gitlab.com/sylva-projects/sylva-planner/removedapis"
)

// The methods prerelease-lifecycle-gen adds to the types of k8s.io/api.
type (
	removedLifecycle    interface{ APILifecycleRemoved() (major, minor int) }
	deprecatedLifecycle interface{ APILifecycleDeprecated() (major, minor int) }
	replacedLifecycle   interface {
		APILifecycleReplacement() schema.GroupVersionKind
	}
)

// generate returns the knowledge base as indented JSON.
func generate() ([]byte, error) {
	horizon, apiVersion, err := horizonFromGoMod()
	if err != nil {
		return nil, err
	}
	list := fromScheme(scheme.Scheme, "k8s.io/api "+apiVersion)
	known := map[string]bool{}
	for _, a := range list {
		known[key(a)] = true
	}
	for _, a := range supplement {
		if !known[key(a)] {
			list = append(list, a)
			known[key(a)] = true
		}
	}
	removedapis.SortAPIs(list)
	kb := removedapis.KB{Horizon: horizon, Generator: "go generate ./removedapis (removedapis/internal/gen)", APIs: list}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(kb); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func key(a removedapis.API) string { return a.Group + "/" + a.Version + "/" + a.Kind }

// fromScheme calls the lifecycle methods of every kind registered in s.
func fromScheme(s *runtime.Scheme, source string) []removedapis.API {
	var out []removedapis.API
	for gvk, t := range s.AllKnownTypes() {
		if gvk.Version == runtime.APIVersionInternal || strings.HasSuffix(gvk.Kind, "List") {
			continue
		}
		obj := reflectNew(t)
		r, ok := obj.(removedLifecycle)
		if !ok {
			continue
		}
		maj, min := r.APILifecycleRemoved()
		if maj == 0 {
			continue
		}
		a := removedapis.API{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind, Removed: fmt.Sprintf("%d.%d", maj, min), Source: source}
		if d, ok := obj.(deprecatedLifecycle); ok {
			if maj, min := d.APILifecycleDeprecated(); maj > 0 {
				a.Deprecated = fmt.Sprintf("%d.%d", maj, min)
			}
		}
		if rp, ok := obj.(replacedLifecycle); ok {
			if g := rp.APILifecycleReplacement(); g.Kind != "" {
				a.Replacement = strings.TrimPrefix(g.Group+"/"+g.Version, "/") + " " + g.Kind
			}
		}
		out = append(out, a)
	}
	return out
}

var apiRequire = regexp.MustCompile(`(?m)^\s*k8s\.io/api v0\.(\d+)\.(\d+)`)

// horizonFromGoMod reads the version of k8s.io/api the module requires:
// v0.N.x ships the types of Kubernetes 1.N, the newest minor it knows.
func horizonFromGoMod() (horizon, version string, err error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", "", err
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil {
			m := apiRequire.FindSubmatch(data)
			if m == nil {
				return "", "", errors.New("go.mod does not require k8s.io/api")
			}
			return "1." + string(m[1]), "v0." + string(m[1]) + "." + string(m[2]), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", "", errors.New("go.mod not found")
		}
		dir = parent
	}
}
