package template

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha3"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"hash"
	"math"
	"math/big"
	"net/netip"
	"os"
	"os/user"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// ansibleFilters returns the filters Ansible adds to Jinja2's (and those it
// replaces: random, unique, default...).
func ansibleFilters() map[string]FilterFunc {
	builtin := map[string]FilterFunc{
		"mandatory":            filterMandatory,
		"bool":                 filterBool,
		"combine":              filterCombine,
		"ternary":              filterTernary,
		"b64encode":            filterB64encode,
		"b64decode":            filterB64decode,
		"to_json":              filterToJSON,
		"to_nice_json":         filterToNiceJSON,
		"from_json":            filterFromJSON,
		"to_yaml":              filterToYAML,
		"to_nice_yaml":         filterToNiceYAML,
		"from_yaml":            filterFromYAML,
		"from_yaml_all":        filterFromYAMLAll,
		"dict2items":           filterDict2items,
		"items2dict":           filterItems2dict,
		"regex_replace":        filterRegexReplace,
		"regex_search":         filterRegexSearch,
		"regex_findall":        filterRegexFindall,
		"regex_escape":         filterRegexEscape,
		"flatten":              filterFlatten,
		"zip":                  filterZip,
		"zip_longest":          filterZipLongest,
		"union":                setFilter("union"),
		"intersect":            setFilter("intersect"),
		"difference":           setFilter("difference"),
		"symmetric_difference": setFilter("symmetric_difference"),
		"unique":               filterUnique,
		"hash":                 filterHash,
		"checksum":             hashFilter("secure_hash_s", "sha1"),
		"sha1":                 hashFilter("secure_hash_s", "sha1"),
		"md5":                  hashFilter("md5s", "md5"),
		"quote":                filterQuote,
		"basename":             pathFilter("basename", py.Basename),
		"dirname":              pathFilter("dirname", py.Dirname),
		"expanduser":           filterExpanduser,
		"expandvars":           filterExpandvars,
		"realpath":             pathFilter("realpath", py.Realpath),
		"normpath":             pathFilter("normpath", py.Normpath),
		"relpath":              filterRelpath,
		"splitext":             filterSplitext,
		"path_join":            filterPathJoin,
		"commonpath":           filterCommonpath,
		"win_basename":         pathFilter("basename", func(p string) string { _, b := py.WinSplit(p); return b }),
		"win_dirname":          pathFilter("dirname", func(p string) string { d, _ := py.WinSplit(p); return d }),
		"win_splitdrive":       filterWinSplitdrive,
		"fileglob":             filterFileglob,
		"extract":              filterExtract,
		"subelements":          filterSubelements,
		"type_debug":           filterTypeDebug,
		"to_datetime":          filterToDatetime,
		"strftime":             filterStrftime,
		"comment":              filterComment,
		"urlsplit":             filterURLSplit,
		"urldecode":            filterURLDecode,
		"human_readable":       filterHumanReadable,
		"human_to_bytes":       filterHumanToBytes,
		"split":                filterSplit,
		"random":               filterRandom,
		"shuffle":              filterShuffle,
		"log":                  filterLog,
		"pow":                  filterPow,
		"root":                 filterRoot,
		"product":              filterProduct,
		"permutations":         filterPermutations,
		"combinations":         filterCombinations,
		"rekey_on_member":      filterRekeyOnMember,
		"to_uuid":              filterToUUID,
		"groupby":              filterGroupby,
	}
	out := map[string]FilterFunc{}
	for k, f := range builtin {
		out[k] = wrapFilter("ansible.builtin."+k, f)
	}
	for k, f := range map[string]FilterFunc{
		"ipaddr": filterIPAddr("ipaddr", 0),
		"ipv4":   filterIPAddr("ipv4", 4),
		"ipv6":   filterIPAddr("ipv6", 6),
		"ipwrap": filterIPWrap,
	} {
		out[k] = wrapFilter("ansible.utils."+k, f)
	}
	for k, f := range map[string]FilterFunc{
		"dict":            filterDict,
		"dict_kv":         filterDictKV,
		"lists_mergeby":   filterListsMergeby,
		"json_query":      nil,
		"to_days":         nil,
		"version_sort":    filterVersionSort,
		"lists_union":     nil,
		"keep_keys":       nil,
		"remove_keys":     nil,
		"replace_keys":    nil,
		"counter":         filterCounter,
		"groupby_as_dict": filterGroupbyAsDict,
	} {
		if f != nil {
			out[k] = wrapFilter("community.general."+k, f)
		}
	}
	return out
}

// ---------------------------------------------------------------------------
// Core Ansible filters.

func filterMandatory(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("mandatory", py.OptNone("msg")).Bind(a)
	if err != nil {
		return nil, err
	}
	u, ok := in.(value.Undefined)
	if !ok {
		return in, nil
	}
	if v[0] != nil {
		return nil, Errorf("%s", value.Str(v[0]))
	}
	name := ""
	if m := undefinedNameRe.FindStringSubmatch(u.Msg); m != nil {
		name = "'" + m[1] + m[2] + "' "
	}
	return nil, Errorf("Mandatory variable %snot defined.", name)
}

// undefinedNameRe finds the name of an undefined variable or attribute in
// its message, as Jinja2 keeps it in Undefined._undefined_name.
var undefinedNameRe = regexp.MustCompile(`^'([^']*)' is undefined|has no attribute '?(.*?)'?$`)

func filterBool(c *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("to_bool").Bind(a); err != nil {
		return nil, err
	}
	var check any = in
	switch x := in.(type) {
	case string:
		check = strings.ToLower(x)
	case bool:
		if x {
			check = "true"
		} else {
			check = "false"
		}
	case int:
		check = strconv.Itoa(x)
	}
	if s, ok := check.(string); ok {
		switch s {
		case "yes", "on", "true", "1":
			return true, nil
		case "no", "off", "false", "0":
			return false, nil
		}
	}
	res := value.Equal(check, 1)
	c.warn(Warning{Msg: fmt.Sprintf("The `bool` filter coerced invalid value %s (%s) to %s.", value.Repr(in), value.TypeName(in), value.Repr(res)), Deprecated: "2.23"})
	return res, nil
}

func filterTernary(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("ternary", py.Req("true_val"), py.Req("false_val"), py.OptNone("none_val")).Bind(a)
	if err != nil {
		return nil, err
	}
	if in == nil && v[2] != nil {
		return v[2], nil
	}
	if u, ok := in.(value.Undefined); ok {
		return nil, undefinedErr(u)
	}
	if value.Truthy(in) {
		return v[0], nil
	}
	return v[1], nil
}

// mergeHash is ansible.utils.vars.merge_hash.
func mergeHash(x, y *value.Dict, recursive bool, listMerge string) *value.Dict {
	if x.Len() == 0 || value.Equal(x, y) {
		return y.Copy()
	}
	if y.Len() == 0 {
		return x
	}
	x = x.Copy()
	if !recursive && listMerge == "replace" {
		x.Update(y)
		return x
	}
	y.Each(func(k string, yv any) bool {
		xv, ok := x.Get(k)
		if !ok {
			x.Set(k, yv)
			return true
		}
		xd, xIsD := xv.(*value.Dict)
		yd, yIsD := yv.(*value.Dict)
		if xIsD && yIsD {
			if recursive {
				x.Set(k, mergeHash(xd, yd, recursive, listMerge))
			} else {
				x.Set(k, yv)
			}
			return true
		}
		xl, xIsL := xv.([]any)
		yl, yIsL := yv.([]any)
		if xIsL && yIsL {
			switch listMerge {
			case "replace":
				x.Set(k, yv)
			case "keep":
			case "append":
				x.Set(k, append(append([]any{}, xl...), yl...))
			case "prepend":
				x.Set(k, append(append([]any{}, yl...), xl...))
			case "append_rp":
				out := []any{}
				for _, z := range xl {
					if ok, _ := py.Contains(yl, z); !ok {
						out = append(out, z)
					}
				}
				x.Set(k, append(out, yl...))
			case "prepend_rp":
				out := append([]any{}, yl...)
				for _, z := range xl {
					if ok, _ := py.Contains(yl, z); !ok {
						out = append(out, z)
					}
				}
				x.Set(k, out)
			}
			return true
		}
		x.Set(k, yv)
		return true
	})
	return x
}

func combineDicts(terms []any, kw *value.Dict, kwErr string) (any, error) {
	recursive, listMerge := false, any("replace")
	if kw != nil {
		for _, k := range kw.Keys() {
			v, _ := kw.Get(k)
			switch k {
			case "recursive":
				recursive = value.Truthy(v)
			case "list_merge":
				listMerge = v
			default:
				return nil, Errorf("%s", kwErr)
			}
		}
	}
	dicts := flattenList(terms, 1, true)
	if len(dicts) == 0 {
		return value.NewDict(0), nil
	}
	if len(dicts) == 1 {
		return dicts[0], nil
	}
	lm, _ := listMerge.(string)
	switch lm {
	case "replace", "keep", "append", "prepend", "append_rp", "prepend_rp":
	default:
		return nil, Errorf("merge_hash: 'list_merge' argument can only be equal to 'replace', 'keep', 'append', 'prepend', 'append_rp' or 'prepend_rp'")
	}
	result := dicts[len(dicts)-1]
	for i := len(dicts) - 2; i >= 0; i-- {
		x, xok := dicts[i].(*value.Dict)
		y, yok := result.(*value.Dict)
		if !xok || !yok {
			resultName := lazyTypeName(result)
			if i < len(dicts)-2 {
				resultName = value.TypeName(result) // a merged dict, not an argument
			}
			return nil, Errorf("failed to combine variables, expected dicts but got a '%s' and a '%s'.", lazyTypeName(dicts[i]), resultName)
		}
		result = mergeHash(x, y, recursive, lm)
	}
	return result, nil
}

func filterCombine(_ *Ctx, in any, a *Args) (any, error) {
	terms := append([]any{in}, a.Pos...)
	return combineDicts(terms, a.Kw, "'recursive' and 'list_merge' are the only valid keyword arguments")
}

func filterB64encode(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("b64encode", py.Opt("encoding", "utf-8"), py.Opt("urlsafe", false)).Bind(a)
	if err != nil {
		return nil, err
	}
	b, err := py.Encode(value.Str(in), value.Str(v[0]))
	if err != nil {
		return nil, err
	}
	if value.Truthy(v[1]) {
		return base64.URLEncoding.EncodeToString(b), nil
	}
	return base64.StdEncoding.EncodeToString(b), nil
}

func filterB64decode(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("b64decode", py.Opt("encoding", "utf-8"), py.Opt("urlsafe", false)).Bind(a)
	if err != nil {
		return nil, err
	}
	s := value.Str(in)
	if value.Truthy(v[1]) {
		s = strings.NewReplacer("-", "+", "_", "/").Replace(s)
	}
	b, err := py.B64Decode(s)
	if err != nil {
		return nil, err
	}
	return py.Decode(b, value.Str(v[0]))
}

