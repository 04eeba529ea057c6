package template

import (
	"testing"
)

func te(name, msg string) string { return "The test plugin '" + name + "' failed: " + msg }

func TestJinjaTests(t *testing.T) {
	runCases(t, []tcase{
		{"{{ (True is number, True is integer, 1.5 is float, 'a' is string, {} is mapping, 'a' is sequence, {} is sequence, 5 is sequence, 'a' is iterable, 5 is iterable) }}",
			T(true, false, true, true, true, true, true, false, true, false), ""},
		{"{{ (3 is odd, 4 is even, 9 is divisibleby(3), 'abc' is lower, 'ABC' is upper, None is none, True is true, False is false, True is boolean) }}",
			T(true, true, true, true, true, true, true, true, true), ""},
		{"{{ (1 is eq(1.0), 1 is ne(2), 3 is gt(2), 3 is ge(3), 1 is lt(2), 2 is le(1), 2 is in([1,2]), 2 is sameas(2)) }}",
			T(true, true, true, true, true, false, true, true), ""},
		{"{{ (1 is equalto(1), 2 is greaterthan 1, 1 is lessthan 2) }}", T(true, true, true), ""},
		{"{{ ([1, 2, 3] | select('==', 2) | list, [1, 2, 3] | select('!=', 2) | list, [1, 2, 3] | select('>', 2) | list, [1, 2, 3] | select('>=', 2) | list, [1, 2, 3] | select('<', 2) | list, [1, 2, 3] | select('<=', 2) | list) }}",
			T(L(2), L(1, 3), L(3), L(2, 3), L(1), L(1, 2)), ""},
		{"{{ (nope is defined, nope is undefined, 1 is defined) }}", T(false, true, true), ""},
		{"{{ ('abs' is filter, 'nope' is filter, 'odd' is test, 'upper' is callable, 'x'.upper is callable, 'x' is escaped) }}", T(true, false, true, false, true, false), ""},
		{"{{ 3 is divisibleby('a') }}", nil, te("ansible.builtin.divisibleby", "unsupported operand type(s) for %: 'int' and 'str'")},
		{"{{ 1 is odd(2) }}", nil, te("ansible.builtin.odd", "test_odd() takes 1 positional argument but 2 were given")},
		{"{{ 1 is in(1) }}", nil, te("ansible.builtin.in", "argument of type 'int' is not iterable")},
		{"{{ 'abc' is nosuchtest }}", nil, "Syntax error in template: No test named 'nosuchtest'."},
	})
}

func TestAnsibleTests(t *testing.T) {
	runCases(t, []tcase{
		{"{{ ('abc' is match('a'), 'abc' is match('b'), 'abc' is search('b'), 'ABC' is regex('b', ignorecase=true), 'abc' is regex('abc', match_type='fullmatch')) }}",
			T(true, false, true, true, true), ""},
		{"{{ ('a\nb' is search('^b', multiline=true), 'a\nb' is search('^b')) }}", T(true, false), ""},
		{"{{ 'abc' is match(zzz=1) }}", nil, te("ansible.builtin.match", "match() got an unexpected keyword argument 'zzz'")},
		{"{{ ({'failed': true} is failed, {'failed': false} is success, {'changed': true} is changed, {'results': [{'changed': true}]} is changed, {'skipped': true} is skipped, {} is finished, {'unreachable': true} is unreachable) }}",
			T(true, true, true, true, true, true, true), ""},
		{"{{ ({'failed': true} is failure, {} is succeeded, {} is successful, {} is reachable, {'changed': 0} is change, {} is skip, {'started': 0} is started, {'finished': 1} is finished) }}",
			T(true, true, true, true, false, false, false, true), ""},
		{"{{ {'timedout': {'period': 3}} is timedout }}", true, ""},
		{"{{ 'x' is failed }}", nil, te("ansible.builtin.failed", "The 'failed' test expects a dictionary")},
		{"{{ 'x' is changed }}", nil, te("ansible.builtin.changed", "The 'changed' test expects a dictionary")},
		{"{{ ('1.2.3' is version('1.2.0', '>'), '1.10' is version('1.9', 'gt'), '1.0.0-rc.1' is version('1.0.0', 'lt', version_type='semver'), '2.0' is version('2.0.0', '==', strict=true), '1.0a1' is version('1.0', '<', version_type='pep440'), '1.0rc1' is version('1.0b2', '>', version_type='pep440')) }}",
			T(true, true, true, true, true, true), ""},
		{"{{ '1.0' is version_compare('1.0', 'eq') }}", true, ""},
		{"{{ '1.2.a' is version('1.2.1', '<') }}", nil, te("ansible.builtin.version", "Version comparison failed: '<' not supported between instances of 'str' and 'int'")},
		{"{{ 'x.y' is version('1.0', strict=true) }}", nil, te("ansible.builtin.version", "Version comparison failed: invalid version number 'x.y'")},
		{"{{ '1' is version('1', version_type='nope') }}", nil, te("ansible.builtin.version", "Invalid version type (nope). Must be one of 'loose', 'strict', 'semver', 'semantic', 'pep440'")},
		{"{{ '' is version('1') }}", nil, te("ansible.builtin.version", "Input version value cannot be empty")},
		{"{{ 'abc' is version('1', 'zz') }}", nil, te("ansible.builtin.version", "Invalid operator type (zz). Must be one of '==', '=', 'eq', '<', 'lt', '<=', 'le', '>', 'gt', '>=', 'ge', '!=', '<>', 'ne'")},
		{"{{ ([1, 0] is any, [1, 0] is all, [] is all) }}", T(true, false, true), ""},
		{"{{ 5 is any }}", nil, te("ansible.builtin.any", "'int' object is not iterable")},
		{"{{ ('yes' is truthy(convert_bool=true), 'no' is truthy(convert_bool=true), 'no' is truthy, 0 is falsy, 'off' is falsy(convert_bool=True)) }}",
			T(true, false, true, true, true), ""},
		{"{{ 1 is truthy(zzz=1) }}", nil, te("ansible.builtin.truthy", "truthy() got an unexpected keyword argument 'zzz'")},
		{"{{ ([1,2] is subset([1,2,3]), [1,2,3] is superset([2]), [1,2] is contains(2), 'abc' is contains('b')) }}", T(true, true, true, true), ""},
		{"{{ [[1]] is subset([1]) }}", nil, te("ansible.builtin.subset", "unhashable type: 'list'")},
		{"{{ ('/tmp' is directory, '/tmp' is exists, '/etc/passwd' is file, '/tmp' is abs, 'tmp' is abs, '/nonexistent' is exists, '/tmp' is link, '/' is mount) }}",
			T(true, true, true, true, false, false, false, true), ""},
		{"{{ '/' is same_file('/') }}", true, ""},
		{"{{ 5 is abs }}", nil, te("ansible.builtin.abs", "expected str, bytes or os.PathLike object, not int")},
		{"{{ ('http://x.com/a' is url, 'foo' is url, 'urn:isbn:1' is urn, 'foo' is uri, 'ftp://x' is uri(['http'])) }}", T(true, false, true, true, false), ""},
		{"{{ ('x' is vault_encrypted, 1.5 is nan) }}", T(false, false), ""},
		{"{{ ('10.0.0.1' is ansible.utils.ipv4, '10.0.0.1' is ansible.utils.ipv6, 'fe80::1' is ansible.utils.ip, 'x' is ansible.utils.ip, '10.0.0.0/8' is ansible.utils.ip_address) }}",
			T(true, false, true, false, false), ""},
	})
}
