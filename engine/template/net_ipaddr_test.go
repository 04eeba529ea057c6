package template

import "testing"

func TestIPAddrFilters(t *testing.T) {
	runCases(t, []tcase{
		// ansible.utils.ipaddr
		{"{{ '192.168.1.5/24' | ansible.utils.ipaddr }}", "192.168.1.5/24", ""},
		{"{{ '192.168.1.5/24' | ansible.utils.ipaddr('address') }}", "192.168.1.5", ""},
		{"{{ '192.168.1.5/24' | ansible.utils.ipaddr('network') }}", "192.168.1.0", ""},
		{"{{ '192.168.1.5/24' | ansible.utils.ipaddr('netmask') }}", "255.255.255.0", ""},
		{"{{ '192.168.1.5/24' | ansible.utils.ipaddr('prefix') }}", 24, ""},
		{"{{ '192.168.1.5/24' | ansible.utils.ipaddr('broadcast') }}", "192.168.1.255", ""},
		{"{{ '192.168.1.5/24' | ansible.utils.ipaddr('host') }}", "192.168.1.5/24", ""},
		{"{{ '192.168.1.0/24' | ansible.utils.ipaddr('net') }}", "192.168.1.0/24", ""},
		{"{{ '192.168.1.5/24' | ansible.utils.ipaddr('cidr') }}", "192.168.1.5/24", ""},
		{"{{ '192.168.1.5/24' | ansible.utils.ipaddr('subnet') }}", "192.168.1.0/24", ""},
		{"{{ '192.168.1.5' | ansible.utils.ipaddr('private') }}", "192.168.1.5", ""},
		{"{{ '8.8.8.8' | ansible.utils.ipaddr('public') }}", "8.8.8.8", ""},
		{"{{ '8.8.8.8' | ansible.utils.ipaddr('private') }}", nil, ""},
		{"{{ 'foo' | ansible.utils.ipaddr }}", false, ""},
		{"{{ [3] | ansible.utils.ipaddr }}", L("0.0.0.3"), ""},
		{"{{ ['10.0.0.1', 'x', 'fe80::1'] | ansible.utils.ipv4 }}", L("10.0.0.1"), ""},
		{"{{ ['10.0.0.1', 'x', 'fe80::1'] | ansible.utils.ipv6 }}", L("fe80::1"), ""},
		{"{{ '10.0.0.1' | ansible.utils.ipaddr('ipv6') }}", "::ffff:10.0.0.1/128", ""},
		{"{{ '10.0.0.0/30' | ansible.utils.ipaddr('range_usable') }}", "10.0.0.1-10.0.0.2", ""},
		{"{{ '10.0.0.1' | ansible.utils.ipaddr('nope') }}", nil, fe("ansible.utils.ipaddr", "unsupported operand type(s) for +: 'NoneType' and 'str'")},
		{"{{ '10.0.0.1' | ansible.utils.ipv4('nope') }}", nil, fe("ansible.utils.ipv4", "ipv4: unknown filter type: nope")},
		{"{{ 'x' | ansible.utils.ipaddr(zzz=1) }}", nil, fe("ansible.utils.ipaddr", "['zzz. Supported parameters include: alias, query, value, version.']")},
	})
}

func TestIPAddrTests(t *testing.T) {
	runCases(t, []tcase{
		{"{{ ('10.0.0.1' is ansible.utils.ipv4, '10.0.0.1' is ansible.utils.ipv6, 'fe80::1' is ansible.utils.ip, 'x' is ansible.utils.ip, '10.0.0.0/8' is ansible.utils.ip_address) }}",
			T(true, false, true, false, false), ""},
	})
}
