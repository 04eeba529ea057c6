package template

import "testing"

func TestResultTests(t *testing.T) {
	runCases(t, []tcase{
		{"{{ ({'failed': true} is failed, {'failed': false} is success, {'changed': true} is changed, {'results': [{'changed': true}]} is changed, {'skipped': true} is skipped, {} is finished, {'unreachable': true} is unreachable) }}",
			T(true, true, true, true, true, true, true), ""},
		{"{{ ({'failed': true} is failure, {} is succeeded, {} is successful, {} is reachable, {'changed': 0} is change, {} is skip, {'started': 0} is started, {'finished': 1} is finished) }}",
			T(true, true, true, true, false, false, false, true), ""},
		{"{{ {'timedout': {'period': 3}} is timedout }}", true, ""},
		{"{{ 'x' is failed }}", nil, te("ansible.builtin.failed", "The 'failed' test expects a dictionary")},
		{"{{ 'x' is changed }}", nil, te("ansible.builtin.changed", "The 'changed' test expects a dictionary")},
	})
}
