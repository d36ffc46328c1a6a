// Command gen writes the removed-API knowledge base of package removedapis from
// the lifecycle methods of the k8s.io/api types (APILifecycleRemoved,
// APILifecycleDeprecated, APILifecycleReplacement) and the cited supplement
// of supplement.go.
//
// Usage (from removedapis/): go run ./internal/gen -o data/removed.json
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	out := flag.String("o", "data/removed.json", "output `FILE`")
	flag.Parse()
	data, err := generate()
	if err != nil {
		fmt.Fprintf(os.Stderr, "gen: %v\n", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		fmt.Fprintf(os.Stderr, "gen: %v\n", err)
		os.Exit(1)
	}
}
