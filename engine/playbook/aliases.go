package playbook

import (
	"gopkg.in/yaml.v3"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// The loader reads a file's node tree where its structure matters (plays,
// task lists, tasks, blocks, role entries). PyYAML gives an alias its
// anchor's object and folds merge keys (`<<`) into the mapping, so a task
// written as `- *task`, a block's `block: *tasks` or a task with
// `<<: *defaults` are what ansible-core loads. The loader does the same
// lazily, at the nodes it reads, and leaves every other alias in place for
// value.FromYAML, which shares an anchor's value as PyYAML does (so an
// alias bomb in vars costs what it costs ansible-playbook: nothing).
//
// What an alias can still multiply is the number of tasks and blocks the
// loader builds (ansible-core builds a Task per occurrence too), so a load
// is refused past maxItems.

// maxItems bounds the tasks and blocks one load builds, with the files it
// imports: far beyond any real playbook, far below what would exhaust
// memory when nested aliases or imports multiply a file.
const maxItems = 1 << 16

// deref follows an alias to its anchor's node.
func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// isMergeKey reports a YAML merge key: `<<` written plain, or tagged.
func isMergeKey(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && (k.Tag == "!!merge" || (k.Value == "<<" && k.Style == 0))
}

// mappingView returns the mapping n as ansible-core's YAML loader
// constructs it: each value an alias points at is its anchor's node, the
// pairs of merged mappings (`<<`) come before the mapping's own, and of a
// key given more than once the last value wins, at the first key's place
// (a Python dict's update). n is returned as it is when it needs none of
// this; otherwise the result is a new node sharing n's children.
func (l *Loader) mappingView(file string, n *yaml.Node) (*yaml.Node, error) {
	n = deref(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return n, nil
	}
	plain := true
	for i := 0; i+1 < len(n.Content); i += 2 {
		if isMergeKey(n.Content[i]) || n.Content[i+1].Kind == yaml.AliasNode {
			plain = false
			break
		}
	}
	if plain && !hasDuplicateKey(n) {
		return n, nil
	}
	if v, ok := l.views[n]; ok {
		if v == nil {
			return nil, parseErr(value.NodePos(file, n), "while constructing a mapping: a merge key refers to a mapping that contains it")
		}
		return v, nil
	}
	if l.views == nil {
		l.views = map[*yaml.Node]*yaml.Node{}
	}
	l.views[n] = nil
	pairs, err := l.flatPairs(file, n)
	if err != nil {
		delete(l.views, n)
		return nil, err
	}
	out := *n
	out.Content = dedupePairs(pairs)
	l.views[n] = &out
	return &out, nil
}

// flatPairs lists a mapping's pairs with its merges folded in, as PyYAML's
// flatten_mapping does: merged pairs first (of a list of mappings, the
// first one's last, so that it wins), then the mapping's own. A merged
// mapping comes in as its view, so each anchor is flattened once however
// often it is merged.
func (l *Loader) flatPairs(file string, n *yaml.Node) ([]*yaml.Node, error) {
	var merged, own []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], deref(n.Content[i+1])
		if !isMergeKey(k) {
			own = append(own, k, v)
			continue
		}
		var srcs []*yaml.Node
		switch v.Kind {
		case yaml.MappingNode:
			srcs = []*yaml.Node{v}
		case yaml.SequenceNode:
			for j := len(v.Content) - 1; j >= 0; j-- {
				m := deref(v.Content[j])
				if m.Kind != yaml.MappingNode {
					return nil, parseErr(value.NodePos(file, m), "while constructing a mapping: expected a mapping for merging, but found %s", nodeKindName(m))
				}
				srcs = append(srcs, m)
			}
		default:
			return nil, parseErr(value.NodePos(file, v), "while constructing a mapping: expected a mapping or list of mappings for merging, but found %s", nodeKindName(v))
		}
		for _, m := range srcs {
			sub, err := l.mappingView(file, m)
			if err != nil {
				return nil, err
			}
			merged = append(merged, sub.Content...)
		}
	}
	return append(merged, own...), nil
}

// dedupePairs keeps one pair per scalar key: the first key, the last value.
func dedupePairs(pairs []*yaml.Node) []*yaml.Node {
	at := map[string]int{}
	out := make([]*yaml.Node, 0, len(pairs))
	for i := 0; i+1 < len(pairs); i += 2 {
		k, v := pairs[i], pairs[i+1]
		if k.Kind == yaml.ScalarNode {
			if j, ok := at[k.Value]; ok {
				out[j+1] = v
				continue
			}
			at[k.Value] = len(out)
		}
		out = append(out, k, v)
	}
	return out
}

func hasMergeKey(n *yaml.Node) bool {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if isMergeKey(n.Content[i]) {
			return true
		}
	}
	return false
}

func hasDuplicateKey(n *yaml.Node) bool {
	if len(n.Content) <= 2 {
		return false
	}
	seen := make(map[string]bool, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; k.Kind == yaml.ScalarNode {
			if seen[k.Value] {
				return true
			}
			seen[k.Value] = true
		}
	}
	return false
}

func nodeKindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.ScalarNode:
		return "scalar"
	case yaml.SequenceNode:
		return "sequence"
	}
	return "mapping"
}

// enterLoad starts a load (a playbook, a role, a task file) or one nested
// in it; the items built count against maxItems from the outermost one.
func (l *Loader) enterLoad() func() {
	if l.loadDepth == 0 {
		l.items = 0
	}
	l.loadDepth++
	return func() { l.loadDepth-- }
}

// countItem counts a task or block built, refusing the load past maxItems.
func (l *Loader) countItem(file string, n *yaml.Node) error {
	l.items++
	if l.items > maxItems {
		return parseErr(value.NodePos(file, n), "this load builds more than %d tasks and blocks (YAML aliases or imports that multiply a task list?)", maxItems)
	}
	return nil
}
