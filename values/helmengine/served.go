package helmengine

import (
	"fmt"
	"slices"

	"helm.sh/helm/v3/pkg/chartutil"
)

// ServedSource is a Source that also says which API versions its cluster
// serves: the render's .Capabilities.APIVersions then holds them, as
// helm-controller's render holds the cluster's ("group/version" and
// "group/version/Kind"), so that a template guarding a lookup with
// .Capabilities.APIVersions.Has reads the same there and here. Without
// one, .Capabilities.APIVersions is Helm's default set (helm template).
type ServedSource interface {
	Source
	APIVersions() ([]string, error)
}

// APIVersions are the API versions of the objects o serves, each as
// "group/version" and "group/version/Kind": the cluster of o serves the
// kinds of its objects.
func (o *Objects) APIVersions() ([]string, error) {
	var out []string
	for _, it := range o.items {
		av, _ := it["apiVersion"].(string)
		kind, _ := it["kind"].(string)
		if av == "" || kind == "" {
			continue
		}
		out = append(out, av, av+"/"+kind)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// addServed adds the API versions src serves, when it says, to caps.
func addServed(caps *chartutil.Capabilities, src Source) error {
	s, ok := src.(ServedSource)
	if !ok {
		return nil
	}
	served, err := s.APIVersions()
	if err != nil {
		return fmt.Errorf("read the API versions the cluster serves (.Capabilities.APIVersions): %w", err)
	}
	caps.APIVersions = slices.Clone(caps.APIVersions)
	for _, v := range served {
		if !caps.APIVersions.Has(v) {
			caps.APIVersions = append(caps.APIVersions, v)
		}
	}
	return nil
}
