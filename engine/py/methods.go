package py

import (
	"strings"
	"unicode"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// The methods of str, dict and list that templates can call.
var (
	strMethods = map[string]bool{"startswith": true, "endswith": true, "split": true, "rsplit": true, "strip": true,
		"lstrip": true, "rstrip": true, "lower": true, "upper": true, "replace": true, "find": true, "rfind": true,
		"index": true, "count": true, "join": true, "format": true, "splitlines": true, "title": true,
		"capitalize": true, "isdigit": true, "isalpha": true, "isalnum": true, "isspace": true, "islower": true,
		"isupper": true, "zfill": true, "center": true, "ljust": true, "rjust": true, "partition": true,
		"rpartition": true, "swapcase": true, "encode": true, "decode": true, "casefold": true,
		"removeprefix": true, "removesuffix": true}
	dictMethods = map[string]bool{"items": true, "keys": true, "values": true, "get": true, "update": true,
		"copy": true, "pop": true, "setdefault": true}
	listMethods = map[string]bool{"append": true, "extend": true, "index": true, "count": true, "insert": true,
		"pop": true, "remove": true, "reverse": true, "sort": true, "copy": true}
)

// strJustify is str.center, str.ljust or str.rjust (how) to width w.
func strJustify(s, how string, w int, fill string) string {
	n := w - len([]rune(s))
	if n <= 0 {
		return s
	}
	switch how {
	case "ljust":
		return s + strings.Repeat(fill, n)
	case "rjust":
		return strings.Repeat(fill, n) + s
	}
	left := n / 2
	if n%2 == 1 && w%2 == 1 {
		left++
	}
	return strings.Repeat(fill, left) + s + strings.Repeat(fill, n-left)
}

// strPartition is str.partition(sep), or str.rpartition(sep) with last.
func strPartition(s, sep string, last bool) value.Tuple {
	i := strings.Index(s, sep)
	if last {
		i = strings.LastIndex(s, sep)
	}
	switch {
	case i >= 0:
		return value.Tuple{s[:i], sep, s[i+len(sep):]}
	case last:
		return value.Tuple{"", "", s}
	}
	return value.Tuple{s, "", ""}
}

// HasMethod reports whether obj has a method name that CallMethod runs.
func HasMethod(obj any, name string) bool {
	switch obj.(type) {
	case string:
		return strMethods[name]
	case *value.Dict:
		return dictMethods[name]
	case []any:
		return listMethods[name]
	case value.Tuple:
		return name == "count" || name == "index"
	case *Datetime:
		return datetimeMethods[name]
	case *Timedelta:
		return name == "total_seconds"
	}
	return false
}

// datetimeMethods are the methods of a Datetime that CallMethod runs.
var datetimeMethods = map[string]bool{"strftime": true, "timestamp": true, "isoformat": true, "weekday": true, "isoweekday": true}

// CallMethod runs method name of recv (a str, dict, list, tuple, Datetime
// or Timedelta). A list or dict method that mutates returns the new list
// or dict as mutated (the receiver is left alone: values are shared
// copy-on-write, see value.MapList), for the caller to store back.
func CallMethod(recv any, name string, a *Args) (res any, mutated any, err error) {
	switch r := recv.(type) {
	case string:
		res, err = strMethod(r, name, a)
		return res, nil, err
	case *value.Dict:
		res, d, err := dictMethod(r, name, a)
		if d == nil {
			return res, nil, err
		}
		return res, d, err
	case []any:
		res, l, err := listMethod(r, name, a)
		if l == nil {
			return res, nil, err
		}
		return res, l, err
	case value.Tuple:
		res, _, err = listMethod([]any(r), name, a)
		return res, nil, err
	case *Datetime, *Timedelta:
		if res, ok, err := datetimeMethod(r, name, a); ok {
			return res, nil, err
		}
	}
	return nil, nil, Errorf("'%s' object has no attribute '%s'", value.TypeName(recv), name)
}

func strMethod(s, name string, a *Args) (any, error) {
	arg := func(i int) string { return a.String(i, "", "") }
	switch name {
	case "startswith", "endswith":
		v, _ := a.Get(0, "")
		prefixes := []any{v}
		if t, ok := v.(value.Tuple); ok {
			prefixes = t
		}
		for _, p := range prefixes {
			ps := value.Str(p)
			if (name == "startswith" && strings.HasPrefix(s, ps)) || (name == "endswith" && strings.HasSuffix(s, ps)) {
				return true, nil
			}
		}
		return false, nil
	case "split", "rsplit":
		return Split(s, a, name == "rsplit"), nil
	case "strip", "lstrip", "rstrip":
		cut := " \t\n\r\v\f"
		if v, ok := a.Get(0, ""); ok && v != nil {
			cut = value.Str(v)
		}
		switch name {
		case "strip":
			return strings.Trim(s, cut), nil
		case "lstrip":
			return strings.TrimLeft(s, cut), nil
		}
		return strings.TrimRight(s, cut), nil
	case "lower", "casefold":
		return Lower(s), nil
	case "upper":
		return Upper(s), nil
	case "swapcase":
		return strings.Map(func(r rune) rune {
			if unicode.IsUpper(r) {
				return unicode.ToLower(r)
			}
			return unicode.ToUpper(r)
		}, s), nil
	case "replace":
		n := -1
		if v, ok := a.Get(2, "count"); ok {
			n, _ = value.AsInt(v)
		}
		return strings.Replace(s, arg(0), arg(1), n), nil
	case "find", "index":
		i := strings.Index(s, arg(0))
		if i >= 0 {
			i = len([]rune(s[:i]))
		} else if name == "index" {
			return nil, Errorf("substring not found")
		}
		return i, nil
	case "rfind":
		i := strings.LastIndex(s, arg(0))
		if i >= 0 {
			i = len([]rune(s[:i]))
		}
		return i, nil
	case "count":
		return strings.Count(s, arg(0)), nil
	case "join":
		v, _ := a.Get(0, "")
		items, err := Iterate(v)
		if err != nil {
			return nil, err
		}
		parts := make([]string, len(items))
		for i, it := range items {
			parts[i] = value.Str(it)
		}
		return strings.Join(parts, s), nil
	case "format":
		return Format(s, a)
	case "splitlines":
		lines := strings.Split(strings.TrimSuffix(strings.ReplaceAll(s, "\r\n", "\n"), "\n"), "\n")
		out := make([]any, 0, len(lines))
		if s == "" {
			return out, nil
		}
		for _, l := range lines {
			out = append(out, l)
		}
		return out, nil
	case "title":
		return Title(s), nil
	case "capitalize":
		if s == "" {
			return s, nil
		}
		return Capitalize(s), nil
	case "isdigit", "isalpha", "isalnum", "isspace", "islower", "isupper":
		return StrPredicate(s, name), nil
	case "zfill":
		w, _ := value.AsInt(a.Default(0, "", 0))
		sign := ""
		if strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+") {
			sign, s = s[:1], s[1:]
		}
		for len([]rune(s))+len(sign) < w {
			s = "0" + s
		}
		return sign + s, nil
	case "center", "ljust", "rjust":
		w, _ := value.AsInt(a.Default(0, "", 0))
		return strJustify(s, name, w, a.String(1, "", " ")), nil
	case "partition", "rpartition":
		return strPartition(s, arg(0), name == "rpartition"), nil
	case "removeprefix":
		return strings.TrimPrefix(s, arg(0)), nil
	case "removesuffix":
		return strings.TrimSuffix(s, arg(0)), nil
	case "encode", "decode":
		return s, nil
	}
	return nil, Errorf("'str' object has no attribute '%s'", name)
}

