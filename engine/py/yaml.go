package py

import (
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// YAMLDumpOptions are the yaml.dump arguments Ansible's to_yaml and
// to_nice_yaml pass (with PyYAML's SafeDumper and allow_unicode).
type YAMLDumpOptions struct {
	Indent        int
	Width         int
	SortKeys      bool
	Flow          int // -1 None (leaf collections in flow), 0 block, 1 flow
	ExplicitStart bool
	ExplicitEnd   bool
	// BlockMultiline writes strings holding a line break in literal
	// block style (|), as the callbacks' YAML result format does; Lossy
	// first makes such a string fit that style, as their default does.
	BlockMultiline, Lossy bool
}

// SetIndent sets the indent; PyYAML ignores one outside 2..9.
func (o *YAMLDumpOptions) SetIndent(v any) {
	if n, ok := value.AsInt(v); ok && n > 1 && n < 10 {
		o.Indent = n
	} else {
		o.Indent = 2
	}
}

// ApplyKwargs applies yaml.dump's keyword arguments kw, failing as PyYAML
// does on an unknown one.
func (o *YAMLDumpOptions) ApplyKwargs(kw *value.Dict) error {
	if kw == nil {
		return nil
	}
	for _, k := range kw.Keys() {
		v, _ := kw.Get(k)
		switch k {
		case "default_flow_style":
			switch {
			case v == nil:
				o.Flow = -1
			case value.Truthy(v):
				o.Flow = 1
			default:
				o.Flow = 0
			}
		case "indent":
			o.SetIndent(v)
		case "width":
			if n, ok := value.AsInt(v); ok {
				o.Width = n
			} else if f, ok := v.(float64); ok && math.IsInf(f, 1) {
				o.Width = math.MaxInt32
			}
		case "sort_keys":
			o.SortKeys = value.Truthy(v)
		case "explicit_start":
			o.ExplicitStart = value.Truthy(v)
		case "explicit_end":
			o.ExplicitEnd = value.Truthy(v)
		case "allow_unicode":
			return Errorf("yaml.dump() got multiple values for keyword argument 'allow_unicode'")
		case "canonical", "line_break", "encoding", "version", "tags", "default_style":
		default:
			return Errorf("dump_all() got an unexpected keyword argument '%s'", k)
		}
	}
	return nil
}

// yamlEvent is one serializer event for the emitter.
type yamlEvent struct {
	kind     byte // 's' scalar, '[' seq start, ']' seq end, '{' map start, '}' map end
	val      string
	implicit bool // plain scalar resolves back to the same type
	flow     bool
	literal  bool // asks for the literal block style
}

func yamlEvents(v any, o YAMLDumpOptions, out *[]yamlEvent) error {
	switch x := v.(type) {
	case nil:
		*out = append(*out, yamlEvent{kind: 's', val: "null", implicit: true})
	case bool:
		s := "false"
		if x {
			s = "true"
		}
		*out = append(*out, yamlEvent{kind: 's', val: s, implicit: true})
	case int:
		*out = append(*out, yamlEvent{kind: 's', val: strconv.Itoa(x), implicit: true})
	case float64:
		var s string
		switch {
		case math.IsNaN(x):
			s = ".nan"
		case math.IsInf(x, 1):
			s = ".inf"
		case math.IsInf(x, -1):
			s = "-.inf"
		default:
			s = strings.ToLower(value.FormatFloat(x))
			if !strings.Contains(s, ".") && strings.Contains(s, "e") {
				s = strings.Replace(s, "e", ".0e", 1)
			}
		}
		*out = append(*out, yamlEvent{kind: 's', val: s, implicit: true})
	case string:
		if o.BlockMultiline && strings.ContainsAny(x, yamlBreakChars) {
			if o.Lossy {
				x = lossyBlockText(x)
			}
			*out = append(*out, yamlEvent{kind: 's', val: x, implicit: !yamlResolvesNonStr(x), literal: true})
			break
		}
		*out = append(*out, yamlEvent{kind: 's', val: x, implicit: !yamlResolvesNonStr(x)})
	case value.Omit:
		*out = append(*out, yamlEvent{kind: 's', val: value.OmitPlaceholder, implicit: true})
	case *Datetime:
		*out = append(*out, yamlEvent{kind: 's', val: x.String(), implicit: true})
	case []any, value.Tuple, *Range:
		items, _ := Iterate(x)
		flow := o.Flow == 1
		if o.Flow == -1 {
			flow = true
			for _, it := range items {
				if !yamlIsScalar(it) {
					flow = false
				}
			}
		}
		*out = append(*out, yamlEvent{kind: '[', flow: flow})
		for _, it := range items {
			if err := yamlEvents(it, o, out); err != nil {
				return err
			}
		}
		*out = append(*out, yamlEvent{kind: ']'})
	case *value.Dict:
		keys := append([]string(nil), x.Keys()...)
		if o.SortKeys {
			sort.Strings(keys)
		}
		flow := o.Flow == 1
		if o.Flow == -1 {
			flow = true
			x.Each(func(_ string, e any) bool {
				if !yamlIsScalar(e) {
					flow = false
				}
				return flow
			})
		}
		*out = append(*out, yamlEvent{kind: '{', flow: flow})
		for _, k := range keys {
			e, _ := x.Get(k)
			*out = append(*out, yamlEvent{kind: 's', val: k, implicit: !yamlResolvesNonStr(k)})
			if err := yamlEvents(e, o, out); err != nil {
				return err
			}
		}
		*out = append(*out, yamlEvent{kind: '}'})
	case value.Undefined:
		return &UndefinedUse{Value: x}
	default:
		return Errorf("cannot represent an object: %s", value.Repr(v))
	}
	return nil
}

func yamlIsScalar(v any) bool {
	switch v.(type) {
	case []any, value.Tuple, *value.Dict, *Range:
		return false
	}
	return true
}

// PyYAML's implicit resolvers (YAML 1.1).
var (
	yamlResBool  = regexp.MustCompile(`^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$`)
	yamlResFloat = regexp.MustCompile(`^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)
	yamlResInt   = regexp.MustCompile(`^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$`)
	yamlResNull  = regexp.MustCompile(`^(?:~|null|Null|NULL|)$`)
	yamlResTime  = regexp.MustCompile(`^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$`)
)

func yamlResolvesNonStr(s string) bool {
	return yamlResBool.MatchString(s) || yamlResFloat.MatchString(s) || yamlResInt.MatchString(s) ||
		yamlResNull.MatchString(s) || yamlResTime.MatchString(s) || s == "=" || s == "<<"
}

// YAMLDump is yaml.dump(v) with PyYAML's SafeDumper, as Ansible's
// to_yaml filters call it.
func YAMLDump(v any, o YAMLDumpOptions) (string, error) {
	var evs []yamlEvent
	if err := yamlEvents(v, o, &evs); err != nil {
		return "", err
	}
	e := &yamlEmitter{events: evs, bestIndent: o.Indent, bestWidth: 80, indent: -1, whitespace: true, indention: true}
	if o.Width > o.Indent*2 {
		e.bestWidth = o.Width
	}
	if o.ExplicitStart {
		e.writeIndicator("---", true, false, false)
	}
	e.node(true, false, false, false)
	e.writeIndent()
	if o.ExplicitEnd {
		e.writeIndicator("...", true, false, false)
		e.writeIndent()
	}
	return e.b.String(), nil
}
