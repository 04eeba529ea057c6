package template

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// builtinTests returns Jinja2's and Ansible's tests.
func builtinTests() map[string]TestFunc {
	m := map[string]TestFunc{
		// Jinja2
		"defined":     testDefined,
		"undefined":   testUndefined,
		"none":        simpleTest("test_none", func(v any) bool { return v == nil }),
		"boolean":     simpleTest("test_boolean", func(v any) bool { _, ok := v.(bool); return ok }),
		"true":        simpleTest("test_true", func(v any) bool { b, ok := v.(bool); return ok && b }),
		"false":       simpleTest("test_false", func(v any) bool { b, ok := v.(bool); return ok && !b }),
		"integer":     simpleTest("test_integer", func(v any) bool { _, ok := v.(int); return ok }),
		"float":       simpleTest("test_float", func(v any) bool { _, ok := v.(float64); return ok }),
		"number":      simpleTest("test_number", value.IsNumber),
		"string":      simpleTest("test_string", func(v any) bool { _, ok := v.(string); return ok }),
		"mapping":     simpleTest("test_mapping", func(v any) bool { _, ok := v.(*value.Dict); return ok }),
		"sequence":    simpleTest("test_sequence", isSequenceLike),
		"iterable":    simpleTest("test_iterable", isIterable),
		"callable":    testCallable,
		"escaped":     simpleTest("test_escaped", func(v any) bool { _, ok := v.(markup); return ok }),
		"lower":       simpleTest("test_lower", func(v any) bool { return py.StrPredicate(value.Str(v), "islower") }),
		"upper":       simpleTest("test_upper", func(v any) bool { return py.StrPredicate(value.Str(v), "isupper") }),
		"odd":         testOdd,
		"even":        testEven,
		"divisibleby": testDivisibleby,
		"sameas":      testSameas,
		"in":          testIn,
		"filter":      testIsFilter,
		"test":        testIsTest,
		"==":          compareTest("eq", "=="),
		"eq":          compareTest("eq", "=="),
		"equalto":     compareTest("eq", "=="),
		"!=":          compareTest("ne", "!="),
		"ne":          compareTest("ne", "!="),
		">":           compareTest("gt", ">"),
		"gt":          compareTest("gt", ">"),
		"greaterthan": compareTest("gt", ">"),
		">=":          compareTest("ge", ">="),
		"ge":          compareTest("ge", ">="),
		"<":           compareTest("lt", "<"),
		"lt":          compareTest("lt", "<"),
		"lessthan":    compareTest("lt", "<"),
		"<=":          compareTest("le", "<="),
		"le":          compareTest("le", "<="),

		// Ansible: task results
		"failed":      resultTest("failed", func(d *value.Dict) (bool, error) { return dictTruthy(d, "failed"), nil }),
		"failure":     resultTest("failed", func(d *value.Dict) (bool, error) { return dictTruthy(d, "failed"), nil }),
		"succeeded":   resultTest("failed", func(d *value.Dict) (bool, error) { return !dictTruthy(d, "failed"), nil }),
		"success":     resultTest("failed", func(d *value.Dict) (bool, error) { return !dictTruthy(d, "failed"), nil }),
		"successful":  resultTest("failed", func(d *value.Dict) (bool, error) { return !dictTruthy(d, "failed"), nil }),
		"unreachable": resultTest("unreachable", func(d *value.Dict) (bool, error) { return dictTruthy(d, "unreachable"), nil }),
		"reachable":   resultTest("unreachable", func(d *value.Dict) (bool, error) { return !dictTruthy(d, "unreachable"), nil }),
		"timedout":    resultTest("timedout", testTimedout),
		"changed":     resultTest("changed", testChanged),
		"change":      resultTest("changed", testChanged),
		"skipped":     resultTest("skipped", func(d *value.Dict) (bool, error) { return dictTruthy(d, "skipped"), nil }),
		"skip":        resultTest("skipped", func(d *value.Dict) (bool, error) { return dictTruthy(d, "skipped"), nil }),
		"finished":    resultTest("finished", asyncState("finished")),
		"started":     resultTest("started", asyncState("started")),

		// Ansible: regular expressions, versions, truth
		"match":           regexTest("match", "match"),
		"search":          regexTest("search", "search"),
		"regex":           testRegex,
		"version":         testVersion,
		"version_compare": testVersion,
		"any":             anyAll("any", true),
		"all":             anyAll("all", false),
		"truthy":          testTruthy,
		"falsy":           testFalsy,
		"vault_encrypted": simpleTest("vault_encrypted", func(v any) bool {
			s, ok := v.(string)
			return ok && strings.HasPrefix(s, "$ANSIBLE_VAULT;")
		}),
		"vaulted_file": testVaultedFile,

		// Ansible: sets and numbers
		"subset":     setTest("issubset", true),
		"issubset":   setTest("issubset", true),
		"superset":   setTest("issuperset", false),
		"issuperset": setTest("issuperset", false),
		"contains":   testContains,
		"nan":        simpleTest("isnotanumber", isNaN),
		"isnan":      simpleTest("isnotanumber", isNaN),

		// Ansible: URIs
		"uri": uriTest("is_uri"),
		"url": uriTest("is_url"),
		"urn": uriTest("is_urn"),

		// Ansible: paths and files on the controller
		"abs":          pathTest("isabs", filepath.IsAbs),
		"is_abs":       pathTest("isabs", filepath.IsAbs),
		"directory":    pathTest("isdir", func(p string) bool { st, err := os.Stat(p); return err == nil && st.IsDir() }),
		"is_dir":       pathTest("isdir", func(p string) bool { st, err := os.Stat(p); return err == nil && st.IsDir() }),
		"file":         pathTest("isfile", func(p string) bool { st, err := os.Stat(p); return err == nil && st.Mode().IsRegular() }),
		"is_file":      pathTest("isfile", func(p string) bool { st, err := os.Stat(p); return err == nil && st.Mode().IsRegular() }),
		"link":         pathTest("islink", isLink),
		"is_link":      pathTest("islink", isLink),
		"exists":       pathTest("exists", func(p string) bool { _, err := os.Stat(p); return err == nil }),
		"link_exists":  pathTest("lexists", func(p string) bool { _, err := os.Lstat(p); return err == nil }),
		"mount":        pathTest("ismount", isMount),
		"is_mount":     pathTest("ismount", isMount),
		"same_file":    testSameFile,
		"is_same_file": testSameFile,
	}
	for k, f := range m {
		m[k] = wrapTest("ansible.builtin."+k, f)
	}
	m["ipaddr"] = wrapTest("ansible.utils.ipaddr", testIPAddr)
	m["ip"] = wrapTest("ansible.utils.ip", testIPAddr)
	m["ip_address"] = wrapTest("ansible.utils.ip_address", testIPAddress)
	m["ipv4"] = wrapTest("ansible.utils.ipv4", testIPVersion(4))
	m["ipv6"] = wrapTest("ansible.utils.ipv6", testIPVersion(6))
	return m
}

