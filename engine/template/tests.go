package template

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"

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
		"lower":       simpleTest("test_lower", func(v any) bool { return strPredicate(value.Str(v), "islower") }),
		"upper":       simpleTest("test_upper", func(v any) bool { return strPredicate(value.Str(v), "isupper") }),
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
		if _, err := sigOf(fn).bind(a); err != nil {
			return false, err
		}
		return f(in), nil
	}
}

func testDefined(_ *Ctx, in any, a *Args) (bool, error) {
	if _, err := sigOf("test_defined").bind(a); err != nil {
		return false, err
	}
	_, u := in.(value.Undefined)
	return !u, nil
}

func testUndefined(_ *Ctx, in any, a *Args) (bool, error) {
	if _, err := sigOf("test_undefined").bind(a); err != nil {
		return false, err
	}
	_, u := in.(value.Undefined)
	return u, nil
}

func isSequenceLike(v any) bool {
	switch v.(type) {
	case string, []any, value.Tuple, *value.Dict, *rangeVal:
		return true
	}
	return false
}

func isIterable(v any) bool {
	switch v.(type) {
	case string, []any, value.Tuple, *value.Dict, *rangeVal:
		return true
	}
	return false
}

func testCallable(_ *Ctx, in any, a *Args) (bool, error) {
	if err := oneArg("callable", a); err != nil {
		return false, err
	}
	switch in.(type) {
	case *boundMethod, globalFunc, *macro:
		return true, nil
	}
	return false, nil
}

func testOdd(_ *Ctx, in any, a *Args) (bool, error) {
	if _, err := sigOf("test_odd").bind(a); err != nil {
		return false, err
	}
	r, err := binaryOp("%", in, 2)
	if err != nil {
		return false, err
	}
	return value.Equal(r, 1), nil
}

func testEven(_ *Ctx, in any, a *Args) (bool, error) {
	if _, err := sigOf("test_even").bind(a); err != nil {
		return false, err
	}
	r, err := binaryOp("%", in, 2)
	if err != nil {
		return false, err
	}
	return value.Equal(r, 0), nil
}

func testDivisibleby(_ *Ctx, in any, a *Args) (bool, error) {
	v, err := sigOf("test_divisibleby", req("num")).bind(a)
	if err != nil {
		return false, err
	}
	r, err := binaryOp("%", in, v[0])
	if err != nil {
		return false, err
	}
	return value.Equal(r, 0), nil
}

// testSameas approximates Python's `is`: identical containers, or
// singletons and interned scalars of the same type and value.
func testSameas(_ *Ctx, in any, a *Args) (bool, error) {
	v, err := sigOf("test_sameas", req("other")).bind(a)
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
	v, err := sigOf("test_in", req("seq")).bind(a)
	if err != nil {
		return false, err
	}
	return contains(v[0], in)
}

