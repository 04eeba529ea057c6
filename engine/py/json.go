package py

import (
	"strings"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// JSONDumpOptions are the json.dumps arguments Ansible's filters pass.
type JSONDumpOptions struct {
	Indent      *string // nil for no indentation
	ItemSep     string
	KeySep      string
	SortKeys    bool
	EnsureASCII bool
	AllowNaN    bool
	SepsSet     bool
}

// SetIndent sets json.dumps' indent argument: a string, a number of spaces
// or None; an indent makes the item separator "," unless separators were
// given.
func (o *JSONDumpOptions) SetIndent(v any) error {
	switch x := v.(type) {
	case nil:
		o.Indent = nil
	case string:
		o.Indent = &x
	default:
		n, ok := value.AsInt(v)
		if !ok {
			return Errorf("can't multiply sequence by non-int of type '%s'", value.TypeName(v))
		}
		s := strings.Repeat(" ", max(n, 0))
		o.Indent = &s
	}
	if !o.SepsSet && o.Indent != nil {
		o.ItemSep = ","
	}
	return nil
}

// JSONDumps is json.dumps with the given options, with Python's errors
// for values it cannot serialize.
func JSONDumps(v any, o JSONDumpOptions) (string, error) {
	s, err := value.EncodeJSON(v, value.JSONOptions{IndentString: o.Indent, SortKeys: o.SortKeys,
		EnsureASCII: o.EnsureASCII, ItemSep: o.ItemSep, KeySep: o.KeySep, RejectNaN: !o.AllowNaN})
	if ue, ok := err.(*value.UnsupportedJSONError); ok {
		if u, isU := ue.Value.(value.Undefined); isU {
			return "", &UndefinedUse{Value: u}
		}
		return "", Errorf("%s", ue.Error())
	}
	return s, err
}

var jsonDumpsKw = map[string]bool{"indent": true, "sort_keys": true, "ensure_ascii": true, "separators": true,
	"allow_nan": true, "skipkeys": true, "check_circular": true, "default": true, "cls": true,
	"profile": true, "vault_to_text": true, "preprocess_unsafe": true}

// WithKwargs returns o with json.dumps' keyword arguments kw applied,
// failing as JSONEncoder does on an unknown one.
func (o JSONDumpOptions) WithKwargs(kw *value.Dict) (JSONDumpOptions, error) {
	if kw == nil {
		return o, nil
	}
	for _, k := range kw.Keys() {
		v, _ := kw.Get(k)
		if !jsonDumpsKw[k] {
			return o, Errorf("JSONEncoder.__init__() got an unexpected keyword argument '%s'", k)
		}
		switch k {
		case "sort_keys":
			o.SortKeys = value.Truthy(v)
		case "ensure_ascii":
			o.EnsureASCII = value.Truthy(v)
		case "allow_nan":
			o.AllowNaN = value.Truthy(v)
		case "separators":
			items, err := Iterate(v)
			if err != nil || len(items) != 2 {
				return o, Errorf("not enough values to unpack (expected 2)")
			}
			o.ItemSep, o.KeySep, o.SepsSet = value.Str(items[0]), value.Str(items[1]), true
		}
	}
	if v, ok := kw.Get("indent"); ok {
		if err := o.SetIndent(v); err != nil {
			return o, err
		}
	}
	return o, nil
}