// ---------------------------------------------------------------------------
// JSON.

func filterToJSON(_ *Ctx, in any, a *Args) (any, error) {
	if len(a.Pos) > 1 {
		return nil, typeErrorf("to_json() takes from 1 to 2 positional arguments but %d were given", len(a.Pos)+1)
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
		return nil, typeErrorf("to_nice_json() takes from 1 to 3 positional arguments but %d were given", len(a.Pos)+1)
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
				return nil, typeErrorf("to_nice_json() got multiple values for argument '%s'", k)
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
		return nil, typeErrorf("JSONDecoder.__init__() got an unexpected keyword argument '%s'", extra.Keys()[0])
	}
	s, ok := in.(string)
	if !ok {
		return nil, typeErrorf("the JSON object must be str, bytes or bytearray, not %s", value.TypeName(in))
	}
	return py.JSONLoads(s)
}

// ---------------------------------------------------------------------------
// YAML.

func filterFromYAML(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("from_yaml").Bind(a); err != nil {
		return nil, err
	}
	s, ok := in.(string)
	if !ok {
		return in, nil
	}
	docs, _, err := value.DecodeYAML("<string>", []byte(s))
	if err != nil {
		return nil, typeErrorf("%s", err.Error())
	}
	switch len(docs) {
	case 0:
		return nil, nil
	case 1:
		return docs[0], nil
	}
	return nil, typeErrorf("expected a single document in the stream")
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
	docs, _, err := value.DecodeYAML("<string>", []byte(s))
	if err != nil {
		return nil, typeErrorf("%s", err.Error())
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

// ---------------------------------------------------------------------------
// Dict and list conversions.

func filterDict2items(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("dict_to_list_of_dict_key_value_elements", py.Opt("key_name", "key"), py.Opt("value_name", "value")).Bind(a)
	if err != nil {
		return nil, err
	}
	d, ok := in.(*value.Dict)
	if !ok {
		return nil, Errorf("dict2items requires a dictionary, got %s instead.", argClassRepr(in))
	}
	out := make([]any, 0, d.Len())
	d.Each(func(k string, x any) bool {
		out = append(out, value.DictOf(value.Str(v[0]), k, value.Str(v[1]), x))
		return true
	})
	return out, nil
}

// argClassRepr is repr(type(v)) for a plugin's argument. ansible-core hands
// plugins lazy containers, so dicts and lists show those classes.
func argClassRepr(v any) string {
	switch v.(type) {
	case *value.Dict, []any:
		return py.ClassRepr("ansible._internal._templating._lazy_containers." + lazyTypeName(v))
	}
	return py.ClassRepr(value.TypeName(v))
}

// lazyTypeName is type(v).__name__ for a plugin's argument: dicts and lists
// are ansible-core's lazy containers.
func lazyTypeName(v any) string {
	switch v.(type) {
	case *value.Dict:
		return "_AnsibleLazyTemplateDict"
	case []any:
		return "_AnsibleLazyTemplateList"
	}
	return value.TypeName(v)
}

func filterItems2dict(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("list_of_dict_key_value_elements_to_dict", py.Opt("key_name", "key"), py.Opt("value_name", "value")).Bind(a)
	if err != nil {
		return nil, err
	}
	var items []any
	switch x := in.(type) {
	case []any:
		items = x
	case value.Tuple:
		items = x
	default:
		return nil, Errorf("items2dict requires a list, got %s instead.", argClassRepr(in))
	}
	out := value.NewDict(len(items))
	for _, it := range items {
		d, ok := it.(*value.Dict)
		if !ok {
			return nil, detachedf("items2dict requires a list of dictionaries, got %s instead.", value.Str(in))
		}
		k, ok1 := d.Get(value.Str(v[0]))
		x, ok2 := d.Get(value.Str(v[1]))
		if !ok1 || !ok2 {
			return nil, detachedf("items2dict requires each dictionary in the list to contain the keys '%s' and '%s', got %s instead.", value.Str(v[0]), value.Str(v[1]), value.Str(in))
		}
		if _, ok := py.HashKey(k); !ok {
			return nil, detachedf("items2dict requires a list of dictionaries, got %s instead.", value.Str(in))
		}
		out.Set(value.Str(k), x)
	}
	return out, nil
}

// flattenList is Ansible's flatten: levels < 0 means all levels.
func flattenList(items []any, levels int, skipNulls bool) []any {
	out := []any{}
	for _, el := range items {
		if skipNulls && (el == nil || el == "None" || el == "null") {
			continue
		}
		var sub []any
		switch x := el.(type) {
		case []any:
			sub = x
		case value.Tuple:
			sub = x
		default:
			out = append(out, el)
			continue
		}
		switch {
		case levels < 0:
			out = append(out, flattenList(sub, -1, skipNulls)...)
		case levels >= 1:
			out = append(out, flattenList(sub, levels-1, skipNulls)...)
		default:
			out = append(out, el)
		}
	}
	return out
}

func filterFlatten(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("flatten", py.OptNone("levels"), py.Opt("skip_nulls", true)).Bind(a)
	if err != nil {
		return nil, err
	}
	items, err := iterate(in)
	if err != nil {
		return nil, err
	}
	levels := -1
	if v[0] != nil {
		switch x := v[0].(type) {
		case float64:
			levels = int(x)
			if x < 1 {
				levels = 0
			}
		default:
			n, ok := value.AsInt(x)
			if !ok {
				return nil, typeErrorf("'>=' not supported between instances of '%s' and 'int'", value.TypeName(x))
			}
			levels = max(n, 0)
		}
	}
	return flattenList(items, levels, value.Truthy(v[1])), nil
}

func zipArgs(in any, a *Args) ([][]any, error) {
	all := append([]any{in}, a.Pos...)
	lists := make([][]any, len(all))
	for i, x := range all {
		items, err := iterate(x)
		if err != nil {
			return nil, typeErrorf("'%s' object is not iterable", value.TypeName(x))
		}
		lists[i] = items
	}
	return lists, nil
}

func filterZip(_ *Ctx, in any, a *Args) (any, error) {
	if a.Kw != nil {
		for _, k := range a.Kw.Keys() {
			if k != "strict" {
				return nil, typeErrorf("'%s' is an invalid keyword argument for zip()", k)
			}
		}
	}
	lists, err := zipArgs(in, a)
	if err != nil {
		return nil, err
	}
	n := math.MaxInt
	for _, l := range lists {
		n = min(n, len(l))
	}
	out := make([]any, n)
	for i := 0; i < n; i++ {
		t := make(value.Tuple, len(lists))
		for j, l := range lists {
			t[j] = l[i]
		}
		out[i] = t
	}
	return out, nil
}

func filterZipLongest(_ *Ctx, in any, a *Args) (any, error) {
	var fill any
	if a.Kw != nil {
		for _, k := range a.Kw.Keys() {
			if k != "fillvalue" {
				return nil, typeErrorf("zip_longest() got an unexpected keyword argument")
			}
			fill, _ = a.Kw.Get(k)
		}
	}
	lists, err := zipArgs(in, a)
	if err != nil {
		return nil, err
	}
	n := 0
	for _, l := range lists {
		n = max(n, len(l))
	}
	out := make([]any, n)
	for i := 0; i < n; i++ {
		t := make(value.Tuple, len(lists))
		for j, l := range lists {
			if i < len(l) {
				t[j] = l[i]
			} else {
				t[j] = fill
			}
		}
		out[i] = t
	}
	return out, nil
}

// ---------------------------------------------------------------------------
// Sets: Ansible builds Python sets, so the order of the result is CPython's
// set iteration order. That order is reproduced exactly for numbers; for
// strings it depends on Python's randomized string hashing, so the order of
// first appearance is used instead (one of the orders Python may produce).

func allNumbers(lists ...[]any) bool {
	for _, l := range lists {
		for _, x := range l {
			if _, ok := value.AsFloat(x); !ok {
				return false
			}
			if f, ok := x.(float64); ok && math.IsNaN(f) {
				return false
			}
		}
	}
	return true
}

func orderedUnique(items []any) []any {
	out := []any{}
	for _, x := range items {
		if ok, _ := py.Contains(out, x); !ok {
			out = append(out, x)
		}
	}
	return out
}

func setFilter(op string) FilterFunc {
	return func(_ *Ctx, in any, a *Args) (any, error) {
		v, err := py.Sig(op, py.Req("b")).Implicit().Bind(a)
		if err != nil {
			return nil, err
		}
		x, err := iterate(in)
		if err != nil {
			return nil, err
		}
		y, err := iterate(v[0])
		if err != nil {
			return nil, err
		}
		if allNumbers(x, y) {
			return py.SetOp(op, x, y), nil
		}
		inB := func(e any) bool { ok, _ := py.Contains(y, e); return ok }
		switch op {
		case "union":
			return orderedUnique(append(append([]any{}, x...), y...)), nil
		case "intersect":
			var out []any
			for _, e := range x {
				if inB(e) {
					out = append(out, e)
				}
			}
			return orderedUnique(out), nil
		case "difference":
			var out []any
			for _, e := range x {
				if !inB(e) {
					out = append(out, e)
				}
			}
			return orderedUnique(out), nil
		}
		out := []any{}
		for _, e := range orderedUnique(append(append([]any{}, x...), y...)) {
			inA, _ := py.Contains(x, e)
			if !(inA && inB(e)) {
				out = append(out, e)
			}
		}
		return out, nil
	}
}

// filterUnique is Ansible's unique: Jinja2's (case-insensitive by
// default), falling back to an equality-based version for unhashable items.
func filterUnique(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("unique", py.OptNone("case_sensitive"), py.OptNone("attribute")).Implicit().Bind(a)
	if err != nil {
		return nil, err
	}
	items, err := iterate(in)
	if err != nil {
		return nil, err
	}
	key := attrGetter(v[1], !value.Truthy(v[0]), nil)
	seen := map[string]bool{}
	out := []any{}
	for _, it := range items {
		k, err := key(it)
		if err != nil {
			return nil, err
		}
		if u, ok := k.(value.Undefined); ok {
			return nil, undefinedErr(u)
		}
		h, ok := py.HashKey(k)
		if !ok {
			if b, isB := v[0].(bool); (isB && !b) || v[1] != nil {
				return nil, Errorf("Jinja2's unique filter failed and we cannot fall back to Ansible's version as it does not support the parameters supplied: unhashable type: '%s'", value.TypeName(k))
			}
			return orderedUnique(items), nil
		}
		if !seen[h] {
			seen[h] = true
			out = append(out, it)
		}
	}
	return out, nil
}

// ---------------------------------------------------------------------------
// Hashes and strings.

func newHash(name string) (hash.Hash, bool) {
	switch strings.ToLower(name) {
	case "md5":
		return md5.New(), true
	case "sha1":
		return sha1.New(), true
	case "sha224":
		return sha256.New224(), true
	case "sha256":
		return sha256.New(), true
	case "sha384":
		return sha512.New384(), true
	case "sha512":
		return sha512.New(), true
	case "sha512_224":
		return sha512.New512_224(), true
	case "sha512_256":
		return sha512.New512_256(), true
	case "sha3_224":
		return sha3.New224(), true
	case "sha3_256":
		return sha3.New256(), true
	case "sha3_384":
		return sha3.New384(), true
	case "sha3_512":
		return sha3.New512(), true
	}
	return nil, false
}

func hexDigest(name string, in any) (string, error) {
	h, ok := newHash(name)
	if !ok {
		return "", detachedf("unsupported hash type %s", name)
	}
	h.Write([]byte(value.Str(in)))
	return hex.EncodeToString(h.Sum(nil)), nil
}

func filterHash(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("get_hash", py.Opt("hashtype", "sha1")).Bind(a)
	if err != nil {
		return nil, err
	}
	return hexDigest(value.Str(v[0]), in)
}

func hashFilter(fn, algo string) FilterFunc {
	return func(_ *Ctx, in any, a *Args) (any, error) {
		if fn == "secure_hash_s" {
			v, err := py.Sig(fn, py.OptNone("hash_func")).Bind(a)
			if err != nil {
				return nil, err
			}
			if v[0] != nil {
				return nil, typeErrorf("'%s' object is not callable", value.TypeName(v[0]))
			}
		} else if _, err := py.Sig(fn).Bind(a); err != nil {
			return nil, err
		}
		return hexDigest(algo, in)
	}
}

func filterQuote(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("quote").Bind(a); err != nil {
		return nil, err
	}
	if in == nil {
		return "''", nil
	}
	return py.Quote(value.Str(in)), nil
}

func filterSplit(_ *Ctx, in any, a *Args) (any, error) {
	if a.Kw != nil {
		for _, k := range a.Kw.Keys() {
			if k != "sep" && k != "maxsplit" {
				return nil, typeErrorf("'%s' is an invalid keyword argument for split()", k)
			}
		}
	}
	if len(a.Pos) > 2 {
		return nil, typeErrorf("split() takes at most 2 arguments (%d given)", len(a.Pos))
	}
	s, ok := in.(string)
	if !ok {
		return nil, typeErrorf("descriptor 'split' for 'str' objects doesn't apply to a '%s' object", value.TypeName(in))
	}
	if sep, ok := a.Get(0, "sep"); ok && sep != nil {
		ss, isStr := sep.(string)
		if !isStr {
			return nil, typeErrorf("must be str or None, not %s", value.TypeName(sep))
		}
		if ss == "" {
			return nil, typeErrorf("empty separator")
		}
	}
	return py.Split(s, a, false), nil
}

// ---------------------------------------------------------------------------
// Paths.

func pathFilter(fn string, f func(string) string) FilterFunc {
	return func(_ *Ctx, in any, a *Args) (any, error) {
		if _, err := py.Sig(fn).Bind(a); err != nil {
			return nil, err
		}
		s, err := py.Fspath(in)
		if err != nil {
			return nil, err
		}
		return f(s), nil
	}
}

func filterExpanduser(c *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("expanduser").Bind(a); err != nil {
		return nil, err
	}
	s, err := py.Fspath(in)
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(s, "~") {
		return s, nil
	}
	i := strings.Index(s, "/")
	if i < 0 {
		i = len(s)
	}
	var home string
	if i == 1 {
		h, ok := c.Engine().Getenv("HOME")
		if !ok {
			u, err := user.Current()
			if err != nil {
				return s, nil
			}
			h = u.HomeDir
		}
		home = h
	} else {
		u, err := user.Lookup(s[1:i])
		if err != nil {
			return s, nil
		}
		home = u.HomeDir
	}
	home = strings.TrimRight(home, "/")
	if home == "" && i == len(s) {
		home = "/"
	}
	return home + s[i:], nil
}

func filterExpandvars(c *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("expandvars").Bind(a); err != nil {
		return nil, err
	}
	s, err := py.Fspath(in)
	if err != nil {
		return nil, err
	}
	re := regexp.MustCompile(`\$(\w+|\{[^}]*\})`)
	return re.ReplaceAllStringFunc(s, func(m string) string {
		name := strings.Trim(m[1:], "{}")
		if v, ok := c.Engine().Getenv(name); ok {
			return v
		}
		return m
	}), nil
}

func filterRelpath(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("relpath", py.OptNone("start")).Bind(a)
	if err != nil {
		return nil, err
	}
	return py.Relpath(in, v[0])
}

func filterSplitext(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("splitext").Bind(a); err != nil {
		return nil, err
	}
	s, err := py.Fspath(in)
	if err != nil {
		return nil, err
	}
	r, e := py.Splitext(s)
	return value.Tuple{r, e}, nil
}

func filterPathJoin(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("path_join").Bind(a); err != nil {
		return nil, err
	}
	switch x := in.(type) {
	case string:
		return x, nil
	case []any, value.Tuple:
		items, _ := iterate(x)
		if len(items) == 0 {
			return nil, typeErrorf("join() missing 1 required positional argument: 'a'")
		}
		parts := make([]string, len(items))
		for i, it := range items {
			s, ok := it.(string)
			if !ok {
				return nil, typeErrorf("join() argument must be str, bytes, or os.PathLike object, not '%s'", value.TypeName(it))
			}
			parts[i] = s
		}
		return py.Join(parts), nil
	}
	return nil, Errorf("|path_join expects string or sequence, got %s instead.", argClassRepr(in))
}

func filterCommonpath(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("commonpath").Bind(a); err != nil {
		return nil, err
	}
	var items []any
	switch x := in.(type) {
	case []any:
		items = x
	case value.Tuple:
		items = x
	default:
		return nil, Errorf("|commonpath expects sequence, got %s instead.", argClassRepr(in))
	}
	return py.Commonpath(items)
}

func filterWinSplitdrive(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("splitdrive").Bind(a); err != nil {
		return nil, err
	}
	s, err := py.Fspath(in)
	if err != nil {
		return nil, err
	}
	d, r := py.WinSplitdrive(s)
	return value.Tuple{d, r}, nil
}

func filterFileglob(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("fileglob").Bind(a); err != nil {
		return nil, err
	}
	s, err := py.Fspath(in)
	if err != nil {
		return nil, err
	}
	matches, _ := filepath.Glob(s)
	out := []any{}
	for _, m := range matches {
		if strings.HasPrefix(filepath.Base(m), ".") && !strings.HasPrefix(filepath.Base(s), ".") {
			continue
		}
		if st, err := os.Stat(m); err == nil && st.Mode().IsRegular() {
			out = append(out, m)
		}
	}
	return out, nil
}

// ---------------------------------------------------------------------------
// Data structures.

func filterExtract(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("extract", py.Req("container"), py.OptNone("morekeys")).Implicit().Bind(a)
	if err != nil {
		return nil, err
	}
	keys := []any{in}
	switch m := v[1].(type) {
	case nil:
	case []any:
		keys = append(keys, m...)
	default:
		keys = append(keys, m)
	}
	cur := v[0]
	for _, k := range keys {
		if cur, err = getItem(cur, k); err != nil {
			return nil, err
		}
	}
	return cur, nil
}

func filterSubelements(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("subelements", py.Req("subelements"), py.Opt("skip_missing", false)).Bind(a)
	if err != nil {
		return nil, err
	}
	var elements []any
	switch x := in.(type) {
	case *value.Dict:
		x.Each(func(_ string, e any) bool { elements = append(elements, e); return true })
	case []any:
		elements = x
	default:
		return nil, Errorf("obj must be a list of dicts or a nested dict")
	}
	var subs []any
	switch s := v[0].(type) {
	case []any:
		subs = s
	case string:
		for _, p := range strings.Split(s, ".") {
			subs = append(subs, p)
		}
	default:
		return nil, Errorf("subelements must be a list or a string")
	}
	out := []any{}
	for _, el := range elements {
		vals := el
		var last any
		for _, sub := range subs {
			last = sub
			d, ok := vals.(*value.Dict)
			if !ok {
				return nil, Errorf("the key %s should point to a dictionary, got '%s'", value.Str(sub), value.Str(vals))
			}
			x, found := d.Get(value.Str(sub))
			if !found {
				if value.Truthy(v[1]) {
					vals = []any{}
					break
				}
				return nil, detachedf("could not find %s key in iterated item %s", value.Repr(sub), value.Repr(vals))
			}
			vals = x
		}
		list, ok := vals.([]any)
		if !ok {
			return nil, Errorf("the key %s should point to a list, got %s", value.Repr(last), value.Repr(vals))
		}
		for _, x := range list {
			out = append(out, value.Tuple{el, x})
		}
	}
	return out, nil
}

func filterTypeDebug(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("type_debug").Bind(a); err != nil {
		return nil, err
	}
	return value.TypeName(in), nil
}

func filterComment(_ *Ctx, in any, a *Args) (any, error) {
	v, kw, err := py.Signature{Fn: "comment", Params: []py.Param{py.Opt("style", "plain")}, VarKw: true}.BindKw(a)
	if err != nil {
		return nil, err
	}
	text, ok := in.(string)
	if !ok {
		return nil, typeErrorf("'%s' object has no attribute 'replace'", value.TypeName(in))
	}
	styles := map[string]map[string]string{
		"plain":  {"decoration": "# "},
		"erlang": {"decoration": "% "},
		"c":      {"decoration": "// "},
		"cblock": {"beginning": "/*", "decoration": " * ", "end": " */"},
		"xml":    {"beginning": "<!--", "decoration": " - ", "end": "-->"},
	}
	style, _ := v[0].(string)
	sp, ok := styles[style]
	if !ok {
		return nil, Errorf("Invalid style %s.", value.Repr(v[0]))
	}
	prepost := sp["decoration"]
	if kw != nil {
		if d, ok := kw.Get("decoration"); ok {
			prepost = value.Str(d)
		}
	}
	p := map[string]any{
		"newline": "\n", "beginning": "", "prefix": strings.TrimRight(prepost, " \t\n\r\v\f"), "prefix_count": 1,
		"decoration": "", "postfix": strings.TrimRight(prepost, " \t\n\r\v\f"), "postfix_count": 1, "end": "",
	}
	for k, x := range sp {
		p[k] = x
	}
	if kw != nil {
		kw.Each(func(k string, x any) bool { p[k] = x; return true })
	}
	str := func(k string) string { return value.Str(p[k]) }
	count := func(k string) (int, error) {
		switch x := p[k].(type) {
		case string:
			n, ok := py.ParseInt(x, 10)
			if !ok {
				return 0, typeErrorf("invalid literal for int() with base 10: %s", value.Repr(x))
			}
			return n, nil
		default:
			n, ok := value.AsInt(x)
			if !ok {
				if f, isF := x.(float64); isF {
					return int(f), nil
				}
				return 0, typeErrorf("int() argument must be a string, a bytes-like object or a real number, not '%s'", value.TypeName(x))
			}
			return n, nil
		}
	}
	nl := str("newline")
	beginning := ""
	if value.Truthy(p["beginning"]) {
		beginning = str("beginning") + nl
	}
	prefix := ""
	if value.Truthy(p["prefix"]) {
		n, err := count("prefix_count")
		if err != nil {
			return nil, err
		}
		if str("prefix") != nl {
			prefix = strings.Repeat(str("prefix")+nl, max(n, 0))
		} else {
			prefix = strings.Repeat(nl, max(n, 0))
		}
	}
	deco := str("decoration")
	body := deco + strings.ReplaceAll(text, nl, nl+deco)
	body = strings.ReplaceAll(body, deco+nl, strings.TrimRight(deco, " \t\n\r\v\f")+nl)
	pc, err := count("postfix_count")
	if err != nil {
		return nil, err
	}
	post := ""
	for i := 0; i < pc; i++ {
		post += nl + str("postfix")
	}
	end := ""
	if value.Truthy(p["end"]) {
		end = nl + str("end")
	}
	return beginning + prefix + body + post + end, nil
}

func filterHumanReadable(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("human_readable", py.Opt("isbits", false), py.OptNone("unit")).Bind(a)
	if err != nil {
		return nil, err
	}
	size, ok := value.AsFloat(in)
	if !ok {
		return nil, Errorf("human_readable() failed on bad input: '>=' not supported between instances of '%s' and 'int'", value.TypeName(in))
	}
	units := []struct {
		s string
		l float64
	}{{"Y", 1 << 80}, {"Z", 1 << 70}, {"E", 1 << 60}, {"P", 1 << 50}, {"T", 1 << 40}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}}
	base := "Bytes"
	if value.Truthy(v[0]) {
		base = "bits"
	}
	var unit string
	if v[1] != nil {
		unit = strings.ToUpper(value.Str(v[1]))
	}
	suffix, limit := "", 1.0
	for _, u := range units {
		suffix, limit = u.s, u.l
		if (v[1] == nil && size >= u.l) || (v[1] != nil && unit != "" && unit[:1] == u.s) {
			break
		}
	}
	if limit != 1 {
		suffix += base[:1]
	} else {
		suffix = base
	}
	return fmt.Sprintf("%.2f %s", size/limit, suffix), nil
}

var humanRe = regexp.MustCompile(`^([0-9]*\.?[0-9]+)(?:\s*([A-Za-z]+))?\s*$`)

func filterHumanToBytes(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("human_to_bytes", py.OptNone("default_unit"), py.Opt("isbits", false)).Bind(a)
	if err != nil {
		return nil, err
	}
	fail := func(cause string) error {
		return Errorf("human_to_bytes() can't interpret the input: %s", cause)
	}
	m := humanRe.FindStringSubmatch(value.Str(in))
	if m == nil {
		return nil, fail("human_to_bytes() can't interpret following string: " + value.Str(in))
	}
	num, _ := strconv.ParseFloat(m[1], 64)
	unit := m[2]
	if unit == "" && v[0] != nil {
		unit = value.Str(v[0])
	}
	if unit == "" {
		return int(py.RoundFloat(num, 0)), nil
	}
	ranges := map[string]float64{"Y": 1 << 80, "Z": 1 << 70, "E": 1 << 60, "P": 1 << 50, "T": 1 << 40, "G": 1 << 30, "M": 1 << 20, "K": 1 << 10, "B": 1}
	key := strings.ToUpper(unit[:1])
	limit, ok := ranges[key]
	if !ok {
		return nil, fail(fmt.Sprintf("human_to_bytes() failed to convert %s (unit = %s). The suffix must be one of Y, Z, E, P, T, G, M, K, B", value.Str(in), unit))
	}
	if len(unit) > 1 {
		names := map[string][2][2]string{
			"B": {{"byte", "B"}, {"bit", "b"}}, "K": {{"kilobyte", "KB"}, {"kilobit", "Kb"}},
			"M": {{"megabyte", "MB"}, {"megabit", "Mb"}}, "G": {{"gigabyte", "GB"}, {"gigabit", "Gb"}},
			"T": {{"terabyte", "TB"}, {"terabit", "Tb"}}, "P": {{"petabyte", "PB"}, {"petabit", "Pb"}},
			"E": {{"exabyte", "EB"}, {"exabit", "Eb"}}, "Z": {{"zetabyte", "ZB"}, {"zetabit", "Zb"}},
			"Y": {{"yottabyte", "YB"}, {"yottabit", "Yb"}},
		}
		flag := 0
		if value.Truthy(v[1]) {
			flag = 1
		}
		g := names[key][flag]
		if strings.ToLower(unit) != g[0] && unit != g[1] {
			cls, clsName := "B", "byte"
			if flag == 1 {
				cls, clsName = "b", "bit"
			}
			expect := fmt.Sprintf("expect %s%s or %s", key, cls, key)
			if key == "B" {
				expect = fmt.Sprintf("expect %s or %s", cls, clsName)
			}
			return nil, fail(fmt.Sprintf("human_to_bytes() failed to convert %s. Value is not a valid string (%s)", value.Str(in), expect))
		}
	}
	return int(py.RoundFloat(num*limit, 0)), nil
}

// ---------------------------------------------------------------------------
// URLs.

func filterURLSplit(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("split_url", py.Opt("query", ""), py.Opt("alias", "urlsplit")).Bind(a)
	if err != nil {
		return nil, err
	}
	s, ok := in.(string)
	if !ok {
		return nil, typeErrorf("'%s' object has no attribute 'decode'", value.TypeName(in))
	}
	u, err := py.URLSplit(s)
	if err != nil {
		return nil, err
	}
	d, err := u.Dict()
	if err != nil {
		return nil, err
	}
	if q := value.Str(v[0]); value.Truthy(v[0]) {
		x, ok := d.Get(q)
		if !ok {
			return nil, typeErrorf("%s: unknown URL component: %s", value.Str(v[1]), q)
		}
		return x, nil
	}
	return d, nil
}

func filterURLDecode(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("unquote_plus").Bind(a); err != nil {
		return nil, err
	}
	s, ok := in.(string)
	if !ok {
		return nil, typeErrorf("a bytes-like object is required, not '%s'", value.TypeName(in))
	}
	return py.UnquotePlus(s), nil
}

// ---------------------------------------------------------------------------
// Randomness: Python's Mersenne Twister, so seeded results match Ansible.

func filterRandom(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("rand", py.OptNone("start"), py.OptNone("step"), py.OptNone("seed")).Implicit().Bind(a)
	if err != nil {
		return nil, err
	}
	var r py.RandSource = py.SystemRandom{}
	if v[2] != nil {
		pr, err := py.NewRandom(v[2])
		if err != nil {
			return nil, err
		}
		r = pr
	}
	if end, ok := in.(int); ok {
		start, step := 0, 1
		if value.Truthy(v[0]) {
			if start, err = py.Index(v[0]); err != nil {
				return nil, err
			}
		}
		if value.Truthy(v[1]) {
			if step, err = py.Index(v[1]); err != nil {
				return nil, err
			}
		}
		width := end - start
		if step == 1 {
			if width <= 0 {
				return nil, typeErrorf("empty range for randrange() (%d, %d, %d)", start, end, width)
			}
			return start + r.Randbelow(width), nil
		}
		var n int
		switch {
		case step > 0:
			n = py.FloorDiv(width+step-1, step)
		case step < 0:
			n = py.FloorDiv(width+step+1, step)
		default:
			return nil, typeErrorf("zero step for randrange()")
		}
		if n <= 0 {
			return nil, typeErrorf("empty range for randrange()")
		}
		return start + step*r.Randbelow(n), nil
	}
	switch in.(type) {
	case bool:
		return nil, Errorf("random can only be used on sequences and integers")
	case string, []any, value.Tuple, *value.Dict, *py.Range:
	default:
		return nil, Errorf("random can only be used on sequences and integers")
	}
	if value.Truthy(v[0]) || value.Truthy(v[1]) {
		return nil, Errorf("start and step can only be used with integer values")
	}
	items, _ := iterate(in)
	if len(items) == 0 {
		return nil, typeErrorf("Cannot choose from an empty sequence")
	}
	i := r.Randbelow(len(items))
	if d, ok := in.(*value.Dict); ok {
		return nil, typeErrorf("%d", i+0*d.Len())
	}
	return items[i], nil
}

func filterShuffle(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("randomize_list", py.OptNone("seed")).Bind(a)
	if err != nil {
		return nil, err
	}
	items, err := iterate(in)
	if err != nil {
		return in, nil
	}
	out := append([]any{}, items...)
	var r py.RandSource = py.SystemRandom{}
	if value.Truthy(v[0]) {
		pr, err := py.NewRandom(v[0])
		if err != nil {
			return in, nil
		}
		r = pr
	}
	for i := len(out) - 1; i > 0; i-- {
		j := r.Randbelow(i + 1)
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}

// ---------------------------------------------------------------------------
// Math.

func filterLog(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("logarithm", py.Opt("base", math.E)).Bind(a)
	if err != nil {
		return nil, err
	}
	x, ok1 := value.AsFloat(in)
	b, ok2 := value.AsFloat(v[0])
	if !ok1 || !ok2 {
		return nil, Errorf("log() can only be used on numbers")
	}
	if x <= 0 || b <= 0 || b == 1 {
		if b == 1 && x > 0 {
			return nil, typeErrorf("float division by zero")
		}
		return nil, typeErrorf("math domain error")
	}
	if b == 10 {
		return math.Log10(x), nil
	}
	if b == math.E {
		return math.Log(x), nil
	}
	return math.Log(x) / math.Log(b), nil
}

func filterPow(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("power", py.Req("y")).Bind(a)
	if err != nil {
		return nil, err
	}
	x, ok1 := value.AsFloat(in)
	y, ok2 := value.AsFloat(v[0])
	if !ok1 || !ok2 {
		return nil, Errorf("pow() can only be used on numbers")
	}
	r := math.Pow(x, y)
	if math.IsNaN(r) {
		return nil, typeErrorf("math domain error")
	}
	return r, nil
}

func filterRoot(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("inversepower", py.Opt("base", 2)).Bind(a)
	if err != nil {
		return nil, err
	}
	x, ok1 := value.AsFloat(in)
	b, ok2 := value.AsFloat(v[0])
	if !ok1 || !ok2 || (x < 0 && b == 2) {
		return nil, Errorf("root() can only be used on numbers")
	}
	if b == 2 {
		return math.Sqrt(x), nil
	}
	r := math.Pow(x, 1/b)
	// Go's Pow can miss the exact root of a perfect power by an ulp where
	// C's pow (and so Python's math.pow) returns it exactly.
	if n := math.Round(r); n != r && math.Abs(n-r) < 1e-9*math.Max(1, math.Abs(n)) && math.Pow(n, b) == x {
		return n, nil
	}
	return r, nil
}

func filterProduct(_ *Ctx, in any, a *Args) (any, error) {
	repeat := 1
	if a.Kw != nil {
		for _, k := range a.Kw.Keys() {
			if k != "repeat" {
				return nil, typeErrorf("'%s' is an invalid keyword argument for product()", k)
			}
			x, _ := a.Kw.Get(k)
			n, err := py.Index(x)
			if err != nil {
				return nil, err
			}
			repeat = n
		}
	}
	lists, err := zipArgs(in, a)
	if err != nil {
		return nil, err
	}
	var pools [][]any
	for i := 0; i < repeat; i++ {
		pools = append(pools, lists...)
	}
	result := [][]any{{}}
	for _, pool := range pools {
		var next [][]any
		for _, r := range result {
			for _, x := range pool {
				next = append(next, append(append([]any{}, r...), x))
			}
		}
		result = next
	}
	out := make([]any, len(result))
	for i, r := range result {
		out[i] = value.Tuple(r)
	}
	return out, nil
}

func filterPermutations(_ *Ctx, in any, a *Args) (any, error) {
	if a.Kw != nil {
		for _, k := range a.Kw.Keys() {
			if k != "r" {
				return nil, typeErrorf("'%s' is an invalid keyword argument for permutations()", k)
			}
		}
	}
	pool, err := iterate(in)
	if err != nil {
		return nil, err
	}
	r := len(pool)
	if x, ok := a.Get(0, "r"); ok && x != nil {
		if r, err = py.Index(x); err != nil {
			return nil, err
		}
	}
	out := []any{}
	if r > len(pool) || r < 0 {
		return out, nil
	}
	var rec func(prefix []any, used []bool)
	rec = func(prefix []any, used []bool) {
		if len(prefix) == r {
			out = append(out, value.Tuple(append([]any{}, prefix...)))
			return
		}
		for i := range pool {
			if !used[i] {
				used[i] = true
				rec(append(prefix, pool[i]), used)
				used[i] = false
			}
		}
	}
	rec(nil, make([]bool, len(pool)))
	return out, nil
}

func filterCombinations(_ *Ctx, in any, a *Args) (any, error) {
	x, ok := a.Get(0, "r")
	if !ok {
		return nil, typeErrorf("combinations() missing required argument 'r' (pos 2)")
	}
	r, err := py.Index(x)
	if err != nil {
		return nil, err
	}
	pool, err := iterate(in)
	if err != nil {
		return nil, err
	}
	out := []any{}
	var rec func(start int, prefix []any)
	rec = func(start int, prefix []any) {
		if len(prefix) == r {
			out = append(out, value.Tuple(append([]any{}, prefix...)))
			return
		}
		for i := start; i < len(pool); i++ {
			rec(i+1, append(prefix, pool[i]))
		}
	}
	if r >= 0 {
		rec(0, nil)
	}
	return out, nil
}

func filterRekeyOnMember(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("rekey_on_member", py.Req("key"), py.Opt("duplicates", "error")).Bind(a)
	if err != nil {
		return nil, err
	}
	dup := value.Str(v[1])
	if dup != "error" && dup != "overwrite" {
		return nil, Errorf("duplicates parameter to rekey_on_member has unknown value %s", value.Repr(v[1]))
	}
	var items []any
	switch x := in.(type) {
	case *value.Dict:
		x.Each(func(_ string, e any) bool { items = append(items, e); return true })
	case []any, value.Tuple:
		items, _ = iterate(x)
	default:
		return nil, Errorf("Type is not a valid list, set, or dict")
	}
	out := value.NewDict(len(items))
	for _, it := range items {
		d, ok := it.(*value.Dict)
		if !ok {
			return nil, Errorf("List item is not a valid dict")
		}
		k, ok := d.Get(value.Str(v[0]))
		if !ok {
			return nil, Errorf("Key %s was not found.", value.Repr(v[0]))
		}
		ks := value.Str(k)
		if out.Has(ks) && dup == "error" {
			return nil, Errorf("Key %s is not unique, cannot convert to dict.", value.Repr(k))
		}
		out.Set(ks, it)
	}
	return out, nil
}

func filterToUUID(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("to_uuid", py.Opt("namespace", "361e6d51-faec-444a-9079-341386da8e2e")).Bind(a)
	if err != nil {
		return nil, err
	}
	ns := strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(value.Str(v[0]), "urn:"), "uuid:"), "}"), "-", "")
	ns = strings.TrimPrefix(ns, "{")
	nsb, err := hex.DecodeString(ns)
	if err != nil || len(nsb) != 16 {
		return nil, detachedf("Invalid value '%s' for 'namespace': badly formed hexadecimal UUID string", value.Str(v[0]))
	}
	h := sha1.New()
	h.Write(nsb)
	h.Write([]byte(value.Str(in)))
	u := h.Sum(nil)[:16]
	u[6] = (u[6] & 0x0f) | 0x50
	u[8] = (u[8] & 0x3f) | 0x80
	s := hex.EncodeToString(u)
	return s[:8] + "-" + s[8:12] + "-" + s[12:16] + "-" + s[16:20] + "-" + s[20:], nil
}

