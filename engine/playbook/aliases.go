package playbook

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// maxExpandedNodes bounds what a file's aliases may expand to. The loader
// walks the node tree, so an alias makes it walk its anchor's subtree once
// more; nested aliases (an "alias bomb") would make that walk, and the
// tasks it builds, grow exponentially with the file's length.
const maxExpandedNodes = 1 << 20

// isMergeKey reports a YAML merge key: `<<` written plain, or tagged.
func isMergeKey(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && (k.Tag == "!!merge" || (k.Value == "<<" && k.Style == 0))
}

// flattenMerges does what PyYAML's flatten_mapping does to a mapping with
// merge keys: the pairs of the merged mappings come first (of a list of
// mappings, the first one's pairs last, so that it wins), then the
// mapping's own pairs, which win over all of them; the loader's duplicate
// key warning then sees the same pairs as ansible-core's does. It returns
// how many pairs it added (their nodes are shared, not copied).
func flattenMerges(n *yaml.Node) (int, error) {
	var merged, own []*yaml.Node
	found := false
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !isMergeKey(k) {
			own = append(own, k, v)
			continue
		}
		found = true
		switch v.Kind {
		case yaml.MappingNode:
			merged = append(merged, v.Content...)
		case yaml.SequenceNode:
			for j := len(v.Content) - 1; j >= 0; j-- {
				m := v.Content[j]
				if m.Kind != yaml.MappingNode {
					return 0, fmt.Errorf("line %d: while constructing a mapping, expected a mapping for merging, but found %s", m.Line, nodeKindName(m))
				}
				merged = append(merged, m.Content...)
			}
		default:
			return 0, fmt.Errorf("line %d: while constructing a mapping, expected a mapping or list of mappings for merging, but found %s", v.Line, nodeKindName(v))
		}
	}
	if !found {
		return 0, nil
	}
	n.Content = append(merged, own...)
	return len(merged), nil
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

// resolveAliases makes each alias in root's tree point at its anchor's
// node itself (shared, not copied), as PyYAML's constructor gives an
// alias its anchor's object, so that the loader sees an aliased task,
// block or value where it was written. A file whose aliases would expand
// to more than maxExpandedNodes nodes is refused; the error gives the
// line of the alias that crosses the bound.
func resolveAliases(root *yaml.Node) (*yaml.Node, error) {
	if root == nil {
		return nil, nil
	}
	sizes := map[*yaml.Node]int{}
	var walk func(n *yaml.Node) (int, error)
	walk = func(n *yaml.Node) (int, error) {
		if s, ok := sizes[n]; ok {
			if s < 0 {
				return 0, fmt.Errorf("line %d: an alias refers to a node that contains it", n.Line)
			}
			return s, nil
		}
		sizes[n] = -1
		total := 1
		for i, c := range n.Content {
			if c.Kind == yaml.AliasNode && c.Alias != nil {
				c = c.Alias
				n.Content[i] = c
			}
			s, err := walk(c)
			if err != nil {
				return 0, err
			}
			total += s
			if total > maxExpandedNodes {
				return 0, fmt.Errorf("line %d: the aliases of this file expand to more than %d YAML nodes", c.Line, maxExpandedNodes)
			}
		}
		if n.Kind == yaml.MappingNode {
			added, err := flattenMerges(n)
			if err != nil {
				return 0, err
			}
			if total += added; total > maxExpandedNodes {
				return 0, fmt.Errorf("line %d: the merge keys of this file expand to more than %d YAML nodes", n.Line, maxExpandedNodes)
			}
		}
		sizes[n] = total
		return total, nil
	}
	if root.Kind == yaml.AliasNode && root.Alias != nil {
		root = root.Alias
	}
	_, err := walk(root)
	return root, err
}
