package template

import "testing"

func TestCommunityFilters(t *testing.T) {
	runCases(t, []tcase{
		// community.general
		{"{{ [['a',1],['b',2]] | community.general.dict }}", D("a", 1, "b", 2), ""},
		{"{{ 'a' | community.general.dict }}", nil, fe("community.general.dict", "dictionary update sequence element #0 has length 1; 2 is required")},
		{"{{ 5 | community.general.dict_kv('x') }}", D("x", 5), ""},
		{"{{ l1 | community.general.lists_mergeby(l2, 'name') }}", L(D("name", "a", "x", 1), D("name", "b", "x", 2, "y", 3), D("name", "c", "y", 4)), ""},
		{"{{ 'x' | community.general.lists_mergeby(zzz=1) }}", nil, fe("community.general.lists_mergeby", "'recursive' and 'list_merge' are the only valid keyword arguments.")},
		{"{{ [dict(ab=1, b=2, ca=3)] | community.general.keep_keys(target=['a', 'c'], matching_parameter='starts_with') }}", L(D("ab", 1, "ca", 3)), ""},
		{"{{ [dict(ab=1, b=2)] | community.general.keep_keys(target='b', matching_parameter='regex') }}", L(D("b", 2)), ""},
		{"{{ [dict(a=1)] | community.general.keep_keys(target=[]) }}", nil, fe("community.general.keep_keys", "The target can't be empty.")},
	})
}

// TestJSONQuery: community.general.json_query as Python's jmespath 1.0
// evaluates it (the goldens jq-* hold the oracle's answers).
func TestJSONQuery(t *testing.T) {
	const jq = "community.general.json_query"
	data := `{"s": [{"n": "b", "p": 2, "w": 0}, {"n": "a", "p": 9.5}], "o": {"z": 1, "a": 2}}`
	q := func(expr string) string { return "{{ '" + data + "' | from_json | json_query(\"" + expr + "\") }}" }
	runCases(t, []tcase{
		{q("s[*].n"), L("b", "a"), ""},
		{q("s[?w].n"), L("b"), ""}, // 0 is truthy
		{q("s[?!w].n"), L("a"), ""},
		{q("s[?p > `2`].n"), L("a"), ""},
		{q("s[?n >= 'b'].n"), L("b"), ""},
		{q("keys(o)"), L("z", "a"), ""},
		{q("o.*"), L(1, 2), ""},
		{q("s[0].{p: p, n: n}"), D("p", 2, "n", "b"), ""},
		{q("sum(s[].p)"), 11.5, ""},
		{q("length(s)"), 2, ""},
		{q("`{'y': 1}`"), "{'y': 1}", ""}, // not JSON: the legacy string literal
		{q("o || `[1, 2"), nil, fe(jq, "JMESPathError in json_query filter plugin:\nBad jmespath expression: Unclosed ` delimiter:\no || `[1, 2\n     ^")},
		{q("`legacy`"), "legacy", ""},
		{q("`true` == `1`"), false, ""},
		{q("missing.deeper[0]"), nil, ""},
		{q("sort_by(s, &n)[0].n"), "a", ""},
		{q("to_number(' 7 ')"), 7, ""},
		{q("[`1.0`, `2`, `[3, 4.5]`]"), L(1.0, 2, L(3, 4.5)), ""},
		{q("nope(s)"), nil, fe(jq, "JMESPathError in json_query filter plugin:\nUnknown function: nope()")},
		{q("abs(o)"), nil, fe(jq, "JMESPathError in json_query filter plugin:\nIn function abs(), invalid type for value: {'z': 1, 'a': 2}, expected one of: ['number'], received: \"object\"")},
		{q("s[0].n < `1`"), nil, fe(jq, "Error in jmespath.search in json_query filter plugin:\n'<' not supported between instances of 'str' and 'int'")},
	})
}