func dictMethod(d *value.Dict, name string, a *Args) (any, *value.Dict, error) {
	switch name {
	case "items":
		out := make([]any, 0, d.Len())
		d.Each(func(k string, v any) bool { out = append(out, value.Tuple{d.Key(k), v}); return true })
		return out, nil, nil
	case "keys":
		out := make([]any, 0, d.Len())
		for _, k := range d.Keys() {
			out = append(out, d.Key(k))
		}
		return out, nil, nil
	case "values":
		out := make([]any, 0, d.Len())
		d.Each(func(_ string, v any) bool { out = append(out, v); return true })
		return out, nil, nil
	case "get":
		k := a.String(0, "", "")
		if v, ok := d.Get(k); ok {
			return v, nil, nil
		}
		return a.Default(1, "", nil), nil, nil
	case "update":
		out := d.Copy()
		if v, ok := a.Get(0, ""); ok {
			if err := updateFrom(out, v); err != nil {
				return nil, nil, err
			}
		}
		if a.Kw != nil {
			out.Update(a.Kw)
		}
		return nil, out, nil
	case "copy":
		return d.Copy(), nil, nil
	case "pop":
		k := a.String(0, "", "")
		if v, ok := d.Get(k); ok {
			out := d.Copy()
			out.Delete(k)
			return v, out, nil
		}
		if v, ok := a.Get(1, ""); ok {
			return v, nil, nil
		}
		return nil, nil, Errorf("%s", value.Repr(k))
	case "setdefault":
		k := a.String(0, "", "")
		if v, ok := d.Get(k); ok {
			return v, nil, nil
		}
		v := a.Default(1, "", nil)
		out := d.Copy()
		out.Set(k, v)
		return v, out, nil
	}
	return nil, nil, Errorf("'dict' object has no attribute '%s'", name)
}

