package template

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/jmespath-community/go-jmespath/pkg/parsing"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// filterJSONQuery is community.general.json_query: a JMESPath query over
// the input. The expression is parsed by go-jmespath (jmespath-community's
// parser, whose AST is public); it is evaluated here, over cfzt-runner's
// own values, as Python's jmespath 1.0 evaluates it: dicts keep their
// order, ints stay ints, and 0 is truthy.
func filterJSONQuery(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("json_query", py.Req("expr")).Bind(a)
	if err != nil {
		return nil, err
	}
	expr, ok := v[0].(string)
	if !ok {
		return nil, Detachedf("Error in jmespath.search in json_query filter plugin:\nexpected a string, got %s", value.TypeName(v[0]))
	}
	q := &jmesQuery{}
	src, err := q.literals(expr)
	if err != nil {
		return nil, Detachedf("JMESPathError in json_query filter plugin:\n%s", err)
	}
	node, err := parsing.NewParser().Parse(src)
	if err != nil {
		return nil, Detachedf("JMESPathError in json_query filter plugin:\n%s", err)
	}
	out, err := q.eval(node, plainData(in))
	if err != nil {
		var pe *jmesPyError
		if errors.As(err, &pe) {
			// Python's own exception, not jmespath's: the filter's
			// other branch.
			return nil, Detachedf("Error in jmespath.search in json_query filter plugin:\n%s", pe.msg)
		}
		return nil, Detachedf("JMESPathError in json_query filter plugin:\n%s", err)
	}
	return out, nil
}

// jmesQuery is one evaluation: the expression's JSON literals, decoded as
// Python's jmespath decodes them.
type jmesQuery struct{ lits []any }

// jmesPyError is a Python exception (TypeError) raised while jmespath
// evaluates, which json_query reports apart from jmespath's own errors.
type jmesPyError struct{ msg string }

func (e *jmesPyError) Error() string { return e.msg }

// jmesLiteralMark starts the placeholder that stands for a JSON literal
// of the expression in what the parser sees.
const jmesLiteralMark = "\x00cfzt-literal-"