func simpleTest(fn string, f func(any) bool) TestFunc {
	return func(_ *Ctx, in any, a *Args) (bool, error) {
		if _, err := py.Sig(fn).Bind(a); err != nil {
			return false, err
		}
		return f(in), nil
	}
}

func testDefined(_ *Ctx, in any, a *Args) (bool, error) {
	if _, err := py.Sig("test_defined").Bind(a); err != nil {
		return false, err
	}
	_, u := in.(value.Undefined)
	return !u, nil
}

func testUndefined(_ *Ctx, in any, a *Args) (bool, error) {
	if _, err := py.Sig("test_undefined").Bind(a); err != nil {
		return false, err
	}
	_, u := in.(value.Undefined)
	return u, nil
}

func isSequenceLike(v any) bool {
	switch v.(type) {
	case string, []any, value.Tuple, *value.Dict, *py.Range:
		return true
	}
	return false
}

func isIterable(v any) bool {
	switch v.(type) {
	case string, []any, value.Tuple, *value.Dict, *py.Range:
		return true
	}
	return false
}

func testCallable(_ *Ctx, in any, a *Args) (bool, error) {
	if err := py.OneArg("callable", a); err != nil {
		return false, err
	}
	switch in.(type) {
	case *boundMethod, globalFunc, *macro:
		return true, nil
	}
	return false, nil
}

