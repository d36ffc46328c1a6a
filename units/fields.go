package units

import (
	"fmt"
	"strconv"
	"strings"
)

func mapField(m map[string]any, key string) (map[string]any, error) {
	switch v := m[key].(type) {
	case nil:
		return map[string]any{}, nil
	case map[string]any:
		return v, nil
	default:
		return nil, fmt.Errorf("%s is %s, want a map", key, describe(v))
	}
}

func flagField(m map[string]any, key string) (Flag, error) {
	f, err := toFlag(m[key])
	if err != nil {
		return Flag{}, fmt.Errorf("%s: %w", key, err)
	}
	return f, nil
}

// toFlag reads a boolean or a template. A string that is not a template is
// read as Helm's tpl would leave it: "true" and "false" are those values,
// any other string is decided at render time.
func toFlag(v any) (Flag, error) {
	switch t := v.(type) {
	case nil:
		return Flag{}, nil
	case bool:
		return Flag{Set: true, Bool: t}, nil
	case string:
		switch strings.TrimSpace(t) {
		case "true":
			return Flag{Set: true, Bool: true}, nil
		case "false":
			return Flag{Set: true}, nil
		}
		return Flag{Set: true, Template: t}, nil
	}
	return Flag{}, fmt.Errorf("%s, want a boolean or a template string", describe(v))
}

func scalarString(v any) (string, error) {
	switch t := v.(type) {
	case nil:
		return "", nil
	case string:
		return t, nil
	case bool:
		return strconv.FormatBool(t), nil
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64), nil
	}
	return "", fmt.Errorf("%s, want a string", describe(v))
}

func stringList(v any) ([]string, error) {
	switch t := v.(type) {
	case nil:
		return nil, nil
	case []any:
		out := make([]string, len(t))
		for i, e := range t {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("entry %d is %s, want a template name", i, describe(e))
			}
			out[i] = s
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s, want a list of template names", describe(v))
}

// describe names the YAML type of v for error messages.
func describe(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64:
		return "the number " + strconv.FormatFloat(t, 'f', -1, 64)
	case string:
		return "a string"
	case []any:
		return "a list"
	case map[string]any:
		return "a map"
	}
	return fmt.Sprintf("a %T", v)
}