// ---------------------------------------------------------------------------
// community.general.

func filterDict(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("dict_filter").Bind(a); err != nil {
		return nil, err
	}
	items, err := iterate(in)
	if err != nil {
		return nil, err
	}
	d := value.NewDict(len(items))
	for i, it := range items {
		pair, err := iterate(it)
		if err != nil {
			return nil, typeErrorf("cannot convert dictionary update sequence element #%d to a sequence", i)
		}
		if len(pair) != 2 {
			return nil, typeErrorf("dictionary update sequence element #%d has length %d; 2 is required", i, len(pair))
		}
		if _, ok := py.HashKey(pair[0]); !ok {
			return nil, typeErrorf("unhashable type: '%s'", value.TypeName(pair[0]))
		}
		d.Set(value.Str(pair[0]), pair[1])
	}
	return d, nil
}

func filterDictKV(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("dict_kv", py.Req("key")).Bind(a)
	if err != nil {
		return nil, err
	}
	return value.DictOf(value.Str(v[0]), in), nil
}

func filterListsMergeby(_ *Ctx, in any, a *Args) (any, error) {
	if a.Kw != nil {
		for _, k := range a.Kw.Keys() {
			if k != "recursive" && k != "list_merge" {
				return nil, Errorf("'recursive' and 'list_merge' are the only valid keyword arguments.")
			}
		}
	}
	terms := append([]any{in}, a.Pos...)
	if len(terms) < 2 {
		return nil, Errorf("At least one list and index are needed.")
	}
	index, ok := terms[len(terms)-1].(string)
	if !ok {
		return nil, Errorf("First argument after the lists for lists_mergeby must be string. %s is %s", value.Repr(terms[len(terms)-1]), argClassRepr(terms[len(terms)-1]))
	}
	var lists []any
	for _, t := range terms[:len(terms)-1] {
		l, ok := t.([]any)
		if !ok {
			return nil, Errorf("All arguments before the argument index for lists_mergeby must be lists. %s is %s", value.Repr(t), argClassRepr(t))
		}
		lists = append(lists, l)
	}
	recursive, listMerge := false, "replace"
	if a.Kw != nil {
		for _, k := range a.Kw.Keys() {
			x, _ := a.Kw.Get(k)
			switch k {
			case "recursive":
				recursive = value.Truthy(x)
			case "list_merge":
				listMerge = value.Str(x)
			default:
				return nil, Errorf("'recursive' and 'list_merge' are the only valid keyword arguments.")
			}
		}
	}
	merged := value.NewDict(0)
	for _, l := range lists {
		for _, it := range l.([]any) {
			d, ok := it.(*value.Dict)
			if !ok {
				return nil, Errorf("Elements of list arguments for lists_mergeby must be dictionaries. %s is %s", value.Repr(it), argClassRepr(it))
			}
			k, ok := d.Get(index)
			if !ok {
				continue
			}
			ks := value.Str(k)
			if prev, ok := merged.Get(ks); ok {
				merged.Set(ks, mergeHash(prev.(*value.Dict), d, recursive, listMerge))
			} else {
				merged.Set(ks, d)
			}
		}
	}
	keys := append([]string(nil), merged.Keys()...)
	sort.Strings(keys)
	out := make([]any, len(keys))
	for i, k := range keys {
		out[i], _ = merged.Get(k)
	}
	return out, nil
}