func testOdd(_ *Ctx, in any, a *Args) (bool, error) {
	if _, err := py.Sig("test_odd").Bind(a); err != nil {
		return false, err
	}
	r, err := py.BinaryOp("%", in, 2)
	if err != nil {
		return false, err
	}
	return value.Equal(r, 1), nil
}

func testEven(_ *Ctx, in any, a *Args) (bool, error) {
	if _, err := py.Sig("test_even").Bind(a); err != nil {
		return false, err
	}
	r, err := py.BinaryOp("%", in, 2)
	if err != nil {
		return false, err
	}
	return value.Equal(r, 0), nil
}

func testDivisibleby(_ *Ctx, in any, a *Args) (bool, error) {
	v, err := py.Sig("test_divisibleby", py.Req("num")).Bind(a)
	if err != nil {
		return false, err
	}
	r, err := py.BinaryOp("%", in, v[0])
	if err != nil {
		return false, err
	}
	return value.Equal(r, 0), nil
}

// testSameas approximates Python's `is`: identical containers, or
// singletons and interned scalars of the same type and value.
func testSameas(_ *Ctx, in any, a *Args) (bool, error) {
	v, err := py.Sig("test_sameas", py.Req("other")).Bind(a)
	if err != nil {
		return false, err
	}
	o := v[0]
	switch x := in.(type) {
	case nil:
		return o == nil, nil
	case bool:
		y, ok := o.(bool)
		return ok && x == y, nil
	case int:
		y, ok := o.(int)
		return ok && x == y && x >= -5 && x <= 256, nil
	case string:
		y, ok := o.(string)
		return ok && x == y, nil
	case *value.Dict:
		y, ok := o.(*value.Dict)
		return ok && x == y, nil
	case []any:
		y, ok := o.([]any)
		return ok && len(x) == len(y) && (len(x) == 0 || &x[0] == &y[0]), nil
	}
	return false, nil
}

func testIn(_ *Ctx, in any, a *Args) (bool, error) {
	v, err := py.Sig("test_in", py.Req("seq")).Bind(a)
	if err != nil {
		return false, err
	}
	return py.Contains(v[0], in)
}

func testIsFilter(c *Ctx, in any, a *Args) (bool, error) {
	if _, err := py.Sig("test_filter").Implicit().Bind(a); err != nil {
		return false, err
	}
	s, ok := in.(string)
	if !ok {
		return false, nil
	}
	_, found := c.eng.lookupFilter(s)
	return found, nil
}

func testIsTest(c *Ctx, in any, a *Args) (bool, error) {
	if _, err := py.Sig("test_test").Implicit().Bind(a); err != nil {
		return false, err
	}
	s, ok := in.(string)
	if !ok {
		return false, nil
	}
	_, found := c.eng.lookupTest(s)
	return found, nil
}

func compareTest(fn, op string) TestFunc {
	return func(_ *Ctx, in any, a *Args) (bool, error) {
		if a.Kw != nil && a.Kw.Len() > 0 {
			return false, typeErrorf("%s() takes no keyword arguments", fn)
		}
		if len(a.Pos) != 1 {
			return false, typeErrorf("%s expected 2 arguments, got %d", fn, len(a.Pos)+1)
		}
		return py.Compare(op, in, a.Pos[0])
	}
}

