package template

import (
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// jsonYAMLFilters returns ansible-core's JSON and YAML filters.
func jsonYAMLFilters() Library {
	return Library{Collection: "ansible.builtin", Filters: map[string]FilterFunc{
		"from_json":     filterFromJSON,
		"from_yaml":     filterFromYAML,
		"from_yaml_all": filterFromYAMLAll,
		"to_json":       filterToJSON,
		"to_nice_json":  filterToNiceJSON,
		"to_nice_yaml":  filterToNiceYAML,
		"to_yaml":       filterToYAML,
	}}
}

func filterToJSON(_ *Ctx, in any, a *Args) (any, error) {
	if len(a.Pos) > 1 {
		return nil, TypeErrorf("to_json() takes from 1 to 2 positional arguments but %d were given", len(a.Pos)+1)
	}
	o := py.JSONDumpOptions{ItemSep: ", ", KeySep: ": ", EnsureASCII: true, AllowNaN: true}
	o, err := o.WithKwargs(a.Kw)
	if err != nil {
		return nil, err
	}
	return py.JSONDumps(in, o)
}

func filterToNiceJSON(_ *Ctx, in any, a *Args) (any, error) {
	if len(a.Pos) > 2 {
		return nil, TypeErrorf("to_nice_json() takes from 1 to 3 positional arguments but %d were given", len(a.Pos)+1)
	}
	kw := value.NewDict(4)
	kw.Set("indent", a.Default(0, "", 4))
	kw.Set("sort_keys", a.Default(1, "", true))
	if a.Kw != nil {
		for _, k := range a.Kw.Keys() {
			v, _ := a.Kw.Get(k)
			if k == "separators" {
				continue
			}
			if (k == "indent" && len(a.Pos) > 0) || (k == "sort_keys" && len(a.Pos) > 1) {
				return nil, TypeErrorf("to_nice_json() got multiple values for argument '%s'", k)
			}
			kw.Set(k, v)
		}
	}
	o := py.JSONDumpOptions{ItemSep: ",", KeySep: ": ", EnsureASCII: true, AllowNaN: true, SepsSet: true}
	o, err := o.WithKwargs(kw)
	if err != nil {
		return nil, err
	}
	o.ItemSep, o.KeySep = ",", ": "
	return py.JSONDumps(in, o)
}

func filterFromJSON(_ *Ctx, in any, a *Args) (any, error) {
	v, extra, err := py.Signature{Fn: "from_json", Params: []py.Param{py.OptNone("profile")}, VarKw: true}.BindKw(a)
	if err != nil {
		return nil, err
	}
	_ = v
	if extra != nil && extra.Len() > 0 {
		return nil, TypeErrorf("JSONDecoder.__init__() got an unexpected keyword argument '%s'", extra.Keys()[0])
	}
	s, ok := in.(string)
	if !ok {
		return nil, TypeErrorf("the JSON object must be str, bytes or bytearray, not %s", value.TypeName(in))
	}
	return py.JSONLoads(s)
}

func filterFromYAML(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("from_yaml").Bind(a); err != nil {
		return nil, err
	}
	s, ok := in.(string)
	if !ok {
		return in, nil
	}
	docs, err := yamlDocs(s)
	if err != nil {
		return nil, err
	}
	switch len(docs) {
	case 0:
		return nil, nil
	case 1:
		return docs[0], nil
	}
	return nil, TypeErrorf("expected a single document in the stream")
}

func filterFromYAMLAll(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("from_yaml_all").Bind(a); err != nil {
		return nil, err
	}
	if in == nil {
		return []any{}, nil
	}
	s, ok := in.(string)
	if !ok {
		return in, nil
	}
	docs, err := yamlDocs(s)
	if err != nil {
		return nil, err
	}
	if docs == nil {
		docs = []any{}
	}
	return docs, nil
}

func filterToYAML(_ *Ctx, in any, a *Args) (any, error) {
	o := py.YAMLDumpOptions{Indent: 2, Width: 80, SortKeys: true, Flow: -1}
	if err := o.ApplyKwargs(a.Kw); err != nil {
		return nil, err
	}
	return py.YAMLDump(in, o)
}

func filterToNiceYAML(_ *Ctx, in any, a *Args) (any, error) {
	o := py.YAMLDumpOptions{Indent: 4, Width: 80, SortKeys: true, Flow: 0}
	if v, ok := a.Get(0, ""); ok {
		o.SetIndent(v)
	}
	if err := o.ApplyKwargs(a.Kw); err != nil {
		return nil, err
	}
	return py.YAMLDump(in, o)
}

// yamlDocs reads the documents of a YAML stream as from_yaml does.
func yamlDocs(s string) ([]any, error) {
	docs, _, err := value.DecodeYAML("<string>", []byte(s))
	if err != nil {
		return nil, TypeErrorf("%s", err.Error())
	}
	return docs, nil
}