func filterVersionSort(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("version_sort").Bind(a); err != nil {
		return nil, err
	}
	items, err := iterate(in)
	if err != nil {
		return nil, err
	}
	keys := make([]any, len(items))
	for i, it := range items {
		keys[i] = py.LooseVersion(value.Str(it))
	}
	return py.SortByKeys(items, keys, false)
}

func filterCounter(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("counter").Bind(a); err != nil {
		return nil, err
	}
	items, err := iterate(in)
	if err != nil {
		return nil, err
	}
	d := value.NewDict(0)
	for _, it := range items {
		k := value.Str(it)
		n, _ := d.Get(k)
		c, _ := n.(int)
		d.Set(k, c+1)
	}
	return d, nil
}

func filterGroupbyAsDict(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("groupby_as_dict", py.Req("attribute")).Bind(a)
	if err != nil {
		return nil, err
	}
	items, err := iterate(in)
	if err != nil {
		return nil, err
	}
	d := value.NewDict(len(items))
	for _, it := range items {
		e, ok := it.(*value.Dict)
		if !ok {
			return nil, Errorf("Input is not a sequence of mappings")
		}
		k, ok := e.Get(value.Str(v[0]))
		if !ok {
			return nil, Errorf("Element does not have attribute %s", value.Repr(v[0]))
		}
		d.Set(value.Str(k), it)
	}
	return d, nil
}

