package template

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

var ipaddrQueries = map[string]bool{"": true, "6to4": true, "address": true, "address/prefix": true, "bool": true,
	"broadcast": true, "cidr": true, "cidr_lookup": true, "first_usable": true, "gateway": true, "gw": true,
	"host": true, "host/prefix": true, "hostmask": true, "hostnet": true, "int": true, "ip": true, "ip/prefix": true,
	"ip_netmask": true, "ipv4": true, "ipv6": true, "last_usable": true, "link-local": true, "lo": true,
	"loopback": true, "multicast": true, "net": true, "next_usable": true, "netmask": true, "network": true,
	"network_id": true, "network/prefix": true, "network_netmask": true, "network_wildcard": true, "peer": true,
	"prefix": true, "previous_usable": true, "private": true, "public": true, "range_usable": true, "revdns": true,
	"router": true, "size": true, "size_usable": true, "subnet": true, "type": true, "unicast": true, "v4": true,
	"v6": true, "version": true, "wildcard": true, "wrap": true}

// ipaddrQuery is ansible.utils' ipaddr(value, query, version, alias).
func ipaddrQuery(in any, query string, version int, alias string) (any, error) {
	switch x := in.(type) {
	case []any:
		out := []any{}
		for _, e := range x {
			r, err := ipaddrQuery(e, query, version, "ipaddr")
			if err != nil {
				return nil, err
			}
			if value.Truthy(r) {
				out = append(out, r)
			}
		}
		return out, nil
	case bool:
		return false, nil
	}
	if !value.Truthy(in) {
		return false, nil
	}
	s := value.Str(in)
	var n ipNet
	vtype := ""
	if py.IsDigits(s) {
		v, _ := new(big.Int).SetString(s, 10)
		if version != 6 && v.BitLen() <= 32 {
			n = ipNet{ip: v, version: 4, prefix: 32}
		} else if v.BitLen() <= 128 {
			n = ipNet{ip: v, version: 6, prefix: 128}
		} else {
			return false, nil
		}
		s = n.String()
		vtype = "address"
	} else if p, ok := parseIPNet(s); ok {
		n = p
		vtype = "address"
		if strings.Count(s, "/") == 1 {
			vtype = "network"
		}
	} else {
		addr, pfx, ok := strings.Cut(s, "/")
		a, ok1 := py.ParseInt(addr, 10)
		b, ok2 := py.ParseInt(pfx, 10)
		if !ok || !ok1 || !ok2 || strings.Contains(pfx, "/") {
			return false, nil
		}
		av := big.NewInt(int64(a))
		switch {
		case a >= 0 && av.BitLen() <= 32 && b >= 0 && b <= 32:
			n = ipNet{ip: av, version: 4, prefix: b}
		case a >= 0 && b >= 0 && b <= 128:
			n = ipNet{ip: av, version: 6, prefix: b}
		default:
			return false, nil
		}
		s = n.String()
		vtype = "network"
	}
	var lookup *ipNet
	if query != "" && (!ipaddrQueries[query] || query == "cidr_lookup") && !py.IsDigits(query) {
		if q, ok := parseIPNet(query); ok && strings.Contains(query, "/") {
			lookup = &q
			query = "cidr_lookup"
		} else if q, ok := parseIPNet(query); ok {
			r, _ := ipaddrQuery(query, "network", 0, alias)
			if value.Truthy(r) {
				lookup = &q
				query = "cidr_lookup"
			}
		}
	}
	if version != 0 && n.version != version {
		return false, nil
	}
	one, two := big.NewInt(1), big.NewInt(2)
	size := n.size()
	ipS := n.addrStr(n.ip)
	notNetwork := n.ip.Cmp(n.network()) != 0
	ipWithPrefix := ipS + "/" + strconv.Itoa(n.prefix)
	firstLast := func() (*big.Int, *big.Int) {
		if size.Cmp(two) == 0 {
			return n.network(), new(big.Int).Or(n.network(), n.hostmask())
		}
		return new(big.Int).Add(n.network(), one), new(big.Int).Sub(new(big.Int).Or(n.network(), n.hostmask()), one)
	}
	needNet := func() error {
		if vtype == "address" {
			return Errorf("Not a network address")
		}
		return nil
	}
	switch query {
	case "":
		if vtype == "address" {
			return ipS, nil
		}
		return n.String(), nil
	case "address", "ip":
		if size.Cmp(one) == 0 || notNetwork || n.broadcast() == nil || n.version == 6 {
			return ipS, nil
		}
		return nil, nil
	case "address/prefix", "gateway", "gw", "host/prefix", "hostnet", "router":
		if size.Cmp(two) > 0 && (!notNetwork || n.ip.Cmp(n.broadcast()) == 0) {
			return false, nil
		}
		return ipWithPrefix, nil
	case "bool":
		return true, nil
	case "broadcast":
		if size.Cmp(two) > 0 {
			return n.addrStr(n.broadcast()), nil
		}
		return nil, nil
	case "cidr":
		return n.String(), nil
	case "cidr_lookup":
		if lookup.version == n.version && new(big.Int).And(n.network(), lookup.netmask()).Cmp(lookup.network()) == 0 && n.prefix >= lookup.prefix {
			return s, nil
		}
		return nil, nil
	case "first_usable":
		if err := needNet(); err != nil {
			return nil, err
		}
		if size.Cmp(two) == 0 {
			return n.addrStr(n.network()), nil
		}
		if size.Cmp(one) > 0 {
			return n.addrStr(new(big.Int).Add(n.network(), one)), nil
		}
		return nil, nil
	case "last_usable":
		if err := needNet(); err != nil {
			return nil, err
		}
		if size.Cmp(one) > 0 {
			_, l := firstLast()
			return n.addrStr(l), nil
		}
		return nil, nil
	case "range_usable":
		if err := needNet(); err != nil {
			return nil, err
		}
		if size.Cmp(one) > 0 {
			f, l := firstLast()
			return n.addrStr(f) + "-" + n.addrStr(l), nil
		}
		return nil, nil
	case "next_usable", "previous_usable":
		if err := needNet(); err != nil {
			return nil, err
		}
		if size.Cmp(one) > 0 {
			f, l := firstLast()
			x := new(big.Int).Add(n.ip, one)
			if query == "previous_usable" {
				x = new(big.Int).Sub(n.ip, one)
			}
			if x.Cmp(f) >= 0 && x.Cmp(l) <= 0 {
				return n.addrStr(x), nil
			}
		}
		return nil, nil
	case "host":
		if size.Cmp(one) == 0 {
			return n.String(), nil
		}
		if notNetwork || n.broadcast() == nil {
			return ipWithPrefix, nil
		}
		return nil, nil
	case "hostmask", "wildcard":
		return n.addrStr(n.hostmask()), nil
	case "int":
		if vtype == "address" {
			if n.ip.IsInt64() {
				return int(n.ip.Int64()), nil
			}
			return n.ip.String(), nil
		}
		return n.ip.String() + "/" + strconv.Itoa(n.prefix), nil
	case "ip/prefix":
		if size.Cmp(two) == 0 || (size.Cmp(one) > 0 && notNetwork) {
			return ipWithPrefix, nil
		}
		return nil, nil
	case "ip_netmask":
		if size.Cmp(two) == 0 || (size.Cmp(one) > 0 && notNetwork) {
			return ipS + " " + n.addrStr(n.netmask()), nil
		}
		return nil, nil
	case "ipv4", "v4":
		if n.version == 4 {
			return s, nil
		}
		v := n.ip
		lim := big.NewInt(0xffffffff)
		mapped := big.NewInt(0xffff00000000)
		switch {
		case v.Cmp(lim) <= 0:
		case v.Cmp(big.NewInt(0xffffffffffff)) <= 0:
			v = new(big.Int).Sub(v, mapped)
		default:
			return false, nil
		}
		return ipString(v, 4) + "/" + strconv.Itoa(n.prefix-96), nil
	case "ipv6", "v6":
		if n.version == 6 {
			return s, nil
		}
		v := new(big.Int).Add(n.ip, big.NewInt(0xffff00000000))
		return ipString(v, 6) + "/" + strconv.Itoa(n.prefix+96), nil
	case "link-local":
		if ipIsLinkLocal(n.ip, n.version) {
			return s, nil
		}
		return nil, nil
	case "lo", "loopback":
		if ipIsLoopback(n.ip, n.version) {
			return s, nil
		}
		return nil, nil
	case "multicast":
		if ipIsMulticast(n.ip, n.version) {
			return s, nil
		}
		return nil, nil
	case "unicast":
		if !ipIsMulticast(n.ip, n.version) {
			return s, nil
		}
		return nil, nil
	case "net":
		if size.Cmp(one) > 0 && !notNetwork {
			return n.addrStr(n.network()) + "/" + strconv.Itoa(n.prefix), nil
		}
		return nil, nil
	case "netmask":
		return n.addrStr(n.netmask()), nil
	case "network", "network_id":
		return n.addrStr(n.network()), nil
	case "network/prefix", "subnet":
		return n.addrStr(n.network()) + "/" + strconv.Itoa(n.prefix), nil
	case "network_netmask":
		return n.addrStr(n.network()) + " " + n.addrStr(n.netmask()), nil
	case "network_wildcard":
		return n.addrStr(n.network()) + " " + n.addrStr(n.hostmask()), nil
	case "peer":
		if err := needNet(); err != nil {
			return nil, err
		}
		switch size.Int64() {
		case 2:
			return n.addrStr(new(big.Int).Xor(n.ip, one)), nil
		case 4:
			switch new(big.Int).Mod(n.ip, big.NewInt(4)).Int64() {
			case 0:
				return nil, Errorf("Network address of /30 has no peer")
			case 3:
				return nil, Errorf("Broadcast address of /30 has no peer")
			}
			return n.addrStr(new(big.Int).Xor(n.ip, big.NewInt(3))), nil
		}
		return nil, Errorf("Not a point-to-point network")
	case "prefix":
		return n.prefix, nil
	case "private":
		if !ipIsGlobal(n.ip, n.version) {
			return s, nil
		}
		return nil, nil
	case "public":
		hostmask := isLowMask(n.ip)
		netmask := isLowMask(new(big.Int).Xor(n.ip, n.maxInt()))
		if !ipIsMulticast(n.ip, n.version) && ipIsGlobal(n.ip, n.version) && !ipIsLoopback(n.ip, n.version) && !netmask && !hostmask {
			return s, nil
		}
		return nil, nil
	case "revdns":
		if n.version == 4 {
			p := strings.Split(ipS, ".")
			return p[3] + "." + p[2] + "." + p[1] + "." + p[0] + ".in-addr.arpa.", nil
		}
		h := fmt.Sprintf("%032x", n.ip)
		var parts []string
		for i := len(h) - 1; i >= 0; i-- {
			parts = append(parts, h[i:i+1])
		}
		return strings.Join(parts, ".") + ".ip6.arpa.", nil
	case "size":
		if size.IsInt64() {
			return int(size.Int64()), nil
		}
		return size.String(), nil
	case "size_usable":
		switch {
		case size.Cmp(one) == 0:
			return 0, nil
		case size.Cmp(two) == 0:
			return 2, nil
		}
		u := new(big.Int).Sub(size, two)
		if u.IsInt64() {
			return int(u.Int64()), nil
		}
		return u.String(), nil
	case "type":
		if size.Cmp(one) == 0 || notNetwork {
			return "address", nil
		}
		return "network", nil
	case "version":
		return n.version, nil
	case "wrap":
		if n.version == 6 {
			if vtype == "address" {
				return "[" + ipS + "]", nil
			}
			return "[" + ipS + "]/" + strconv.Itoa(n.prefix), nil
		}
		return s, nil
	case "6to4":
		if n.version == 4 {
			conv := ipS
			if size.Cmp(one) > 0 && !notNetwork {
				return false, nil
			}
			if ipIsGlobal(n.ip, 4) && !ipIsMulticast(n.ip, 4) || !ipIsGlobal(n.ip, 4) {
				p := strings.Split(conv, ".")
				var b [4]int
				for i := range p {
					b[i], _ = strconv.Atoi(p[i])
				}
				return fmt.Sprintf("2002:%02x%02x:%02x%02x::1/48", b[0], b[1], b[2], b[3]), nil
			}
			return false, nil
		}
		if inNet(n.ip, 6, "2002::/16") && (vtype == "address" || notNetwork) {
			return s, nil
		}
		return false, nil
	}
	if _, ok := py.ParseFloat(query); ok {
		if size.Cmp(one) == 0 {
			if vtype == "address" {
				return ipS, nil
			}
			return n.String(), nil
		}
		idx, ok := py.ParseInt(query, 10)
		if !ok {
			return false, nil
		}
		bi := big.NewInt(int64(idx))
		if idx < 0 {
			bi.Add(bi, size)
		}
		if bi.Sign() < 0 || bi.Cmp(size) >= 0 {
			return false, nil
		}
		return n.addrStr(new(big.Int).Add(n.network(), bi)) + "/" + strconv.Itoa(n.prefix), nil
	}
	if alias == "" {
		return nil, typeErrorf("unsupported operand type(s) for +: 'NoneType' and 'str'")
	}
	return nil, Errorf("%s: unknown filter type: %s", alias, query)
}