func listMethod(l []any, name string, a *Args) (any, []any, error) {
	switch name {
	case "append":
		v, _ := a.Get(0, "")
		out := append(l[:len(l):len(l)], v)
		return nil, out, nil
	case "extend":
		v, _ := a.Get(0, "")
		items, err := Iterate(v)
		if err != nil {
			return nil, nil, err
		}
		return nil, append(l[:len(l):len(l)], items...), nil
	case "insert":
		i, _ := value.AsInt(a.Default(0, "", 0))
		v, _ := a.Get(1, "")
		if i < 0 {
			i += len(l)
		}
		if i < 0 {
			i = 0
		}
		if i > len(l) {
			i = len(l)
		}
		out := make([]any, 0, len(l)+1)
		out = append(append(append(out, l[:i]...), v), l[i:]...)
		return nil, out, nil
	case "pop":
		if len(l) == 0 {
			return nil, nil, Errorf("pop from empty list")
		}
		i, _ := value.AsInt(a.Default(0, "", -1))
		if i < 0 {
			i += len(l)
		}
		if i < 0 || i >= len(l) {
			return nil, nil, Errorf("pop index out of range")
		}
		out := append(append([]any{}, l[:i]...), l[i+1:]...)
		return l[i], out, nil
	case "remove":
		v, _ := a.Get(0, "")
		for i, e := range l {
			if value.Equal(e, v) {
				return nil, append(append([]any{}, l[:i]...), l[i+1:]...), nil
			}
		}
		return nil, nil, Errorf("list.remove(x): x not in list")
	case "reverse":
		out := make([]any, len(l))
		for i, e := range l {
			out[len(l)-1-i] = e
		}
		return nil, out, nil
	case "index":
		v, _ := a.Get(0, "")
		for i, e := range l {
			if value.Equal(e, v) {
				return i, nil, nil
			}
		}
		return nil, nil, Errorf("%s is not in list", value.Repr(v))
	case "count":
		v, _ := a.Get(0, "")
		n := 0
		for _, e := range l {
			if value.Equal(e, v) {
				n++
			}
		}
		return n, nil, nil
	case "copy":
		return append([]any{}, l...), nil, nil
	case "sort":
		out := append([]any{}, l...)
		if err := Sort(out, a.Bool(-1, "reverse", false)); err != nil {
			return nil, nil, err
		}
		return nil, out, nil
	}
	return nil, nil, Errorf("'list' object has no attribute '%s'", name)
}

// updateFrom is dict.update(v): from a dict, or from an iterable of
// key, value pairs, failing with Python's TypeError or ValueError.
func updateFrom(out *value.Dict, v any) error {
	if o, ok := v.(*value.Dict); ok {
		out.Update(o)
		return nil
	}
	items, err := Iterate(v)
	if err != nil {
		return err
	}
	for i, it := range items {
		pair, err := Iterate(it)
		if err != nil {
			return Errorf("cannot convert dictionary update sequence element #%d to a sequence", i)
		}
		if len(pair) != 2 {
			return Errorf("dictionary update sequence element #%d has length %d; 2 is required", i, len(pair))
		}
		out.SetKey(pair[0], pair[1])
	}
	return nil
}
