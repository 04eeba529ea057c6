package value

import (
	"fmt"
	"math"
	"math/big"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Pos is a position in a source file, 1-based.
type Pos struct {
	File string
	Line int
	Col  int
}

// String renders the position as file:line:col, or as the file alone when
// the line is unknown (a template file, as ansible-core shows its origin).
func (p Pos) String() string {
	if p.File == "" {
		return "<unknown>"
	}
	if p.Line == 0 {
		return p.File
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// IsZero reports whether the position is unknown.
func (p Pos) IsZero() bool { return p.File == "" && p.Line == 0 }

// NodePos returns the position of a YAML node in file.
func NodePos(file string, n *yaml.Node) Pos {
	if n == nil {
		return Pos{File: file}
	}
	return Pos{File: file, Line: n.Line, Col: n.Column}
}

// Unsafe is a string tagged `!unsafe`: it is never templated.
type Unsafe string

// YAML 1.1 resolution as PyYAML implements it, which is what Ansible uses.
var (
	yamlBool  = regexp.MustCompile(`^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$`)
	yamlNull  = regexp.MustCompile(`^(?:~|null|Null|NULL|)$`)
	yamlInt   = regexp.MustCompile(`^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$`)
	yamlFloat = regexp.MustCompile(`^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)
)

// DecodeYAML parses YAML source into model values, one per document.
func DecodeYAML(file string, src []byte) ([]any, []*yaml.Node, error) {
	if line, _, deep := YAMLTooDeep(src); deep {
		return nil, nil, fmt.Errorf("yaml: line %d: collections nested more than %d levels deep", line, MaxDepth)
	}
	dec := yaml.NewDecoder(strings.NewReader(string(src)))
	var docs []any
	var nodes []*yaml.Node
	for {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			if err.Error() == "EOF" {
				break
			}
			return nil, nil, err
		}
		v, err := FromYAML(file, &n)
		if err != nil {
			return nil, nil, err
		}
		docs = append(docs, v)
		nodes = append(nodes, &n)
	}
	return docs, nodes, nil
}

// FromYAML converts a decoded YAML node to a model value using YAML 1.1
// scalar resolution.
//
// An alias gives the very value of its anchor, as PyYAML's constructor
// gives the anchor's object, rather than a copy: a document of nested
// aliases (an "alias bomb") stays as small as its text. Sharing is safe
// because values are copy-on-write (cow.go): nothing changes a loaded
// list or dict in place.
func FromYAML(file string, n *yaml.Node) (any, error) {
	c := yamlConv{file: file}
	return c.node(n)
}

// yamlConv converts the nodes of one document, remembering the value of
// each anchored node for its aliases.
type yamlConv struct {
	file    string
	anchors map[*yaml.Node]any
}

func (c *yamlConv) node(n *yaml.Node) (any, error) {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return c.node(n.Content[0])
	case yaml.AliasNode:
		if v, ok := c.anchors[n.Alias]; ok {
			return v, nil
		}
		return c.node(n.Alias)
	}
	v, err := c.build(n)
	if err != nil {
		return nil, err
	}
	if n.Anchor != "" {
		if c.anchors == nil {
			c.anchors = map[*yaml.Node]any{}
		}
		c.anchors[n] = v
	}
	return v, nil
}

func (c *yamlConv) build(n *yaml.Node) (any, error) {
	switch n.Kind {
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, e := range n.Content {
			v, err := c.node(e)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		return c.mapping(n)
	case yaml.ScalarNode:
		if n.Tag == "!vault" && n.Style&yaml.TaggedStyle != 0 {
			return Vaulted{Text: n.Value, Pos: NodePos(c.file, n)}, nil
		}
		return ScalarFromYAML(n)
	}
	return nil, nil
}

func (c *yamlConv) mapping(n *yaml.Node) (any, error) {
	d := NewDict(len(n.Content) / 2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, vn := n.Content[i], n.Content[i+1]
		if k.Tag == "!!merge" || (k.Value == "<<" && k.Style == 0) {
			if err := c.mergeInto(d, vn); err != nil {
				return nil, err
			}
			continue
		}
		kv, err := c.node(k)
		if err != nil {
			return nil, err
		}
		v, err := c.node(vn)
		if err != nil {
			return nil, err
		}
		switch kv.(type) {
		case bool, int, float64, *big.Int:
			d.SetKey(kv, v)
		default:
			d.Set(keyString(kv), v)
		}
	}
	return d, nil
}

func keyString(k any) string {
	switch x := k.(type) {
	case string:
		return x
	case Unsafe:
		return string(x)
	case nil:
		return "None"
	}
	return Str(k)
}

func (c *yamlConv) mergeInto(d *Dict, vn *yaml.Node) error {
	v, err := c.node(vn)
	if err != nil {
		return err
	}
	var srcs []any
	if l, ok := v.([]any); ok {
		srcs = l
	} else {
		srcs = []any{v}
	}
	for _, s := range srcs {
		if m, ok := s.(*Dict); ok {
			m.Each(func(k string, e any) bool {
				if !d.Has(k) {
					d.Set(k, e)
				}
				return true
			})
		}
	}
	return nil
}

// ScalarFromYAML resolves one scalar node.
func ScalarFromYAML(n *yaml.Node) (any, error) {
	s := n.Value
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 && n.Style&yaml.TaggedStyle == 0 {
		return s, nil
	}
	if n.Style&yaml.TaggedStyle == 0 {
		// yaml.v3 resolves untagged plain scalars with YAML 1.2 rules
		// (and tags "yes" or "on" as !!str); Ansible's PyYAML uses 1.1.
		return ResolvePlain(s), nil
	}
	switch n.Tag {
	case "!unsafe":
		return Unsafe(s), nil
	case "!!int":
		return parseYAMLInt(s)
	case "!!float":
		return parseYAMLFloat(s)
	case "!!bool":
		return yamlBoolValue(s), nil
	case "!!null":
		return nil, nil
	}
	// !!str, !!binary and unknown local tags keep the text (FromYAML makes
	// !vault a Vaulted).
	return s, nil
}

// ResolvePlain applies YAML 1.1 implicit typing to an unquoted scalar.
func ResolvePlain(s string) any {
	switch {
	case yamlNull.MatchString(s):
		return nil
	case yamlBool.MatchString(s):
		return yamlBoolValue(s)
	case yamlInt.MatchString(s):
		if v, err := parseYAMLInt(s); err == nil {
			return v
		}
	case yamlFloat.MatchString(s):
		if v, err := parseYAMLFloat(s); err == nil {
			return v
		}
	}
	return s
}

func yamlBoolValue(s string) bool {
	switch strings.ToLower(s) {
	case "yes", "true", "on":
		return true
	}
	return false
}

func parseYAMLInt(s string) (any, error) {
	t := strings.ReplaceAll(s, "_", "")
	neg := false
	if strings.HasPrefix(t, "-") || strings.HasPrefix(t, "+") {
		neg = t[0] == '-'
		t = t[1:]
	}
	if strings.Contains(t, ":") {
		// YAML 1.1 sexagesimal: 1:30 is 90.
		n := new(big.Int)
		for _, part := range strings.Split(t, ":") {
			d, err := strconv.Atoi(part)
			if err != nil {
				return nil, err
			}
			n.Mul(n, big.NewInt(60)).Add(n, big.NewInt(int64(d)))
		}
		if neg {
			n.Neg(n)
		}
		return NormInt(n), nil
	}
	base := 10
	switch {
	case strings.HasPrefix(t, "0b"):
		base, t = 2, t[2:]
	case strings.HasPrefix(t, "0x"):
		base, t = 16, t[2:]
	case strings.HasPrefix(t, "0o"):
		base, t = 8, t[2:]
	case len(t) > 1 && t[0] == '0':
		base, t = 8, t[1:]
	}
	v, ok := new(big.Int).SetString(t, base)
	if !ok {
		return nil, fmt.Errorf("invalid integer %q", s)
	}
	if neg {
		v.Neg(v)
	}
	return NormInt(v), nil
}

func parseYAMLFloat(s string) (any, error) {
	t := strings.ReplaceAll(s, "_", "")
	switch strings.ToLower(strings.TrimLeft(t, "+-")) {
	case ".inf":
		if strings.HasPrefix(t, "-") {
			return math.Inf(-1), nil
		}
		return math.Inf(1), nil
	case ".nan":
		return math.NaN(), nil
	}
	if strings.Contains(t, ":") {
		neg := strings.HasPrefix(t, "-")
		f := 0.0
		for _, part := range strings.Split(strings.TrimLeft(t, "+-"), ":") {
			p, err := strconv.ParseFloat(part, 64)
			if err != nil {
				return nil, err
			}
			f = f*60 + p
		}
		if neg {
			f = -f
		}
		return f, nil
	}
	return strconv.ParseFloat(t, 64)
}

// DuplicateKey is a mapping key given twice in a YAML document; Pos is the
// later occurrence, whose value wins.
type DuplicateKey struct {
	Key string
	Pos Pos
}

// DuplicateKeys lists the repeated mapping keys under n, in document order,
// for ansible-core's "Found duplicate mapping key" warning.
func DuplicateKeys(file string, n *yaml.Node) []DuplicateKey {
	var out []DuplicateKey
	var walk func(*yaml.Node)
	walk = func(n *yaml.Node) {
		if n == nil {
			return
		}
		if n.Kind == yaml.MappingNode {
			seen := map[string]bool{}
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				if k.Kind == yaml.ScalarNode && !(k.Value == "<<" && k.Style == 0) {
					if seen[k.Value] {
						out = append(out, DuplicateKey{Key: k.Value, Pos: NodePos(file, k)})
					}
					seen[k.Value] = true
				}
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(n)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Pos, out[j].Pos
		return a.Line < b.Line || (a.Line == b.Line && a.Col < b.Col)
	})
	return out
}