// ---------------------------------------------------------------------------
// Task result tests.

func dictTruthy(d *value.Dict, k string) bool {
	v, _ := d.Get(k)
	return value.Truthy(v)
}

func resultTest(name string, f func(*value.Dict) (bool, error)) TestFunc {
	return func(c *Ctx, in any, a *Args) (bool, error) {
		if _, err := py.Sig(name).Bind(a); err != nil {
			return false, err
		}
		d, ok := in.(*value.Dict)
		if !ok {
			return false, Errorf("The '%s' test expects a dictionary", name)
		}
		if name == "finished" && !d.Has("finished") {
			c.warn(Warning{Msg: "The 'finished' test expects an async task, but a non-async task was tested"})
		}
		return f(d)
	}
}

func testTimedout(d *value.Dict) (bool, error) {
	t, _ := d.Get("timedout")
	if !value.Truthy(t) {
		return false, nil
	}
	td, ok := t.(*value.Dict)
	if !ok {
		return false, typeErrorf("'%s' object has no attribute 'get'", value.TypeName(t))
	}
	return dictTruthy(td, "period"), nil
}

func testChanged(d *value.Dict) (bool, error) {
	if v, ok := d.Get("changed"); ok {
		return value.Truthy(v), nil
	}
	res, ok := d.Get("results")
	list, isList := res.([]any)
	if !ok || !isList {
		return false, nil
	}
	if len(list) == 0 {
		return false, typeErrorf("list index out of range")
	}
	if _, ok := list[0].(*value.Dict); !ok {
		return false, nil
	}
	for _, r := range list {
		rd, ok := r.(*value.Dict)
		if !ok {
			return false, typeErrorf("'%s' object has no attribute 'get'", value.TypeName(r))
		}
		if dictTruthy(rd, "changed") {
			return true, nil
		}
	}
	return false, nil
}

func asyncState(key string) func(*value.Dict) (bool, error) {
	return func(d *value.Dict) (bool, error) {
		if v, ok := d.Get(key); ok {
			return value.Truthy(v), nil
		}
		return true, nil
	}
}

// ---------------------------------------------------------------------------
// Regular expressions, versions and truth.

func regexTest(fn, matchType string) TestFunc {
	return func(_ *Ctx, in any, a *Args) (bool, error) {
		v, err := py.Sig(fn, py.Opt("pattern", ""), py.Opt("ignorecase", false), py.Opt("multiline", false)).Bind(a)
		if err != nil {
			return false, err
		}
		return regexMatch(in, v[0], v[1], v[2], matchType)
	}
}

func testRegex(_ *Ctx, in any, a *Args) (bool, error) {
	v, err := py.Sig("regex", py.Opt("pattern", ""), py.Opt("ignorecase", false), py.Opt("multiline", false), py.Opt("match_type", "search")).Bind(a)
	if err != nil {
		return false, err
	}
	mt, _ := v[3].(string)
	switch mt {
	case "match", "search", "fullmatch":
	default:
		return false, typeErrorf("'str' object is not callable")
	}
	return regexMatch(in, v[0], v[1], v[2], mt)
}

func regexMatch(in, pattern, ignorecase, multiline any, matchType string) (bool, error) {
	s, ok := in.(string)
	if !ok {
		if in == nil {
			s = ""
		} else {
			s = value.Str(in)
		}
	}
	p, ok := pattern.(string)
	if !ok {
		return false, typeErrorf("first argument must be string or compiled pattern")
	}
	switch matchType {
	case "match":
		p = `\A(?:` + p + `)`
	case "fullmatch":
		p = `\A(?:` + p + `)\z`
	}
	re, err := py.CompileRegex(p, value.Truthy(ignorecase), value.Truthy(multiline))
	if err != nil {
		return false, err
	}
	return re.MatchString(s), nil
}

