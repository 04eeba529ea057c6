package k8s

import (
	"regexp"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// labelSelector is one `label_selectors` entry, matched client-side against
// a definition the way kubernetes.core's LabelSelectorFilter does.
type labelSelector struct {
	key, op string // op: in, notin, exists, !
	values  []string
}

var setBased = regexp.MustCompile(`^( *)([a-z0-9A-Z][a-z0-9A-Z\._-]*[a-z0-9A-Z])( +)(notin|in)( +)\((.*)\)( *)`)

func parseSelector(s string) labelSelector {
	if m := setBased.FindStringSubmatch(s); m != nil {
		sel := labelSelector{key: m[2], op: m[4]}
		for _, v := range strings.Split(m[6], ",") {
			if v != "" {
				sel.values = append(sel.values, strings.ReplaceAll(v, " ", ""))
			}
		}
		return sel
	}
	if !strings.Contains(s, "=") {
		key := strings.Trim(s, " ")
		if strings.HasPrefix(key, "!") {
			return labelSelector{key: strings.TrimLeft(key[1:], " "), op: "!"}
		}
		return labelSelector{key: key, op: "exists"}
	}
	compact := strings.ReplaceAll(s, " ", "")
	for _, op := range []string{"==", "!=", "="} {
		if i := strings.Index(compact, op); i >= 0 {
			kind := "in"
			if op == "!=" {
				kind = "notin"
			}
			return labelSelector{key: compact[:i], op: kind, values: []string{compact[i+len(op):]}}
		}
	}
	return labelSelector{key: s, op: "exists"}
}

func (s labelSelector) match(labels *value.Dict) bool {
	v, has := labels.Get(s.key)
	in := func() bool {
		for _, x := range s.values {
			if has && value.Str(v) == x {
				return true
			}
		}
		return false
	}
	switch s.op {
	case "in":
		return has && in()
	case "notin":
		return !has || !in()
	case "!":
		return !has
	}
	return has
}

// matchesSelectors tells whether a definition's labels satisfy every
// selector.
func matchesSelectors(def *value.Dict, selectors []string) bool {
	labels, ok := field(def, "metadata", "labels").(*value.Dict)
	if !ok {
		return false
	}
	for _, s := range selectors {
		if !parseSelector(s).match(labels) {
			return false
		}
	}
	return true
}
