package yamldoc

import (
	"bytes"
	"fmt"

	yaml "go.yaml.in/yaml/v3"
)

// DuplicateKey reports the first map key written twice in the same map of
// any document of data, as an error naming the key and both lines. YAML
// forbids it, but most Kubernetes readers (Helm's values among them) keep
// the last value silently: an input given twice its sylva_release, say,
// would be read as only one of them. Merge keys (<<) are not counted.
// Text that is not YAML is not an error here: the reader's own parser
// says what is wrong with it.
func DuplicateKey(data []byte) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	// Decoding stops at the end, or at text its reader will refuse.
	var doc yaml.Node
	for dec.Decode(&doc) == nil {
		if err := duplicateIn(&doc); err != nil {
			return err
		}
		doc = yaml.Node{}
	}
	return nil
}

// DuplicateKeyError is a key given twice in one map.
type DuplicateKeyError struct {
	Key           string
	First, Second int // lines
}

func (e *DuplicateKeyError) Error() string {
	return fmt.Sprintf("key %q is given twice in the same map (lines %d and %d); give it once", e.Key, e.First, e.Second)
}

func duplicateIn(n *yaml.Node) error {
	if n.Kind == yaml.MappingNode {
		seen := make(map[string]int, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode || k.Value == "<<" {
				continue
			}
			if line, ok := seen[k.Value]; ok {
				return &DuplicateKeyError{Key: k.Value, First: line, Second: k.Line}
			}
			seen[k.Value] = k.Line
		}
	}
	for _, c := range n.Content {
		if err := duplicateIn(c); err != nil {
			return err
		}
	}
	return nil
}
