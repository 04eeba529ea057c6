package template

import (
	"math"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// ansibleTests returns ansible-core's tests on strings, versions, truth, sets and URIs.
func ansibleTests() Library {
	return Library{Collection: "ansible.builtin", Tests: map[string]TestFunc{
		"abs":        testAbs,
		"all":        anyAll("all", false),
		"any":        anyAll("any", true),
		"contains":   testContains,
		"falsy":      testFalsy,
		"is_abs":     testAbs,
		"isnan":      simpleTest("isnotanumber", isNaN),
		"issubset":   setTest("issubset", true),
		"issuperset": setTest("issuperset", false),
		"match":      regexTest("match", "match"),
		"nan":        simpleTest("isnotanumber", isNaN),
		"regex":      testRegex,
		"search":     regexTest("search", "search"),
		"subset":     setTest("issubset", true),
		"superset":   setTest("issuperset", false),
		"truthy":     testTruthy,
		"uri":        uriTest("is_uri"),
		"url":        uriTest("is_url"),
		"urn":        uriTest("is_urn"),
		"vault_encrypted": simpleTest("vault_encrypted", func(v any) bool {
			s, ok := v.(string)
			return ok && strings.HasPrefix(s, "$ANSIBLE_VAULT;")
		}),
		"version":         testVersion,
		"version_compare": testVersion,
	}}
}

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
		return false, TypeErrorf("'str' object is not callable")
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
		return false, TypeErrorf("first argument must be string or compiled pattern")
	}
	// The pattern's leading global flags ((?ai)) stay in front.
	lead := leadingFlagGroup.FindString(p)
	switch matchType {
	case "match":
		p = lead + `\A(?:` + p[len(lead):] + `)`
	case "fullmatch":
		p = lead + `\A(?:` + p[len(lead):] + `)\z`
	}
	re, err := py.CompileRegex(p, value.Truthy(ignorecase), value.Truthy(multiline))
	if err != nil {
		return false, err
	}
	return re.MatchString(s)
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
		items, err := Iterate(in)
		if err != nil {
			return false, err
		}
		for _, it := range items {
			if u, ok := it.(value.Undefined); ok {
				return false, UndefinedErr(u)
			}
			if value.Truthy(it) == isAny {
				return isAny, nil
			}
		}
		return !isAny, nil
	}
}

// testAbs is abs (os.path.isabs), which reads no file.
func testAbs(_ *Ctx, in any, a *Args) (bool, error) {
	if _, err := py.Sig("isabs").Bind(a); err != nil {
		return false, err
	}
	s, ok := in.(string)
	if !ok {
		return false, TypeErrorf("expected str, bytes or os.PathLike object, not %s", value.TypeName(in))
	}
	return filepath.IsAbs(s), nil
}

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
			return false, Detachedf("Invalid version type (%s). Must be one of 'loose', 'strict', 'semver', 'semantic', 'pep440'", kind)
		}
	}
	op, ok := versionOps[value.Str(v[1])]
	if !ok {
		return false, Errorf("Invalid operator type (%s). Must be one of %s", value.Str(v[1]), versionOpList)
	}
	n, err := py.CompareVersions(kind, value.Str(in), value.Str(v[0]))
	if err != nil {
		return false, Detachedf("Version comparison failed: %s", err.Error())
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

// leadingFlagGroup is a pattern's leading inline flag group, (?aimsx).
var leadingFlagGroup = regexp.MustCompile(`^\(\?[aiLmsux]+\)`)
