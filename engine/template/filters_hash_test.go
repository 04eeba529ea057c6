package template

import "testing"

func TestHashFilters(t *testing.T) {
	runCases(t, []tcase{
		// hashes
		{"{{ 'hello' | hash }}", "aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d", ""},
		{"{{ 'hello' | hash('md5') }}", "5d41402abc4b2a76b9719d911017c592", ""},
		{"{{ 'hello' | hash('sha256') }}", "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824", ""},
		{"{{ 'hello' | checksum }}", "aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d", ""},
		{"{{ 'hello' | md5 }}", "5d41402abc4b2a76b9719d911017c592", ""},
		{"{{ 'hello' | sha1 }}", "aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d", ""},
		{"{{ 123 | hash('md5') }}", "202cb962ac59075b964b07152d234b70", ""},
		{"{{ 1 | hash('nope') }}", nil, fe("ansible.builtin.hash", "unsupported hash type nope")},
	})
}
