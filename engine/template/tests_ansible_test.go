package template

import "testing"

func TestAnsibleTests(t *testing.T) {
	runCases(t, []tcase{
		{"{{ ('abc' is match('a'), 'abc' is match('b'), 'abc' is search('b'), 'ABC' is regex('b', ignorecase=true), 'abc' is regex('abc', match_type='fullmatch')) }}",
			T(true, false, true, true, true), ""},
		{"{{ ('a\nb' is search('^b', multiline=true), 'a\nb' is search('^b')) }}", T(true, false), ""},
		{"{{ 'abc' is match(zzz=1) }}", nil, te("ansible.builtin.match", "match() got an unexpected keyword argument 'zzz'")},
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
		{"{{ ('http://x.com/a' is url, 'foo' is url, 'urn:isbn:1' is urn, 'foo' is uri, 'ftp://x' is uri(['http'])) }}", T(true, false, true, true, false), ""},
		{"{{ ('x' is vault_encrypted, 1.5 is nan) }}", T(false, false), ""},
	})
}