func testTruthy(_ *Ctx, in any, a *Args) (bool, error) {
	v, err := py.Sig("truthy", py.Opt("convert_bool", false)).Bind(a)
	if err != nil {
		return false, err
	}
	return truthyConv(in, value.Truthy(v[0])), nil
}

func testFalsy(_ *Ctx, in any, a *Args) (bool, error) {
	v, err := py.Sig("falsy", py.Opt("convert_bool", false)).Bind(a)
	if err != nil {
		return false, err
	}
	return !truthyConv(in, value.Truthy(v[0])), nil
}

// truthyConv is Python truth, or with conv ansible-core's boolean() when
// that accepts v.
func truthyConv(v any, conv bool) bool {
	if conv {
		if b, err := py.Boolean(v); err == nil {
			return b
		}
	}
	return value.Truthy(v)
}

func anyAll(fn string, isAny bool) TestFunc {
	return func(_ *Ctx, in any, a *Args) (bool, error) {
		if err := py.OneArg(fn, a); err != nil {
			return false, err
		}
		items, err := iterate(in)
		if err != nil {
			return false, err
		}
		for _, it := range items {
			if u, ok := it.(value.Undefined); ok {
				return false, undefinedErr(u)
			}
			if value.Truthy(it) == isAny {
				return isAny, nil
			}
		}
		return !isAny, nil
	}
}

func testVaultedFile(_ *Ctx, in any, a *Args) (bool, error) {
	if _, err := py.Sig("vaulted_file").Bind(a); err != nil {
		return false, err
	}
	b, err := os.ReadFile(value.Str(in))
	if err != nil {
		return false, Errorf("Cannot test if the file %s is a vault.", value.Repr(in))
	}
	return strings.HasPrefix(string(b), "$ANSIBLE_VAULT;"), nil
}

// ---------------------------------------------------------------------------
// Versions.

var versionOps = map[string]string{
	"==": "eq", "=": "eq", "eq": "eq",
	"<": "lt", "lt": "lt",
	"<=": "le", "le": "le",
	">": "gt", "gt": "gt",
	">=": "ge", "ge": "ge",
	"!=": "ne", "<>": "ne", "ne": "ne",
}

const versionOpList = "'==', '=', 'eq', '<', 'lt', '<=', 'le', '>', 'gt', '>=', 'ge', '!=', '<>', 'ne'"

func testVersion(_ *Ctx, in any, a *Args) (bool, error) {
	v, err := py.Sig("version_compare", py.Req("version"), py.Opt("operator", "eq"), py.OptNone("strict"), py.OptNone("version_type")).Bind(a)
	if err != nil {
		return false, err
	}
	if v[2] != nil && v[3] != nil {
		return false, Errorf("Cannot specify both 'strict' and 'version_type'")
	}
	if !value.Truthy(in) {
		return false, Errorf("Input version value cannot be empty")
	}
	if !value.Truthy(v[0]) {
		return false, Errorf("Version parameter to compare against cannot be empty")
	}
	kind := "loose"
	if value.Truthy(v[2]) {
		kind = "strict"
	} else if value.Truthy(v[3]) {
		kind = value.Str(v[3])
		switch kind {
		case "loose", "strict", "semver", "semantic", "pep440":
		default:
			return false, detachedf("Invalid version type (%s). Must be one of 'loose', 'strict', 'semver', 'semantic', 'pep440'", kind)
		}
	}
	op, ok := versionOps[value.Str(v[1])]
	if !ok {
		return false, Errorf("Invalid operator type (%s). Must be one of %s", value.Str(v[1]), versionOpList)
	}
	n, err := py.CompareVersions(kind, value.Str(in), value.Str(v[0]))
	if err != nil {
		return false, detachedf("Version comparison failed: %s", err.Error())
	}
	switch op {
	case "eq":
		return n == 0, nil
	case "ne":
		return n != 0, nil
	case "lt":
		return n < 0, nil
	case "le":
		return n <= 0, nil
	case "gt":
		return n > 0, nil
	}
	return n >= 0, nil
}