// literals replaces each `JSON` literal of expr by a placeholder string
// literal and decodes it as Python's jmespath lexer does: with Python's
// json.loads (ints stay ints, dicts keep their order), and, where that
// fails, as the JSON string of its text (the legacy unquoted literal,
// `foo`). Raw strings and quoted identifiers are copied as they are.
func (q *jmesQuery) literals(expr string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(expr); i++ {
		c := expr[i]
		switch c {
		case '\'', '"':
			j := i + 1
			for j < len(expr) && expr[j] != c {
				if expr[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(expr) {
				j = len(expr) - 1
			}
			b.WriteString(expr[i : j+1])
			i = j
		case '`':
			j := i + 1
			for j < len(expr) && expr[j] != '`' {
				if expr[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(expr) {
				return "", fmt.Errorf("Bad jmespath expression: Unclosed ` delimiter:\n%s\n%s^", expr, strings.Repeat(" ", i))
			}
			lexeme := strings.ReplaceAll(expr[i+1:j], "\\`", "`")
			v, err := py.JSONLoads(lexeme)
			if err != nil {
				v, err = py.JSONLoads(`"` + strings.TrimLeft(lexeme, " \t\n\r\f\v") + `"`)
				if err != nil {
					return "", fmt.Errorf("Bad jmespath expression: Bad token %s:\n%s\n%s^", lexeme, expr, strings.Repeat(" ", i))
				}
			}
			b.WriteString("`\"" + "\\u0000cfzt-literal-" + strconv.Itoa(len(q.lits)) + "\"`")
			q.lits = append(q.lits, v)
			i = j
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// plainData removes the trust and unsafe wrappers of data: the query sees
// the values they hold.
func plainData(v any) any {
	switch x := v.(type) {
	case value.Untrusted:
		return plainData(x.V)
	case value.Unsafe:
		return string(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = plainData(e)
		}
		return out
	case value.Tuple:
		return plainData([]any(x))
	case *value.Dict:
		d := value.NewDict(x.Len())
		x.Each(func(k string, e any) bool {
			d.Set(k, plainData(e))
			return true
		})
		return d
	}
	return v
}

// jmesFalse is jmespath's notion of false: an empty string, list or
// dict, None and False (not 0).
func jmesFalse(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case bool:
		return !x
	case string:
		return x == ""
	case []any:
		return len(x) == 0
	case *value.Dict:
		return x.Len() == 0
	}
	return false
}

func isNumber(v any) bool {
	switch v.(type) {
	case int, int64, float64:
		return true
	}
	return false
}

func toFloat(v any) float64 {
	switch x := v.(type) {
	case int:
		return float64(x)
	case int64:
		return float64(x)
	case float64:
		return x
	}
	return math.NaN()
}

// jmesEqual is Python's == as jmespath uses it: a bool never equals a
// number.
func jmesEqual(a, b any) bool {
	_, ab := a.(bool)
	_, bb := b.(bool)
	if ab != bb && (isNumber(a) || isNumber(b)) {
		return false
	}
	return value.Equal(a, b)
}

// literal converts a JSON literal of the expression to a value: integral
// numbers are ints, as Python's json.loads reads `1`.
func literal(v any) any {
	switch x := v.(type) {
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int(x)
		}
		return x
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = literal(e)
		}
		return out
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		d := value.NewDict(len(x))
		for _, k := range keys {
			d.Set(k, literal(x[k]))
		}
		return d
	}
	return v
}

// expRef is an &expression argument.
type expRef struct{ node parsing.ASTNode }

func (q *jmesQuery) eval(n parsing.ASTNode, cur any) (any, error) {
	switch n.NodeType {
	case parsing.ASTIdentity, parsing.ASTCurrentNode:
		return cur, nil
	case parsing.ASTLiteral:
		if str, ok := n.Value.(string); ok && strings.HasPrefix(str, jmesLiteralMark) {
			i, _ := strconv.Atoi(str[len(jmesLiteralMark):])
			return q.lits[i], nil
		}
		return literal(n.Value), nil
	case parsing.ASTField:
		if d, ok := cur.(*value.Dict); ok {
			v, _ := d.Get(n.Value.(string))
			return v, nil
		}
		return nil, nil
	case parsing.ASTSubexpression, parsing.ASTIndexExpression:
		left, err := q.eval(n.Children[0], cur)
		if err != nil {
			return nil, err
		}
		return q.eval(n.Children[1], left)
	case parsing.ASTPipe:
		left, err := q.eval(n.Children[0], cur)
		if err != nil {
			return nil, err
		}
		return q.eval(n.Children[1], left)
	case parsing.ASTIndex:
		l, ok := cur.([]any)
		if !ok {
			return nil, nil
		}
		i := n.Value.(int)
		if i < 0 {
			i += len(l)
		}
		if i < 0 || i >= len(l) {
			return nil, nil
		}
		return l[i], nil
	case parsing.ASTSlice:
		l, ok := cur.([]any)
		if !ok {
			return nil, nil
		}
		return jmesSlice(l, n.Value.([]*int))
	case parsing.ASTFlatten:
		l, ok, err := q.evalList(n.Children[0], cur)
		if !ok || err != nil {
			return nil, err
		}
		out := []any{}
		for _, e := range l {
			if sub, ok := e.([]any); ok {
				out = append(out, sub...)
			} else {
				out = append(out, e)
			}
		}
		return out, nil
	case parsing.ASTProjection, parsing.ASTValueProjection:
		left, err := q.eval(n.Children[0], cur)
		if err != nil {
			return nil, err
		}
		var items []any
		if n.NodeType == parsing.ASTValueProjection {
			d, ok := left.(*value.Dict)
			if !ok {
				return nil, nil
			}
			d.Each(func(_ string, v any) bool {
				items = append(items, v)
				return true
			})
		} else {
			l, ok := left.([]any)
			if !ok {
				return nil, nil
			}
			items = l
		}
		return q.project(items, n.Children[1], nil)
	case parsing.ASTFilterProjection:
		l, ok, err := q.evalList(n.Children[0], cur)
		if !ok || err != nil {
			return nil, err
		}
		cond := n.Children[2]
		return q.project(l, n.Children[1], &cond)
	case parsing.ASTComparator:
		left, err := q.eval(n.Children[0], cur)
		if err != nil {
			return nil, err
		}
		right, err := q.eval(n.Children[1], cur)
		if err != nil {
			return nil, err
		}
		switch n.Value {
		case parsing.TOKEQ:
			return jmesEqual(left, right), nil
		case parsing.TOKNE:
			return !jmesEqual(left, right), nil
		}
		// Ordering compares numbers, and strings too (Python's jmespath
		// 1.0 _is_comparable); anything else is None, and a string
		// against a number is Python's TypeError.
		ls, lstr := left.(string)
		rs, rstr := right.(string)
		if !(isNumber(left) || lstr) || !(isNumber(right) || rstr) {
			return nil, nil
		}
		op := map[any]string{parsing.TOKGT: ">", parsing.TOKGTE: ">=", parsing.TOKLT: "<", parsing.TOKLTE: "<="}[n.Value]
		if lstr != rstr {
			return nil, &jmesPyError{fmt.Sprintf("'%s' not supported between instances of '%s' and '%s'", op, pyTypeName(left), pyTypeName(right))}
		}
		cmp := 0
		if lstr {
			cmp = strings.Compare(ls, rs)
		} else if l, r := toFloat(left), toFloat(right); l < r {
			cmp = -1
		} else if l > r {
			cmp = 1
		}
		switch op {
		case ">":
			return cmp > 0, nil
		case ">=":
			return cmp >= 0, nil
		case "<":
			return cmp < 0, nil
		case "<=":
			return cmp <= 0, nil
		}
		return nil, fmt.Errorf("unknown comparator %v", n.Value)
	case parsing.ASTOrExpression, parsing.ASTAndExpression:
		left, err := q.eval(n.Children[0], cur)
		if err != nil {
			return nil, err
		}
		if jmesFalse(left) == (n.NodeType == parsing.ASTAndExpression) {
			return left, nil
		}
		return q.eval(n.Children[1], cur)
	case parsing.ASTNotExpression:
		v, err := q.eval(n.Children[0], cur)
		if err != nil {
			return nil, err
		}
		return jmesFalse(v), nil
	case parsing.ASTMultiSelectList:
		if cur == nil {
			return nil, nil
		}
		out := make([]any, 0, len(n.Children))
		for _, c := range n.Children {
			v, err := q.eval(c, cur)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case parsing.ASTMultiSelectHash:
		if cur == nil {
			return nil, nil
		}
		d := value.NewDict(len(n.Children))
		for _, c := range n.Children {
			v, err := q.eval(c.Children[0], cur)
			if err != nil {
				return nil, err
			}
			d.Set(c.Value.(string), v)
		}
		return d, nil
	case parsing.ASTKeyValPair:
		return q.eval(n.Children[0], cur)
	case parsing.ASTExpRef:
		return expRef{n.Children[0]}, nil
	case parsing.ASTFunctionExpression:
		args := make([]any, 0, len(n.Children))
		for _, c := range n.Children {
			v, err := q.eval(c, cur)
			if err != nil {
				return nil, err
			}
			args = append(args, v)
		}
		return q.call(n.Value.(string), args)
	}
	return nil, fmt.Errorf("unsupported JMESPath expression (a JMESPath extension Python's jmespath 1.0 does not have)")
}

// project applies right to each item (that passes cond), keeping the
// results that are not None.
func (q *jmesQuery) project(items []any, right parsing.ASTNode, cond *parsing.ASTNode) (any, error) {
	out := []any{}
	for _, e := range items {
		if cond != nil {
			ok, err := q.eval(*cond, e)
			if err != nil {
				return nil, err
			}
			if jmesFalse(ok) {
				continue
			}
		}
		v, err := q.eval(right, e)
		if err != nil {
			return nil, err
		}
		if v != nil {
			out = append(out, v)
		}
	}
	return out, nil
}

func jmesSlice(l []any, parts []*int) (any, error) {
	step := 1
	if parts[2] != nil {
		step = *parts[2]
		if step == 0 {
			return nil, fmt.Errorf("Invalid slice, step cannot be 0")
		}
	}
	n := len(l)
	bound := func(p *int, def int) int {
		if p == nil {
			return def
		}
		i := *p
		if i < 0 {
			i += n
			if i < 0 {
				if step < 0 {
					return -1
				}
				return 0
			}
		} else if i >= n {
			if step < 0 {
				return n - 1
			}
			return n
		}
		return i
	}
	var start, stop int
	if step > 0 {
		start, stop = bound(parts[0], 0), bound(parts[1], n)
	} else {
		start, stop = bound(parts[0], n-1), bound(parts[1], -1)
	}
	out := []any{}
	for i := start; (step > 0 && i < stop) || (step < 0 && i > stop); i += step {
		out = append(out, l[i])
	}
	return out, nil
}

// jmesType is a value's JMESPath type name.
func jmesType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case int, int64, float64:
		return "number"
	case []any:
		return "array"
	case *value.Dict:
		return "object"
	case expRef:
		return "expref"
	}
	return "unknown"
}

// pyTypeName is the Python type name jmespath's type errors show.
func pyTypeName(v any) string {
	switch v.(type) {
	case nil:
		return "None"
	case int, int64:
		return "int"
	case float64:
		return "float"
	case expRef:
		return "expref"
	}
	return value.TypeName(v)
}

func jmesTypeError(fn string, v any, expected ...string) error {
	quoted := make([]string, len(expected))
	for i, e := range expected {
		quoted[i] = "'" + e + "'"
	}
	return fmt.Errorf("In function %s(), invalid type for value: %s, expected one of: [%s], received: \"%s\"",
		fn, value.Str(v), strings.Join(quoted, ", "), jmesType(v))
}

// arrayTypeError is the error for an array argument of the wrong element
// types: jmespath names the first element whose type differs from the
// first one's (or the array itself, when that is not a number or string),
// by its Python type name.
func arrayTypeError(fn string, v any, expected ...string) error {
	l, ok := v.([]any)
	if !ok || len(l) == 0 {
		return jmesTypeError(fn, v, expected...)
	}
	first := jmesType(l[0])
	quoted := make([]string, len(expected))
	for i, e := range expected {
		quoted[i] = "'" + e + "'"
	}
	bad := l[0]
	if len(expected) == 1 {
		// One element type allowed: the first element of another type.
		want := strings.TrimPrefix(expected[0], "array-")
		for _, e := range l {
			if jmesType(e) != want {
				bad = e
				break
			}
		}
	} else if first == "number" || first == "string" {
		for _, e := range l[1:] {
			if jmesType(e) != first {
				bad = e
				break
			}
		}
	}
	return fmt.Errorf("In function %s(), invalid type for value: %s, expected one of: [%s], received: \"%s\"",
		fn, value.Str(bad), strings.Join(quoted, ", "), pyTypeName(bad))
}

// jmesFuncs are the JMESPath 1.0 built-in functions: arity and argument
// types ("" accepts any).
var jmesFuncs = map[string]struct {
	arity    int
	variadic bool
}{
	"abs": {1, false}, "avg": {1, false}, "ceil": {1, false}, "contains": {2, false}, "ends_with": {2, false},
	"floor": {1, false}, "join": {2, false}, "keys": {1, false}, "length": {1, false}, "map": {2, false},
	"max": {1, false}, "max_by": {2, false}, "merge": {1, true}, "min": {1, false}, "min_by": {2, false},
	"not_null": {1, true}, "reverse": {1, false}, "sort": {1, false}, "sort_by": {2, false},
	"starts_with": {2, false}, "sum": {1, false}, "to_array": {1, false}, "to_number": {1, false},
	"to_string": {1, false}, "type": {1, false}, "values": {1, false},
}

func (q *jmesQuery) call(name string, args []any) (any, error) {
	spec, ok := jmesFuncs[name]
	if !ok {
		return nil, fmt.Errorf("Unknown function: %s()", name)
	}
	if spec.variadic && len(args) < spec.arity || !spec.variadic && len(args) != spec.arity {
		plural := "s"
		if spec.arity == 1 {
			plural = ""
		}
		if spec.variadic {
			return nil, fmt.Errorf("Expected at least %d argument%s for function %s(), received %d", spec.arity, plural, name, len(args))
		}
		return nil, fmt.Errorf("Expected %d argument%s for function %s(), received %d", spec.arity, plural, name, len(args))
	}
	arg := args[0]
	switch name {
	case "abs", "ceil", "floor":
		if !isNumber(arg) {
			return nil, jmesTypeError(name, arg, "number")
		}
		switch x := arg.(type) {
		case int:
			if name == "abs" && x < 0 {
				return -x, nil
			}
			return x, nil
		case float64:
			switch name {
			case "abs":
				return math.Abs(x), nil
			case "ceil":
				return int(math.Ceil(x)), nil
			}
			return int(math.Floor(x)), nil
		}
		return arg, nil
	case "avg", "sum":
		l, ok := arg.([]any)
		if !ok || !allOf(l, "number") {
			return nil, arrayTypeError(name, arg, "array-number")
		}
		if name == "avg" && len(l) == 0 {
			return nil, nil
		}
		var isum int
		var fsum float64
		floats := false
		for _, e := range l {
			if f, ok := e.(float64); ok {
				floats = true
				fsum += f
			} else {
				isum += e.(int)
			}
		}
		if name == "sum" {
			if floats {
				return fsum + float64(isum), nil
			}
			return isum, nil
		}
		return (fsum + float64(isum)) / float64(len(l)), nil
	case "contains":
		switch x := arg.(type) {
		case string:
			s, ok := args[1].(string)
			if !ok {
				return nil, &jmesPyError{fmt.Sprintf("'in <string>' requires string as left operand, not %s", pyTypeName(args[1]))}
			}
			return strings.Contains(x, s), nil
		case []any:
			for _, e := range x {
				if jmesEqual(e, args[1]) {
					return true, nil
				}
			}
			return false, nil
		}
		return nil, jmesTypeError(name, arg, "array", "string")
	case "starts_with", "ends_with":
		s, ok := arg.(string)
		if !ok {
			return nil, jmesTypeError(name, arg, "string")
		}
		p, ok := args[1].(string)
		if !ok {
			return nil, jmesTypeError(name, args[1], "string")
		}
		if name == "starts_with" {
			return strings.HasPrefix(s, p), nil
		}
		return strings.HasSuffix(s, p), nil
	case "join":
		sep, ok := arg.(string)
		if !ok {
			return nil, jmesTypeError(name, arg, "string")
		}
		l, ok := args[1].([]any)
		if !ok || !allOf(l, "string") {
			return nil, arrayTypeError(name, args[1], "array-string")
		}
		parts := make([]string, len(l))
		for i, e := range l {
			parts[i] = e.(string)
		}
		return strings.Join(parts, sep), nil
	case "keys", "values":
		d, ok := arg.(*value.Dict)
		if !ok {
			return nil, jmesTypeError(name, arg, "object")
		}
		out := make([]any, 0, d.Len())
		d.Each(func(k string, v any) bool {
			if name == "keys" {
				out = append(out, k)
			} else {
				out = append(out, v)
			}
			return true
		})
		return out, nil
	case "length":
		switch x := arg.(type) {
		case string:
			return len([]rune(x)), nil
		case []any:
			return len(x), nil
		case *value.Dict:
			return x.Len(), nil
		}
		return nil, jmesTypeError(name, arg, "string", "array", "object")
	case "map":
		ref, ok := arg.(expRef)
		if !ok {
			return nil, jmesTypeError(name, arg, "expref")
		}
		l, ok := args[1].([]any)
		if !ok {
			return nil, jmesTypeError(name, args[1], "array")
		}
		out := make([]any, 0, len(l))
		for _, e := range l {
			v, err := q.eval(ref.node, e)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case "max", "min":
		l, ok := arg.([]any)
		if !ok || !(allOf(l, "number") || allOf(l, "string")) {
			return nil, arrayTypeError(name, arg, "array-number", "array-string")
		}
		if len(l) == 0 {
			return nil, nil
		}
		best := l[0]
		for _, e := range l[1:] {
			if less(e, best) == (name == "min") && !jmesEqual(e, best) {
				best = e
			}
		}
		return best, nil
	case "max_by", "min_by", "sort_by":
		l, ok := arg.([]any)
		if !ok {
			return nil, jmesTypeError(name, arg, "array")
		}
		ref, ok := args[1].(expRef)
		if !ok {
			return nil, jmesTypeError(name, args[1], "expref")
		}
		keys := make([]any, len(l))
		kind := ""
		for i, e := range l {
			k, err := q.eval(ref.node, e)
			if err != nil {
				return nil, err
			}
			t := jmesType(k)
			if t != "number" && t != "string" || kind != "" && t != kind {
				expected := []string{"number", "string"}
				if kind != "" {
					expected = []string{kind}
				}
				return nil, jmesTypeError(name, k, expected...)
			}
			kind, keys[i] = t, k
		}
		if len(l) == 0 {
			if name == "sort_by" {
				return []any{}, nil
			}
			return nil, nil
		}
		if name == "sort_by" {
			idx := make([]int, len(l))
			for i := range idx {
				idx[i] = i
			}
			sort.SliceStable(idx, func(a, b int) bool { return less(keys[idx[a]], keys[idx[b]]) })
			out := make([]any, len(l))
			for i, j := range idx {
				out[i] = l[j]
			}
			return out, nil
		}
		best := 0
		for i := 1; i < len(l); i++ {
			if name == "min_by" && less(keys[i], keys[best]) || name == "max_by" && less(keys[best], keys[i]) {
				best = i
			}
		}
		return l[best], nil
	case "merge":
		d := value.NewDict(0)
		for _, a := range args {
			m, ok := a.(*value.Dict)
			if !ok {
				return nil, jmesTypeError(name, a, "object")
			}
			m.Each(func(k string, v any) bool {
				d.Set(k, v)
				return true
			})
		}
		return d, nil
	case "not_null":
		for _, a := range args {
			if a != nil {
				return a, nil
			}
		}
		return nil, nil
	case "reverse":
		switch x := arg.(type) {
		case string:
			r := []rune(x)
			for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
				r[i], r[j] = r[j], r[i]
			}
			return string(r), nil
		case []any:
			out := make([]any, len(x))
			for i, e := range x {
				out[len(x)-1-i] = e
			}
			return out, nil
		}
		return nil, jmesTypeError(name, arg, "string", "array")
	case "sort":
		l, ok := arg.([]any)
		if !ok || !(allOf(l, "number") || allOf(l, "string")) {
			return nil, arrayTypeError(name, arg, "array-string", "array-number")
		}
		out := append([]any(nil), l...)
		sort.SliceStable(out, func(a, b int) bool { return less(out[a], out[b]) })
		return out, nil
	case "to_array":
		if l, ok := arg.([]any); ok {
			return l, nil
		}
		return []any{arg}, nil
	case "to_number":
		switch x := arg.(type) {
		case int, float64:
			return x, nil
		case string:
			// Python's int(), then float(), of the string.
			if n, ok := py.ParseInt(x, 10); ok {
				return n, nil
			}
			if f, ok := py.ParseFloat(x); ok {
				return f, nil
			}
		}
		return nil, nil
	case "to_string":
		if s, ok := arg.(string); ok {
			return s, nil
		}
		return py.JSONDumps(arg, py.JSONDumpOptions{ItemSep: ",", KeySep: ":", SepsSet: true, EnsureASCII: true, AllowNaN: true})
	case "type":
		return jmesType(arg), nil
	}
	return nil, fmt.Errorf("Unknown function: %s()", name)
}

// allOf reports whether every element of l has the JMESPath type kind.
func allOf(l []any, kind string) bool {
	for _, e := range l {
		if jmesType(e) != kind {
			return false
		}
	}
	return true
}

// less orders two numbers or two strings (by code point, as Python).
func less(a, b any) bool {
	if sa, ok := a.(string); ok {
		sb, _ := b.(string)
		return sa < sb
	}
	return toFloat(a) < toFloat(b)
}

// evalList evaluates node against cur; ok is false when the result is not
// a list (a projection or flatten of anything else is null).
func (q *jmesQuery) evalList(node parsing.ASTNode, cur any) (l []any, ok bool, err error) {
	v, err := q.eval(node, cur)
	if err != nil {
		return nil, false, err
	}
	l, ok = v.([]any)
	return l, ok, nil
}
