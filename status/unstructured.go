package status

import (
	"encoding/json"
	"fmt"
)

// Helpers over unstructured objects: the maps and values a YAML or JSON
// decoder returns.

func scalar(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case bool:
		return fmt.Sprint(x), true
	case float64:
		return fmt.Sprint(x), true
	case int64, int, json.Number:
		return fmt.Sprint(x), true
	}
	return "", false
}

func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64, int64, int, json.Number:
		return "a number"
	case []any:
		return "a list"
	case map[string]any:
		return "a map"
	}
	return fmt.Sprintf("%T", v)
}

func apiVersion(obj map[string]any) string {
	s, _ := obj["apiVersion"].(string)
	return s
}

// nested returns obj[path[0]][path[1]]…, or nil.
func nested(obj map[string]any, path ...string) any {
	var cur any = obj
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[p]
	}
	return cur
}
