package k8s

import (
	"strconv"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// hideFields returns a copy of obj without the `hidden_fields` paths, such
// as "metadata.managedFields", "spec.containers[0].env" or
// "metadata.annotations[kubectl.kubernetes.io/last-applied-configuration]".
// Containers left empty by a removal are removed too.
func hideFields(obj any, hidden []string) any {
	if len(hidden) == 0 {
		return obj
	}
	out := value.DeepCopy(obj)
	for _, h := range hidden {
		out = hidePath(out, splitFieldPath(h))
	}
	return out
}

// splitFieldPath splits "a.b[c.d][0]" into ["a", "b", "c.d", "0"].
func splitFieldPath(p string) []string {
	var parts []string
	for p != "" {
		switch {
		case p[0] == '[':
			end := strings.IndexByte(p, ']')
			if end < 0 {
				return append(parts, p[1:])
			}
			parts = append(parts, p[1:end])
			p = strings.TrimPrefix(p[end+1:], ".")
		default:
			end := strings.IndexAny(p, ".[")
			if end < 0 {
				return append(parts, p)
			}
			parts = append(parts, p[:end])
			p = strings.TrimPrefix(p[end:], ".")
		}
	}
	return parts
}

func hidePath(v any, path []string) any {
	if len(path) == 0 {
		return v
	}
	switch x := v.(type) {
	case *value.Dict:
		child, ok := x.Get(path[0])
		if !ok {
			return x
		}
		if len(path) == 1 {
			x.Delete(path[0])
			return x
		}
		child = hidePath(child, path[1:])
		if isEmptyContainer(child) {
			x.Delete(path[0])
		} else {
			x.Set(path[0], child)
		}
		return x
	case []any:
		i, err := strconv.Atoi(path[0])
		if err != nil || i < 0 || i >= len(x) {
			return x
		}
		if len(path) == 1 {
			return append(x[:i:i], x[i+1:]...)
		}
		child := hidePath(x[i], path[1:])
		if isEmptyContainer(child) {
			return append(x[:i:i], x[i+1:]...)
		}
		x[i] = child
		return x
	}
	return v
}

func isEmptyContainer(v any) bool {
	switch x := v.(type) {
	case *value.Dict:
		return x.Len() == 0
	case []any:
		return len(x) == 0
	}
	return false
}