func testIsFilter(c *Ctx, in any, a *Args) (bool, error) {
	if _, err := sigOf("test_filter").env().bind(a); err != nil {
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
	if _, err := sigOf("test_test").env().bind(a); err != nil {
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
		return compare(op, in, a.Pos[0])
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
		if _, err := sigOf(name).bind(a); err != nil {
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
		v, err := sigOf(fn, opt("pattern", ""), opt("ignorecase", false), opt("multiline", false)).bind(a)
		if err != nil {
			return false, err
		}
		return regexMatch(in, v[0], v[1], v[2], matchType)
	}
}

func testRegex(_ *Ctx, in any, a *Args) (bool, error) {
	v, err := sigOf("regex", opt("pattern", ""), opt("ignorecase", false), opt("multiline", false), opt("match_type", "search")).bind(a)
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
	re, err := compilePyRegex(p, value.Truthy(ignorecase), value.Truthy(multiline))
	if err != nil {
		return false, err
	}
	return re.MatchString(s), nil
}

func testTruthy(_ *Ctx, in any, a *Args) (bool, error) {
	v, err := sigOf("truthy", opt("convert_bool", false)).bind(a)
	if err != nil {
		return false, err
	}
	return truthyConv(in, value.Truthy(v[0])), nil
}

func testFalsy(_ *Ctx, in any, a *Args) (bool, error) {
	v, err := sigOf("falsy", opt("convert_bool", false)).bind(a)
	if err != nil {
		return false, err
	}
	return !truthyConv(in, value.Truthy(v[0])), nil
}

// convertBool is ansible.module_utils.parsing.convert_bool.boolean; ok is
// false where that raises TypeError.
func convertBool(v any) (bool, bool) {
	if b, ok := v.(bool); ok {
		return b, true
	}
	norm := v
	if s, ok := v.(string); ok {
		norm = strings.TrimFunc(strings.ToLower(s), pyIsSpace)
	}
	switch x := norm.(type) {
	case string:
		switch x {
		case "y", "yes", "on", "1", "true", "t":
			return true, true
		case "n", "no", "off", "0", "false", "f":
			return false, true
		}
	case int, float64:
		f, _ := value.AsFloat(x)
		if f == 1 {
			return true, true
		}
		if f == 0 {
			return false, true
		}
	}
	return false, false
}

func truthyConv(v any, conv bool) bool {
	if conv {
		if b, ok := convertBool(v); ok {
			return b
		}
	}
	return value.Truthy(v)
}

func anyAll(fn string, isAny bool) TestFunc {
	return func(_ *Ctx, in any, a *Args) (bool, error) {
		if err := oneArg(fn, a); err != nil {
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
	if _, err := sigOf("vaulted_file").bind(a); err != nil {
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
	v, err := sigOf("version_compare", req("version"), opt("operator", "eq"), optNone("strict"), optNone("version_type")).bind(a)
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
	n, err := versionCmp(kind, value.Str(in), value.Str(v[0]))
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

type verErr string

func (e verErr) Error() string { return string(e) }

func versionCmp(kind, a, b string) (int, error) {
	switch kind {
	case "strict":
		x, err := parseStrictVersion(a)
		if err != nil {
			return 0, err
		}
		y, err := parseStrictVersion(b)
		if err != nil {
			return 0, err
		}
		return cmpStrict(x, y), nil
	case "semver", "semantic":
		x, err := parseSemver(a)
		if err != nil {
			return 0, err
		}
		y, err := parseSemver(b)
		if err != nil {
			return 0, err
		}
		return cmpSemver(x, y), nil
	case "pep440":
		x, err := parsePEP440(a)
		if err != nil {
			return 0, err
		}
		y, err := parsePEP440(b)
		if err != nil {
			return 0, err
		}
		return cmpPEP440(x, y), nil
	}
	x, y := parseLooseVersion(a), parseLooseVersion(b)
	if value.Equal(x, y) {
		return 0, nil
	}
	n, err := value.Compare(x, y)
	if err != nil {
		return 0, err
	}
	return n, nil
}

var looseComponentRe = regexp.MustCompile(`\d+|[a-z]+|\.`)

func parseLooseVersion(s string) []any {
	var parts []string
	last := 0
	for _, m := range looseComponentRe.FindAllStringIndex(s, -1) {
		parts = append(parts, s[last:m[0]], s[m[0]:m[1]])
		last = m[1]
	}
	parts = append(parts, s[last:])
	out := []any{}
	for _, p := range parts {
		if p == "" || p == "." {
			continue
		}
		if n, ok := pyParseInt(p, 10); ok {
			out = append(out, n)
		} else {
			out = append(out, p)
		}
	}
	return out
}

var strictVersionRe = regexp.MustCompile(`^(\d+)\.(\d+)(\.(\d+))?([ab](\d+))?$`)

type strictVersion struct {
	v   [3]int
	pre string
	pn  int
}

func parseStrictVersion(s string) (strictVersion, error) {
	m := strictVersionRe.FindStringSubmatch(s)
	if m == nil {
		return strictVersion{}, verErr("invalid version number '" + s + "'")
	}
	var sv strictVersion
	sv.v[0], _ = strconv.Atoi(m[1])
	sv.v[1], _ = strconv.Atoi(m[2])
	if m[4] != "" {
		sv.v[2], _ = strconv.Atoi(m[4])
	}
	if m[5] != "" {
		sv.pre = m[5][:1]
		sv.pn, _ = strconv.Atoi(m[6])
	}
	return sv, nil
}

func cmpInts(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpStrict(a, b strictVersion) int {
	for i := 0; i < 3; i++ {
		if c := cmpInts(a.v[i], b.v[i]); c != 0 {
			return c
		}
	}
	switch {
	case a.pre == "" && b.pre == "":
		return 0
	case a.pre != "" && b.pre == "":
		return -1
	case a.pre == "" && b.pre != "":
		return 1
	}
	if c := strings.Compare(a.pre, b.pre); c != 0 {
		return c
	}
	return cmpInts(a.pn, b.pn)
}

var semverRe = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`)

type semver struct {
	core [3]int
	pre  []string
}

func parseSemver(s string) (semver, error) {
	m := semverRe.FindStringSubmatch(s)
	if m == nil {
		return semver{}, verErr("invalid semantic version '" + s + "'")
	}
	var v semver
	for i := 0; i < 3; i++ {
		v.core[i], _ = strconv.Atoi(m[i+1])
	}
	if m[4] != "" {
		v.pre = strings.Split(m[4], ".")
	}
	return v, nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func cmpSemver(a, b semver) int {
	for i := 0; i < 3; i++ {
		if c := cmpInts(a.core[i], b.core[i]); c != 0 {
			return c
		}
	}
	switch {
	case len(a.pre) == 0 && len(b.pre) == 0:
		return 0
	case len(a.pre) > 0 && len(b.pre) == 0:
		return -1
	case len(a.pre) == 0:
		return 1
	}
	for i := 0; i < len(a.pre) && i < len(b.pre); i++ {
		x, y := a.pre[i], b.pre[i]
		xn, yn := isDigits(x), isDigits(y)
		switch {
		case xn && yn:
			xi, _ := strconv.Atoi(x)
			yi, _ := strconv.Atoi(y)
			if c := cmpInts(xi, yi); c != 0 {
				return c
			}
		case xn:
			return -1
		case yn:
			return 1
		default:
			if c := strings.Compare(x, y); c != 0 {
				return c
			}
		}
	}
	return cmpInts(len(a.pre), len(b.pre))
}

var pep440Re = regexp.MustCompile(`(?i)^\s*v?(?:(\d+)!)?(\d+(?:\.\d+)*)(?:[-_.]?(a|b|c|rc|alpha|beta|pre|preview)[-_.]?(\d+)?)?(?:-(\d+)|[-_.]?(post|rev|r)[-_.]?(\d+)?)?(?:[-_.]?(dev)[-_.]?(\d+)?)?(?:\+([a-z0-9]+(?:[-_.][a-z0-9]+)*))?\s*$`)

type pep440 struct {
	epoch   int
	release []int
	preK    int // -1 none, 0 a, 1 b, 2 rc
	preN    int
	post    int // -1 none
	dev     int // -1 none
	local   []string
}

func parsePEP440(s string) (pep440, error) {
	m := pep440Re.FindStringSubmatch(s)
	if m == nil {
		return pep440{}, verErr("Invalid version: '" + s + "'")
	}
	v := pep440{preK: -1, post: -1, dev: -1}
	v.epoch, _ = strconv.Atoi(m[1])
	for _, p := range strings.Split(m[2], ".") {
		n, _ := strconv.Atoi(p)
		v.release = append(v.release, n)
	}
	if m[3] != "" {
		switch strings.ToLower(m[3]) {
		case "a", "alpha":
			v.preK = 0
		case "b", "beta":
			v.preK = 1
		default:
			v.preK = 2
		}
		v.preN, _ = strconv.Atoi(m[4])
	}
	if m[5] != "" {
		v.post, _ = strconv.Atoi(m[5])
	} else if m[6] != "" {
		v.post, _ = strconv.Atoi(m[7])
	}
	if m[8] != "" {
		v.dev, _ = strconv.Atoi(m[9])
	}
	if m[10] != "" {
		v.local = strings.FieldsFunc(strings.ToLower(m[10]), func(r rune) bool { return r == '-' || r == '_' || r == '.' })
	}
	return v, nil
}

func cmpPEP440(a, b pep440) int {
	if c := cmpInts(a.epoch, b.epoch); c != 0 {
		return c
	}
	trim := func(r []int) []int {
		for len(r) > 0 && r[len(r)-1] == 0 {
			r = r[:len(r)-1]
		}
		return r
	}
	ra, rb := trim(a.release), trim(b.release)
	for i := 0; i < len(ra) || i < len(rb); i++ {
		var x, y int
		if i < len(ra) {
			x = ra[i]
		}
		if i < len(rb) {
			y = rb[i]
		}
		if c := cmpInts(x, y); c != 0 {
			return c
		}
	}
	// pre-release key: dev-only releases sort before pre-releases.
	preKey := func(v pep440) [2]int {
		switch {
		case v.preK < 0 && v.post < 0 && v.dev >= 0:
			return [2]int{-2, 0}
		case v.preK < 0:
			return [2]int{9, 0}
		}
		return [2]int{v.preK, v.preN}
	}
	pa, pb := preKey(a), preKey(b)
	if c := cmpInts(pa[0], pb[0]); c != 0 {
		return c
	}
	if c := cmpInts(pa[1], pb[1]); c != 0 {
		return c
	}
	if c := cmpInts(a.post, b.post); c != 0 {
		return c
	}
	da, db := a.dev, b.dev
	if da < 0 {
		da = math.MaxInt
	}
	if db < 0 {
		db = math.MaxInt
	}
	if c := cmpInts(da, db); c != 0 {
		return c
	}
	for i := 0; i < len(a.local) && i < len(b.local); i++ {
		x, y := a.local[i], b.local[i]
		xn, yn := isDigits(x), isDigits(y)
		switch {
		case xn && yn:
			xi, _ := strconv.Atoi(x)
			yi, _ := strconv.Atoi(y)
			if c := cmpInts(xi, yi); c != 0 {
				return c
			}
		case xn:
			return 1
		case yn:
			return -1
		default:
			if c := strings.Compare(x, y); c != 0 {
				return c
			}
		}
	}
	return cmpInts(len(a.local), len(b.local))
}

// ---------------------------------------------------------------------------
// Sets.

func setTest(fn string, sub bool) TestFunc {
	return func(_ *Ctx, in any, a *Args) (bool, error) {
		v, err := sigOf(fn, req("b")).bind(a)
		if err != nil {
			return false, err
		}
		x, err := pySet(in)
		if err != nil {
			return false, err
		}
		y, err := pySet(v[0])
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

// pySet returns the hash keys of an iterable's elements.
func pySet(v any) (map[string]bool, error) {
	items, err := iterate(v)
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(items))
	for _, it := range items {
		k, ok := hashKey(it)
		if !ok {
			return nil, typeErrorf("unhashable type: '%s'", value.TypeName(it))
		}
		out[k] = true
	}
	return out, nil
}

func testContains(_ *Ctx, in any, a *Args) (bool, error) {
	v, err := sigOf("contains", req("value")).bind(a)
	if err != nil {
		return false, err
	}
	return contains(in, v[0])
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
			v, err := sigOf(fn, optNone("schemes")).bind(a)
			if err != nil {
				return false, err
			}
			schemes = v[0]
		} else {
			if _, err := sigOf(fn).bind(a); err != nil {
				return false, err
			}
			schemes = []any{"urn"}
		}
		s, ok := in.(string)
		if !ok {
			return false, nil
		}
		u, err := pyURLSplit(s)
		if err != nil {
			return false, nil
		}
		if schemes != nil && value.Truthy(schemes) {
			ok, err := contains(schemes, u.scheme)
			if err != nil || !ok {
				return false, nil
			}
		}
		if fn == "is_url" {
			return u.netloc != "" || u.scheme == "file", nil
		}
		return true, nil
	}
}

// ---------------------------------------------------------------------------
// Paths.

func pathTest(fn string, f func(string) bool) TestFunc {
	return func(_ *Ctx, in any, a *Args) (bool, error) {
		if _, err := sigOf(fn).bind(a); err != nil {
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
	v, err := sigOf("samefile", req("f2")).bind(a)
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