// ---------------------------------------------------------------------------
// Sets.

func setTest(fn string, sub bool) TestFunc {
	return func(_ *Ctx, in any, a *Args) (bool, error) {
		v, err := py.Sig(fn, py.Req("b")).Bind(a)
		if err != nil {
			return false, err
		}
		x, err := py.KeySet(in)
		if err != nil {
			return false, err
		}
		y, err := py.KeySet(v[0])
		if err != nil {
			return false, err
		}
		if !sub {
			x, y = y, x
		}
		for k := range x {
			if !y[k] {
				return false, nil
			}
		}
		return true, nil
	}
}

func testContains(_ *Ctx, in any, a *Args) (bool, error) {
	v, err := py.Sig("contains", py.Req("value")).Bind(a)
	if err != nil {
		return false, err
	}
	return py.Contains(in, v[0])
}

func isNaN(v any) bool {
	f, ok := v.(float64)
	return ok && math.IsNaN(f)
}

// ---------------------------------------------------------------------------
// URIs.

func uriTest(fn string) TestFunc {
	return func(_ *Ctx, in any, a *Args) (bool, error) {
		var schemes any
		if fn != "is_urn" {
			v, err := py.Sig(fn, py.OptNone("schemes")).Bind(a)
			if err != nil {
				return false, err
			}
			schemes = v[0]
		} else {
			if _, err := py.Sig(fn).Bind(a); err != nil {
				return false, err
			}
			schemes = []any{"urn"}
		}
		s, ok := in.(string)
		if !ok {
			return false, nil
		}
		u, err := py.URLSplit(s)
		if err != nil {
			return false, nil
		}
		if schemes != nil && value.Truthy(schemes) {
			ok, err := py.Contains(schemes, u.Scheme)
			if err != nil || !ok {
				return false, nil
			}
		}
		if fn == "is_url" {
			return u.Netloc != "" || u.Scheme == "file", nil
		}
		return true, nil
	}
}

// ---------------------------------------------------------------------------
// Paths.

func pathTest(fn string, f func(string) bool) TestFunc {
	return func(_ *Ctx, in any, a *Args) (bool, error) {
		if _, err := py.Sig(fn).Bind(a); err != nil {
			return false, err
		}
		s, ok := in.(string)
		if !ok {
			if fn == "isabs" {
				return false, typeErrorf("expected str, bytes or os.PathLike object, not %s", value.TypeName(in))
			}
			return false, nil
		}
		return f(s), nil
	}
}

func isLink(p string) bool {
	st, err := os.Lstat(p)
	return err == nil && st.Mode()&os.ModeSymlink != 0
}

func isMount(p string) bool {
	st, err := os.Lstat(p)
	if err != nil || st.Mode()&os.ModeSymlink != 0 {
		return false
	}
	parent, err := os.Lstat(filepath.Join(p, ".."))
	if err != nil {
		return false
	}
	s1, ok1 := st.Sys().(*syscall.Stat_t)
	s2, ok2 := parent.Sys().(*syscall.Stat_t)
	if !ok1 || !ok2 {
		return false
	}
	return s1.Dev != s2.Dev || s1.Ino == s2.Ino
}

func testSameFile(_ *Ctx, in any, a *Args) (bool, error) {
	v, err := py.Sig("samefile", py.Req("f2")).Bind(a)
	if err != nil {
		return false, err
	}
	s1, err := os.Stat(value.Str(in))
	if err != nil {
		return false, typeErrorf("[Errno 2] No such file or directory: %s", value.Repr(value.Str(in)))
	}
	s2, err := os.Stat(value.Str(v[0]))
	if err != nil {
		return false, typeErrorf("[Errno 2] No such file or directory: %s", value.Repr(value.Str(v[0])))
	}
	return os.SameFile(s1, s2), nil
}