// ---------------------------------------------------------------------------
// Regular expressions: Python's re syntax translated to Go's RE2.

func regexInput(in any) string {
	if s, ok := in.(string); ok {
		return s
	}
	return value.Str(in)
}

func filterRegexReplace(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Signature{Fn: "regex_replace", InOpt: true, Params: []py.Param{py.Opt("pattern", ""), py.Opt("replacement", ""), py.Opt("ignorecase", false), py.Opt("multiline", false), py.Opt("count", 0), py.Opt("mandatory_count", 0)}}.Bind(a)
	if err != nil {
		return nil, err
	}
	s := regexInput(in)
	re, err := py.CompileRegex(value.Str(v[0]), value.Truthy(v[2]), value.Truthy(v[3]))
	if err != nil {
		return nil, err
	}
	parts, err := py.ParseReplacement(value.Str(v[1]), re)
	if err != nil {
		return nil, err
	}
	count, err := py.Index(v[4])
	if err != nil {
		return nil, err
	}
	limit := -1
	if count > 0 {
		limit = count
	}
	ms := re.FindAllStringSubmatchIndex(s, limit)
	var b strings.Builder
	last := 0
	for _, m := range ms {
		b.WriteString(s[last:m[0]])
		b.WriteString(parts.Expand(s, m))
		last = m[1]
	}
	b.WriteString(s[last:])
	if mc, _ := value.AsInt(v[5]); mc != 0 && mc != len(ms) {
		return nil, Errorf("'%s' should match %d times, but matches %d times in '%s'", value.Str(v[0]), mc, count, s)
	}
	return b.String(), nil
}

var (
	searchGroupNameRe = regexp.MustCompile(`^\\g<(\S+)>`)
	searchGroupNumRe  = regexp.MustCompile(`^\\(\d+)`)
)

func filterRegexSearch(_ *Ctx, in any, a *Args) (any, error) {
	if len(a.Pos) == 0 && !a.Kw.Has("regex") {
		return nil, typeErrorf("regex_search() missing 1 required positional argument: 'regex'")
	}
	var pattern any
	var groupArgs []any
	if len(a.Pos) > 0 {
		pattern, groupArgs = a.Pos[0], a.Pos[1:]
	} else {
		pattern, _ = a.Kw.Get("regex")
	}
	ignorecase, multiline := false, false
	if a.Kw != nil {
		for _, k := range a.Kw.Keys() {
			x, _ := a.Kw.Get(k)
			switch k {
			case "ignorecase":
				ignorecase = value.Truthy(x)
			case "multiline":
				multiline = value.Truthy(x)
			case "regex":
				if len(a.Pos) > 0 {
					return nil, typeErrorf("regex_search() got multiple values for argument 'regex'")
				}
			}
		}
	}
	s := regexInput(in)
	var groups []any
	for _, g := range groupArgs {
		gs, ok := g.(string)
		if !ok {
			return nil, typeErrorf("'%s' object has no attribute 'startswith'", value.TypeName(g))
		}
		switch {
		case strings.HasPrefix(gs, `\g`):
			m := searchGroupNameRe.FindStringSubmatch(gs)
			if m == nil {
				return nil, typeErrorf("'NoneType' object has no attribute 'group'")
			}
			groups = append(groups, m[1])
		case strings.HasPrefix(gs, `\`):
			m := searchGroupNumRe.FindStringSubmatch(gs)
			if m == nil {
				return nil, typeErrorf("'NoneType' object has no attribute 'group'")
			}
			n, _ := strconv.Atoi(m[1])
			groups = append(groups, n)
		default:
			return nil, Errorf("Unknown argument")
		}
	}
	re, err := py.CompileRegex(value.Str(pattern), ignorecase, multiline)
	if err != nil {
		return nil, err
	}
	m := re.FindStringSubmatchIndex(s)
	if m == nil {
		return nil, nil
	}
	if len(groups) == 0 {
		return s[m[0]:m[1]], nil
	}
	out := make([]any, 0, len(groups))
	for _, g := range groups {
		idx := -1
		switch x := g.(type) {
		case int:
			idx = x
		case string:
			idx = re.SubexpIndex(x)
			if idx < 0 {
				return nil, typeErrorf("no such group")
			}
		}
		if idx > re.NumSubexp() {
			return nil, typeErrorf("no such group")
		}
		if m[2*idx] < 0 {
			out = append(out, nil)
		} else {
			out = append(out, s[m[2*idx]:m[2*idx+1]])
		}
	}
	return out, nil
}

func filterRegexFindall(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("regex_findall", py.Req("regex"), py.Opt("multiline", false), py.Opt("ignorecase", false)).Bind(a)
	if err != nil {
		return nil, err
	}
	s := regexInput(in)
	re, err := py.CompileRegex(value.Str(v[0]), value.Truthy(v[2]), value.Truthy(v[1]))
	if err != nil {
		return nil, err
	}
	out := []any{}
	for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
		grp := func(i int) string {
			if m[2*i] < 0 {
				return ""
			}
			return s[m[2*i]:m[2*i+1]]
		}
		switch n := re.NumSubexp(); n {
		case 0:
			out = append(out, grp(0))
		case 1:
			out = append(out, grp(1))
		default:
			t := make(value.Tuple, n)
			for i := 1; i <= n; i++ {
				t[i-1] = grp(i)
			}
			out = append(out, t)
		}
	}
	return out, nil
}

func filterRegexEscape(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("regex_escape", py.Opt("re_type", "python")).Bind(a)
	if err != nil {
		return nil, err
	}
	s := regexInput(in)
	switch value.Str(v[0]) {
	case "python":
		var b strings.Builder
		for _, r := range s {
			if strings.ContainsRune("()[]{}?*+-|^$\\.&~# \t\n\r\v\f", r) {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
		return b.String(), nil
	case "posix_basic":
		var b strings.Builder
		for _, r := range s {
			if strings.ContainsRune("].[^$*\\", r) {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
		return b.String(), nil
	case "posix_extended":
		return nil, Errorf("Regex type (%s) not yet implemented", value.Str(v[0]))
	}
	return nil, Errorf("Invalid regex type (%s)", value.Str(v[0]))
}

// ---------------------------------------------------------------------------
// Dates.

func filterToDatetime(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("to_datetime", py.Opt("format", "%Y-%m-%d %H:%M:%S")).Bind(a)
	if err != nil {
		return nil, err
	}
	s, ok := in.(string)
	if !ok {
		return nil, typeErrorf("strptime() argument 1 must be str, not %s", value.TypeName(in))
	}
	f, ok := v[0].(string)
	if !ok {
		return nil, typeErrorf("strptime() argument 2 must be str, not %s", value.TypeName(v[0]))
	}
	return py.Strptime(s, f)
}

func filterStrftime(c *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("strftime", py.OptNone("second"), py.Opt("utc", false)).Bind(a)
	if err != nil {
		return nil, err
	}
	f, ok := in.(string)
	if !ok {
		return nil, typeErrorf("strftime() argument 1 must be str, not %s", value.TypeName(in))
	}
	t := c.Engine().Now()
	if v[0] != nil {
		sec, err := py.Float(v[0])
		if err != nil {
			return nil, detachedf("Invalid value for epoch value (%s)", value.Str(v[0]))
		}
		whole := math.Floor(sec)
		t = time.Unix(int64(whole), 0)
	}
	if value.Truthy(v[1]) {
		t = t.UTC()
	} else {
		t = t.Local()
	}
	return py.Strftime(t, f), nil
}

// ---------------------------------------------------------------------------
// IP addresses (ansible.utils.ipaddr and friends).

func filterIPAddr(alias string, version int) FilterFunc {
	return func(c *Ctx, in any, a *Args) (any, error) {
		var params []py.Param
		if alias == "ipaddr" {
			params = []py.Param{py.Opt("query", ""), py.Opt("version", false), py.Opt("alias", "ipaddr")}
		} else {
			params = []py.Param{py.Opt("query", "")}
		}
		v, err := py.Sig(alias, params...).Bind(a)
		if err != nil {
			if a.Kw != nil {
				for _, k := range a.Kw.Keys() {
					found := false
					for _, p := range params {
						found = found || p.Name == k
					}
					if !found {
						names := "query, value"
						if alias == "ipaddr" {
							names = "alias, query, value, version"
						}
						return nil, Errorf("['%s. Supported parameters include: %s.']", k, names)
					}
				}
			}
			return nil, err
		}
		switch in.(type) {
		case string, []any, int, bool:
		default:
			if alias != "ipaddr" {
				return nil, Errorf("Unrecognized type <%s> for %s filter <value>", argClassRepr(in), alias)
			}
		}
		ver := version
		if alias == "ipaddr" {
			if n, ok := value.AsInt(v[1]); ok && n != 0 {
				if _, isB := v[1].(bool); !isB {
					ver = n
				}
			}
		}
		name := alias
		if alias == "ipaddr" {
			// ansible.utils' ipaddr filter passes alias=None unless given.
			name = ""
			if x, ok := a.Get(2, "alias"); ok {
				name = value.Str(x)
			}
		}
		warnInvalidIPs(c, in)
		return ipaddrQuery(in, value.Str(v[0]), ver, name)
	}
}

// warnInvalidIPs gives ansible.utils' warning for each empty (or True)
// value passed to an ipaddr filter.
func warnInvalidIPs(c *Ctx, in any) {
	items := []any{in}
	if l, ok := in.([]any); ok {
		items = l
	}
	for _, it := range items {
		if !value.Truthy(it) || it == true {
			c.warn(Warning{Msg: fmt.Sprintf("The value '%s' is not a valid IP address or network, passing this value to ipaddr filter might result in breaking change in future.", value.Str(it))})
		}
	}
}

func filterIPWrap(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("ipwrap", py.Opt("query", "")).Bind(a); err != nil {
		return nil, err
	}
	wrap := func(x any) any {
		r, err := ipaddrQuery(x, "", 0, "ipwrap")
		if err != nil || r == false || r == nil {
			return x
		}
		w, _ := ipaddrQuery(x, "wrap", 0, "ipwrap")
		return w
	}
	if l, ok := in.([]any); ok {
		out := []any{}
		for _, x := range l {
			if r := wrap(x); value.Truthy(r) {
				out = append(out, r)
			}
		}
		return out, nil
	}
	return wrap(in), nil
}

func testIPAddr(_ *Ctx, in any, a *Args) (bool, error) {
	if _, err := py.Sig("_ipaddr").Bind(a); err != nil {
		return false, err
	}
	_, ok := parseIPNet(value.Str(in))
	return ok, nil
}

func testIPAddress(_ *Ctx, in any, a *Args) (bool, error) {
	if _, err := py.Sig("_ip_address").Bind(a); err != nil {
		return false, err
	}
	n, ok := parseIPNet(value.Str(in))
	return ok && !n.hasPrefix, nil
}

func testIPVersion(ver int) TestFunc {
	return func(_ *Ctx, in any, a *Args) (bool, error) {
		if _, err := py.Sig("_ipv" + strconv.Itoa(ver)).Bind(a); err != nil {
			return false, err
		}
		n, ok := parseIPNet(value.Str(in))
		return ok && n.version == ver, nil
	}
}

// ipNet is a netaddr.IPNetwork: an address with a prefix length.
type ipNet struct {
	ip        *big.Int
	prefix    int
	version   int
	hasPrefix bool
}

func (n ipNet) width() int {
	if n.version == 4 {
		return 32
	}
	return 128
}

func (n ipNet) maxInt() *big.Int {
	return new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(n.width())), big.NewInt(1))
}

func (n ipNet) hostmask() *big.Int {
	return new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(n.width()-n.prefix)), big.NewInt(1))
}

func (n ipNet) netmask() *big.Int { return new(big.Int).Xor(n.maxInt(), n.hostmask()) }
func (n ipNet) network() *big.Int { return new(big.Int).And(n.ip, n.netmask()) }
func (n ipNet) size() *big.Int    { return new(big.Int).Lsh(big.NewInt(1), uint(n.width()-n.prefix)) }
func (n ipNet) broadcast() *big.Int {
	if n.version == 4 && n.width()-n.prefix <= 1 {
		return nil
	}
	return new(big.Int).Or(n.network(), n.hostmask())
}
func (n ipNet) addrStr(v *big.Int) string { return ipString(v, n.version) }
func (n ipNet) String() string            { return n.addrStr(n.ip) + "/" + strconv.Itoa(n.prefix) }

func ipString(v *big.Int, version int) string {
	if version == 4 {
		x := v.Uint64()
		return fmt.Sprintf("%d.%d.%d.%d", x>>24&0xff, x>>16&0xff, x>>8&0xff, x&0xff)
	}
	b := v.FillBytes(make([]byte, 16))
	var words [8]int
	for i := range words {
		words[i] = int(b[2*i])<<8 | int(b[2*i+1])
	}
	base, blen := -1, 0
	for i := 0; i < 8; {
		if words[i] != 0 {
			i++
			continue
		}
		j := i
		for j < 8 && words[j] == 0 {
			j++
		}
		if j-i > blen {
			base, blen = i, j-i
		}
		i = j
	}
	if blen < 2 {
		base = -1
	}
	var sb strings.Builder
	for i := 0; i < 8; i++ {
		if base >= 0 && i >= base && i < base+blen {
			if i == base {
				sb.WriteByte(':')
			}
			continue
		}
		if i != 0 {
			sb.WriteByte(':')
		}
		if i == 6 && base == 0 && (blen == 6 || (blen == 5 && words[5] == 0xffff)) {
			fmt.Fprintf(&sb, "%d.%d.%d.%d", b[12], b[13], b[14], b[15])
			break
		}
		fmt.Fprintf(&sb, "%x", words[i])
	}
	if base >= 0 && base+blen == 8 {
		sb.WriteByte(':')
	}
	return sb.String()
}

func parseIPAddrStr(s string, version int) (*big.Int, bool) {
	a, err := netip.ParseAddr(s)
	if err != nil || a.Zone() != "" {
		if version == 4 {
			parts := strings.Split(s, ".")
			if len(parts) >= 1 && len(parts) < 4 {
				for _, p := range parts {
					n, err := strconv.Atoi(p)
					if err != nil || n < 0 || n > 255 || !py.IsDigits(p) {
						return nil, false
					}
				}
				for len(parts) < 4 {
					parts = append(parts, "0")
				}
				return parseIPAddrStr(strings.Join(parts, "."), 4)
			}
		}
		return nil, false
	}
	if version == 4 && !a.Is4() || version == 6 && !a.Is6() {
		return nil, false
	}
	b := a.AsSlice()
	return new(big.Int).SetBytes(b), true
}

// parseIPNet is netaddr.IPNetwork(s): IPv4 first, then IPv6.
func parseIPNet(s string) (ipNet, bool) {
	for _, ver := range []int{4, 6} {
		addr, pfx, has := strings.Cut(s, "/")
		ip, ok := parseIPAddrStr(addr, ver)
		if !ok {
			continue
		}
		n := ipNet{ip: ip, version: ver, hasPrefix: has}
		n.prefix = n.width()
		if has {
			if p, ok := py.ParseInt(pfx, 10); ok {
				n.prefix = p
			} else {
				m, ok := parseIPAddrStr(pfx, ver)
				if !ok {
					continue
				}
				full := n.maxInt()
				inv := new(big.Int).Xor(m, full)
				switch {
				case isLowMask(inv):
					n.prefix = n.width() - inv.BitLen()
				case isLowMask(m):
					n.prefix = n.width() - m.BitLen()
				default:
					continue
				}
			}
			if n.prefix < 0 || n.prefix > n.width() {
				continue
			}
		}
		return n, true
	}
	return ipNet{}, false
}

// isLowMask reports whether v is 2^k-1.
func isLowMask(v *big.Int) bool {
	x := new(big.Int).Add(v, big.NewInt(1))
	return new(big.Int).And(x, new(big.Int).Sub(x, big.NewInt(1))).Sign() == 0
}

func inNet(ip *big.Int, version int, cidr string) bool {
	n, _ := parseIPNet(cidr)
	if n.version != version {
		return false
	}
	return new(big.Int).And(ip, n.netmask()).Cmp(n.network()) == 0
}

func inRange(ip *big.Int, version int, lo, hi string) bool {
	if version != 4 {
		return false
	}
	l, _ := parseIPAddrStr(lo, 4)
	h, _ := parseIPAddrStr(hi, 4)
	return ip.Cmp(l) >= 0 && ip.Cmp(h) <= 0
}

func ipIsPrivate(ip *big.Int, ver int) bool {
	if ver == 4 {
		for _, c := range []string{"10.0.0.0/8", "100.64.0.0/10", "172.16.0.0/12", "192.0.0.0/24", "192.168.0.0/16", "198.18.0.0/15"} {
			if inNet(ip, 4, c) {
				return true
			}
		}
		if inRange(ip, 4, "239.0.0.0", "239.255.255.255") {
			return true
		}
	} else if inNet(ip, 6, "fc00::/7") || inNet(ip, 6, "fec0::/10") {
		return true
	}
	return ipIsLinkLocal(ip, ver)
}

func ipIsLinkLocal(ip *big.Int, ver int) bool {
	if ver == 4 {
		return inNet(ip, 4, "169.254.0.0/16")
	}
	return inNet(ip, 6, "fe80::/10")
}

func ipIsReserved(ip *big.Int, ver int) bool {
	if ver == 4 {
		for _, c := range []string{"0.0.0.0/8", "192.0.2.0/24", "240.0.0.0/4", "198.51.100.0/24", "203.0.113.0/24", "233.252.0.0/24", "127.0.0.0/8", "192.88.99.0/24"} {
			if inNet(ip, 4, c) {
				return true
			}
		}
		return inRange(ip, 4, "234.0.0.0", "238.255.255.255") || inRange(ip, 4, "225.0.0.0", "231.255.255.255")
	}
	for _, c := range []string{"ff00::/12", "::/8", "100::/8", "200::/7", "400::/6", "800::/5", "1000::/4", "4000::/3", "6000::/3", "8000::/3", "a000::/3", "c000::/3", "e000::/4", "f000::/5", "f800::/6", "fe00::/9"} {
		if inNet(ip, 6, c) {
			return true
		}
	}
	return false
}

func ipIsGlobal(ip *big.Int, ver int) bool {
	if !(ipIsPrivate(ip, ver) || ipIsLinkLocal(ip, ver) || ipIsReserved(ip, ver)) {
		all := true
		for _, c := range []string{"::1/128", "::/128", "::ffff:0:0/96", "64:ff9b:1::/48", "100::/64", "2001::/23", "2001:db8::/32", "2002::/16"} {
			if inNet(ip, ver, c) {
				all = false
			}
		}
		if all {
			return true
		}
	}
	return inRange(ip, ver, "239.0.0.0", "239.255.255.255") || inNet(ip, ver, "233.252.0.0/24") ||
		inRange(ip, ver, "234.0.0.0", "238.255.255.255") || inRange(ip, ver, "225.0.0.0", "231.255.255.255") ||
		inNet(ip, ver, "192.88.99.0/24") || inNet(ip, ver, "192.0.0.9/32") || inNet(ip, ver, "192.0.0.10/32")
}

func ipIsMulticast(ip *big.Int, ver int) bool {
	if ver == 4 {
		return inNet(ip, 4, "224.0.0.0/4")
	}
	return inNet(ip, 6, "ff00::/8")
}

func ipIsLoopback(ip *big.Int, ver int) bool {
	if ver == 4 {
		return inNet(ip, 4, "127.0.0.0/8")
	}
	return ip.Cmp(big.NewInt(1)) == 0
}

var ipaddrQueries = map[string]bool{"": true, "6to4": true, "address": true, "address/prefix": true, "bool": true,
	"broadcast": true, "cidr": true, "cidr_lookup": true, "first_usable": true, "gateway": true, "gw": true,
	"host": true, "host/prefix": true, "hostmask": true, "hostnet": true, "int": true, "ip": true, "ip/prefix": true,
	"ip_netmask": true, "ipv4": true, "ipv6": true, "last_usable": true, "link-local": true, "lo": true,
	"loopback": true, "multicast": true, "net": true, "next_usable": true, "netmask": true, "network": true,
	"network_id": true, "network/prefix": true, "network_netmask": true, "network_wildcard": true, "peer": true,
	"prefix": true, "previous_usable": true, "private": true, "public": true, "range_usable": true, "revdns": true,
	"router": true, "size": true, "size_usable": true, "subnet": true, "type": true, "unicast": true, "v4": true,
	"v6": true, "version": true, "wildcard": true, "wrap": true}

// ipaddrQuery is ansible.utils' ipaddr(value, query, version, alias).
func ipaddrQuery(in any, query string, version int, alias string) (any, error) {
	switch x := in.(type) {
	case []any:
		out := []any{}
		for _, e := range x {
			r, err := ipaddrQuery(e, query, version, "ipaddr")
			if err != nil {
				return nil, err
			}
			if value.Truthy(r) {
				out = append(out, r)
			}
		}
		return out, nil
	case bool:
		return false, nil
	}
	if !value.Truthy(in) {
		return false, nil
	}
	s := value.Str(in)
	var n ipNet
	vtype := ""
	if py.IsDigits(s) {
		v, _ := new(big.Int).SetString(s, 10)
		if version != 6 && v.BitLen() <= 32 {
			n = ipNet{ip: v, version: 4, prefix: 32}
		} else if v.BitLen() <= 128 {
			n = ipNet{ip: v, version: 6, prefix: 128}
		} else {
			return false, nil
		}
		s = n.String()
		vtype = "address"
	} else if p, ok := parseIPNet(s); ok {
		n = p
		vtype = "address"
		if strings.Count(s, "/") == 1 {
			vtype = "network"
		}
	} else {
		addr, pfx, ok := strings.Cut(s, "/")
		a, ok1 := py.ParseInt(addr, 10)
		b, ok2 := py.ParseInt(pfx, 10)
		if !ok || !ok1 || !ok2 || strings.Contains(pfx, "/") {
			return false, nil
		}
		av := big.NewInt(int64(a))
		switch {
		case a >= 0 && av.BitLen() <= 32 && b >= 0 && b <= 32:
			n = ipNet{ip: av, version: 4, prefix: b}
		case a >= 0 && b >= 0 && b <= 128:
			n = ipNet{ip: av, version: 6, prefix: b}
		default:
			return false, nil
		}
		s = n.String()
		vtype = "network"
	}
	var lookup *ipNet
	if query != "" && (!ipaddrQueries[query] || query == "cidr_lookup") && !py.IsDigits(query) {
		if q, ok := parseIPNet(query); ok && strings.Contains(query, "/") {
			lookup = &q
			query = "cidr_lookup"
		} else if q, ok := parseIPNet(query); ok {
			r, _ := ipaddrQuery(query, "network", 0, alias)
			if value.Truthy(r) {
				lookup = &q
				query = "cidr_lookup"
			}
		}
	}
	if version != 0 && n.version != version {
		return false, nil
	}
	one, two := big.NewInt(1), big.NewInt(2)
	size := n.size()
	ipS := n.addrStr(n.ip)
	notNetwork := n.ip.Cmp(n.network()) != 0
	ipWithPrefix := ipS + "/" + strconv.Itoa(n.prefix)
	firstLast := func() (*big.Int, *big.Int) {
		if size.Cmp(two) == 0 {
			return n.network(), new(big.Int).Or(n.network(), n.hostmask())
		}
		return new(big.Int).Add(n.network(), one), new(big.Int).Sub(new(big.Int).Or(n.network(), n.hostmask()), one)
	}
	needNet := func() error {
		if vtype == "address" {
			return Errorf("Not a network address")
		}
		return nil
	}
	switch query {
	case "":
		if vtype == "address" {
			return ipS, nil
		}
		return n.String(), nil
	case "address", "ip":
		if size.Cmp(one) == 0 || notNetwork || n.broadcast() == nil || n.version == 6 {
			return ipS, nil
		}
		return nil, nil
	case "address/prefix", "gateway", "gw", "host/prefix", "hostnet", "router":
		if size.Cmp(two) > 0 && (!notNetwork || n.ip.Cmp(n.broadcast()) == 0) {
			return false, nil
		}
		return ipWithPrefix, nil
	case "bool":
		return true, nil
	case "broadcast":
		if size.Cmp(two) > 0 {
			return n.addrStr(n.broadcast()), nil
		}
		return nil, nil
	case "cidr":
		return n.String(), nil
	case "cidr_lookup":
		if lookup.version == n.version && new(big.Int).And(n.network(), lookup.netmask()).Cmp(lookup.network()) == 0 && n.prefix >= lookup.prefix {
			return s, nil
		}
		return nil, nil
	case "first_usable":
		if err := needNet(); err != nil {
			return nil, err
		}
		if size.Cmp(two) == 0 {
			return n.addrStr(n.network()), nil
		}
		if size.Cmp(one) > 0 {
			return n.addrStr(new(big.Int).Add(n.network(), one)), nil
		}
		return nil, nil
	case "last_usable":
		if err := needNet(); err != nil {
			return nil, err
		}
		if size.Cmp(one) > 0 {
			_, l := firstLast()
			return n.addrStr(l), nil
		}
		return nil, nil
	case "range_usable":
		if err := needNet(); err != nil {
			return nil, err
		}
		if size.Cmp(one) > 0 {
			f, l := firstLast()
			return n.addrStr(f) + "-" + n.addrStr(l), nil
		}
		return nil, nil
	case "next_usable", "previous_usable":
		if err := needNet(); err != nil {
			return nil, err
		}
		if size.Cmp(one) > 0 {
			f, l := firstLast()
			x := new(big.Int).Add(n.ip, one)
			if query == "previous_usable" {
				x = new(big.Int).Sub(n.ip, one)
			}
			if x.Cmp(f) >= 0 && x.Cmp(l) <= 0 {
				return n.addrStr(x), nil
			}
		}
		return nil, nil
	case "host":
		if size.Cmp(one) == 0 {
			return n.String(), nil
		}
		if notNetwork || n.broadcast() == nil {
			return ipWithPrefix, nil
		}
		return nil, nil
	case "hostmask", "wildcard":
		return n.addrStr(n.hostmask()), nil
	case "int":
		if vtype == "address" {
			if n.ip.IsInt64() {
				return int(n.ip.Int64()), nil
			}
			return n.ip.String(), nil
		}
		return n.ip.String() + "/" + strconv.Itoa(n.prefix), nil
	case "ip/prefix":
		if size.Cmp(two) == 0 || (size.Cmp(one) > 0 && notNetwork) {
			return ipWithPrefix, nil
		}
		return nil, nil
	case "ip_netmask":
		if size.Cmp(two) == 0 || (size.Cmp(one) > 0 && notNetwork) {
			return ipS + " " + n.addrStr(n.netmask()), nil
		}
		return nil, nil
	case "ipv4", "v4":
		if n.version == 4 {
			return s, nil
		}
		v := n.ip
		lim := big.NewInt(0xffffffff)
		mapped := big.NewInt(0xffff00000000)
		switch {
		case v.Cmp(lim) <= 0:
		case v.Cmp(big.NewInt(0xffffffffffff)) <= 0:
			v = new(big.Int).Sub(v, mapped)
		default:
			return false, nil
		}
		return ipString(v, 4) + "/" + strconv.Itoa(n.prefix-96), nil
	case "ipv6", "v6":
		if n.version == 6 {
			return s, nil
		}
		v := new(big.Int).Add(n.ip, big.NewInt(0xffff00000000))
		return ipString(v, 6) + "/" + strconv.Itoa(n.prefix+96), nil
	case "link-local":
		if ipIsLinkLocal(n.ip, n.version) {
			return s, nil
		}
		return nil, nil
	case "lo", "loopback":
		if ipIsLoopback(n.ip, n.version) {
			return s, nil
		}
		return nil, nil
	case "multicast":
		if ipIsMulticast(n.ip, n.version) {
			return s, nil
		}
		return nil, nil
	case "unicast":
		if !ipIsMulticast(n.ip, n.version) {
			return s, nil
		}
		return nil, nil
	case "net":
		if size.Cmp(one) > 0 && !notNetwork {
			return n.addrStr(n.network()) + "/" + strconv.Itoa(n.prefix), nil
		}
		return nil, nil
	case "netmask":
		return n.addrStr(n.netmask()), nil
	case "network", "network_id":
		return n.addrStr(n.network()), nil
	case "network/prefix", "subnet":
		return n.addrStr(n.network()) + "/" + strconv.Itoa(n.prefix), nil
	case "network_netmask":
		return n.addrStr(n.network()) + " " + n.addrStr(n.netmask()), nil
	case "network_wildcard":
		return n.addrStr(n.network()) + " " + n.addrStr(n.hostmask()), nil
	case "peer":
		if err := needNet(); err != nil {
			return nil, err
		}
		switch size.Int64() {
		case 2:
			return n.addrStr(new(big.Int).Xor(n.ip, one)), nil
		case 4:
			switch new(big.Int).Mod(n.ip, big.NewInt(4)).Int64() {
			case 0:
				return nil, Errorf("Network address of /30 has no peer")
			case 3:
				return nil, Errorf("Broadcast address of /30 has no peer")
			}
			return n.addrStr(new(big.Int).Xor(n.ip, big.NewInt(3))), nil
		}
		return nil, Errorf("Not a point-to-point network")
	case "prefix":
		return n.prefix, nil
	case "private":
		if !ipIsGlobal(n.ip, n.version) {
			return s, nil
		}
		return nil, nil
	case "public":
		hostmask := isLowMask(n.ip)
		netmask := isLowMask(new(big.Int).Xor(n.ip, n.maxInt()))
		if !ipIsMulticast(n.ip, n.version) && ipIsGlobal(n.ip, n.version) && !ipIsLoopback(n.ip, n.version) && !netmask && !hostmask {
			return s, nil
		}
		return nil, nil
	case "revdns":
		if n.version == 4 {
			p := strings.Split(ipS, ".")
			return p[3] + "." + p[2] + "." + p[1] + "." + p[0] + ".in-addr.arpa.", nil
		}
		h := fmt.Sprintf("%032x", n.ip)
		var parts []string
		for i := len(h) - 1; i >= 0; i-- {
			parts = append(parts, h[i:i+1])
		}
		return strings.Join(parts, ".") + ".ip6.arpa.", nil
	case "size":
		if size.IsInt64() {
			return int(size.Int64()), nil
		}
		return size.String(), nil
	case "size_usable":
		switch {
		case size.Cmp(one) == 0:
			return 0, nil
		case size.Cmp(two) == 0:
			return 2, nil
		}
		u := new(big.Int).Sub(size, two)
		if u.IsInt64() {
			return int(u.Int64()), nil
		}
		return u.String(), nil
	case "type":
		if size.Cmp(one) == 0 || notNetwork {
			return "address", nil
		}
		return "network", nil
	case "version":
		return n.version, nil
	case "wrap":
		if n.version == 6 {
			if vtype == "address" {
				return "[" + ipS + "]", nil
			}
			return "[" + ipS + "]/" + strconv.Itoa(n.prefix), nil
		}
		return s, nil
	case "6to4":
		if n.version == 4 {
			conv := ipS
			if size.Cmp(one) > 0 && !notNetwork {
				return false, nil
			}
			if ipIsGlobal(n.ip, 4) && !ipIsMulticast(n.ip, 4) || !ipIsGlobal(n.ip, 4) {
				p := strings.Split(conv, ".")
				var b [4]int
				for i := range p {
					b[i], _ = strconv.Atoi(p[i])
				}
				return fmt.Sprintf("2002:%02x%02x:%02x%02x::1/48", b[0], b[1], b[2], b[3]), nil
			}
			return false, nil
		}
		if inNet(n.ip, 6, "2002::/16") && (vtype == "address" || notNetwork) {
			return s, nil
		}
		return false, nil
	}
	if _, ok := py.ParseFloat(query); ok {
		if size.Cmp(one) == 0 {
			if vtype == "address" {
				return ipS, nil
			}
			return n.String(), nil
		}
		idx, ok := py.ParseInt(query, 10)
		if !ok {
			return false, nil
		}
		bi := big.NewInt(int64(idx))
		if idx < 0 {
			bi.Add(bi, size)
		}
		if bi.Sign() < 0 || bi.Cmp(size) >= 0 {
			return false, nil
		}
		return n.addrStr(new(big.Int).Add(n.network(), bi)) + "/" + strconv.Itoa(n.prefix), nil
	}
	if alias == "" {
		return nil, typeErrorf("unsupported operand type(s) for +: 'NoneType' and 'str'")
	}
	return nil, Errorf("%s: unknown filter type: %s", alias, query)
}
