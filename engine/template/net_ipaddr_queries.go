package template

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// ipQueries are ansible.utils ipaddr's queries: each gives the filter's
// result for a value (None or False when the value does not qualify).
var ipQueries = map[string]func(v *ipValue) (any, error){
	"":                 ipQueryAsGiven,
	"6to4":             ipQuery6to4,
	"address":          ipQueryAddress,
	"address/prefix":   ipQueryHostPrefix,
	"bool":             func(*ipValue) (any, error) { return true, nil },
	"broadcast":        ipQueryBroadcast,
	"cidr":             func(v *ipValue) (any, error) { return v.String(), nil },
	"cidr_lookup":      ipQueryCIDRLookup,
	"first_usable":     ipQueryFirstUsable,
	"gateway":          ipQueryHostPrefix,
	"gw":               ipQueryHostPrefix,
	"host":             ipQueryHost,
	"host/prefix":      ipQueryHostPrefix,
	"hostmask":         ipQueryHostmask,
	"hostnet":          ipQueryHostPrefix,
	"int":              ipQueryInt,
	"ip":               ipQueryAddress,
	"ip/prefix":        ipQueryIPPrefix,
	"ip_netmask":       ipQueryIPNetmask,
	"ipv4":             ipQueryIPv4,
	"ipv6":             ipQueryIPv6,
	"last_usable":      ipQueryLastUsable,
	"link-local":       func(v *ipValue) (any, error) { return v.givenIf(ipIsLinkLocal(v.ip, v.version)), nil },
	"lo":               ipQueryLoopback,
	"loopback":         ipQueryLoopback,
	"multicast":        func(v *ipValue) (any, error) { return v.givenIf(ipIsMulticast(v.ip, v.version)), nil },
	"net":              ipQueryNet,
	"netmask":          func(v *ipValue) (any, error) { return v.addrStr(v.netmask()), nil },
	"network":          ipQueryNetwork,
	"network/prefix":   func(v *ipValue) (any, error) { return v.networkWithPrefix(), nil },
	"network_id":       ipQueryNetwork,
	"network_netmask":  func(v *ipValue) (any, error) { return v.addrStr(v.network()) + " " + v.addrStr(v.netmask()), nil },
	"network_wildcard": func(v *ipValue) (any, error) { return v.addrStr(v.network()) + " " + v.addrStr(v.hostmask()), nil },
	"next_usable":      func(v *ipValue) (any, error) { return v.usableNeighbour(1) },
	"peer":             ipQueryPeer,
	"prefix":           func(v *ipValue) (any, error) { return v.prefix, nil },
	"previous_usable":  func(v *ipValue) (any, error) { return v.usableNeighbour(-1) },
	"private":          func(v *ipValue) (any, error) { return v.givenIf(!ipIsGlobal(v.ip, v.version)), nil },
	"public":           ipQueryPublic,
	"range_usable":     ipQueryRangeUsable,
	"revdns":           ipQueryRevDNS,
	"router":           ipQueryHostPrefix,
	"size":             func(v *ipValue) (any, error) { return bigOrInt(v.size), nil },
	"size_usable":      ipQuerySizeUsable,
	"subnet":           func(v *ipValue) (any, error) { return v.networkWithPrefix(), nil },
	"type":             ipQueryType,
	"unicast":          func(v *ipValue) (any, error) { return v.givenIf(!ipIsMulticast(v.ip, v.version)), nil },
	"v4":               ipQueryIPv4,
	"v6":               ipQueryIPv6,
	"version":          func(v *ipValue) (any, error) { return v.version, nil },
	"wildcard":         ipQueryHostmask,
	"wrap":             ipQueryWrap,
}

// bigOrInt is n as an int when it fits, else its decimal text.
func bigOrInt(n *big.Int) any {
	if n.IsInt64() {
		return int(n.Int64())
	}
	return n.String()
}

func ipQueryAsGiven(v *ipValue) (any, error) {
	if v.isAddress {
		return v.addr, nil
	}
	return v.String(), nil
}

func ipQueryAddress(v *ipValue) (any, error) {
	if v.size.Cmp(bigOne) == 0 || v.notNetwork || v.broadcast() == nil || v.version == 6 {
		return v.addr, nil
	}
	return nil, nil
}

func ipQueryHostPrefix(v *ipValue) (any, error) {
	if v.size.Cmp(bigTwo) > 0 && (!v.notNetwork || v.ip.Cmp(v.broadcast()) == 0) {
		return false, nil
	}
	return v.withPrefix(), nil
}

func ipQueryBroadcast(v *ipValue) (any, error) {
	if v.size.Cmp(bigTwo) > 0 {
		return v.addrStr(v.broadcast()), nil
	}
	return nil, nil
}

func ipQueryCIDRLookup(v *ipValue) (any, error) {
	l := v.lookup
	if l != nil && l.version == v.version && new(big.Int).And(v.network(), l.netmask()).Cmp(l.network()) == 0 && v.prefix >= l.prefix {
		return v.given, nil
	}
	return nil, nil
}

func ipQueryFirstUsable(v *ipValue) (any, error) {
	if err := v.needNetwork(); err != nil {
		return nil, err
	}
	switch {
	case v.size.Cmp(bigTwo) == 0:
		return v.addrStr(v.network()), nil
	case v.size.Cmp(bigOne) > 0:
		return v.addrStr(new(big.Int).Add(v.network(), bigOne)), nil
	}
	return nil, nil
}

func ipQueryLastUsable(v *ipValue) (any, error) {
	if err := v.needNetwork(); err != nil {
		return nil, err
	}
	if v.size.Cmp(bigOne) > 0 {
		_, l := v.firstLast()
		return v.addrStr(l), nil
	}
	return nil, nil
}

func ipQueryRangeUsable(v *ipValue) (any, error) {
	if err := v.needNetwork(); err != nil {
		return nil, err
	}
	if v.size.Cmp(bigOne) > 0 {
		f, l := v.firstLast()
		return v.addrStr(f) + "-" + v.addrStr(l), nil
	}
	return nil, nil
}

// usableNeighbour is next_usable (delta 1) or previous_usable (-1): the
// neighbouring address when it is in the usable range.
func (v *ipValue) usableNeighbour(delta int64) (any, error) {
	if err := v.needNetwork(); err != nil {
		return nil, err
	}
	if v.size.Cmp(bigOne) > 0 {
		f, l := v.firstLast()
		x := new(big.Int).Add(v.ip, big.NewInt(delta))
		if x.Cmp(f) >= 0 && x.Cmp(l) <= 0 {
			return v.addrStr(x), nil
		}
	}
	return nil, nil
}

func ipQueryHost(v *ipValue) (any, error) {
	if v.size.Cmp(bigOne) == 0 {
		return v.String(), nil
	}
	if v.notNetwork || v.broadcast() == nil {
		return v.withPrefix(), nil
	}
	return nil, nil
}

func ipQueryHostmask(v *ipValue) (any, error) { return v.addrStr(v.hostmask()), nil }

func ipQueryInt(v *ipValue) (any, error) {
	if v.isAddress {
		return bigOrInt(v.ip), nil
	}
	return v.ip.String() + "/" + strconv.Itoa(v.prefix), nil
}

func ipQueryIPPrefix(v *ipValue) (any, error) {
	if v.size.Cmp(bigTwo) == 0 || (v.size.Cmp(bigOne) > 0 && v.notNetwork) {
		return v.withPrefix(), nil
	}
	return nil, nil
}

func ipQueryIPNetmask(v *ipValue) (any, error) {
	if v.size.Cmp(bigTwo) == 0 || (v.size.Cmp(bigOne) > 0 && v.notNetwork) {
		return v.addr + " " + v.addrStr(v.netmask()), nil
	}
	return nil, nil
}

// ipQueryIPv4 is the value as IPv4: itself, or an IPv4-compatible or
// IPv4-mapped IPv6 address converted.
func ipQueryIPv4(v *ipValue) (any, error) {
	if v.version == 4 {
		return v.given, nil
	}
	ip := v.ip
	switch {
	case ip.Cmp(big.NewInt(0xffffffff)) <= 0:
	case ip.Cmp(big.NewInt(0xffffffffffff)) <= 0:
		ip = new(big.Int).Sub(ip, big.NewInt(0xffff00000000))
	default:
		return false, nil
	}
	return ipString(ip, 4) + "/" + strconv.Itoa(v.prefix-96), nil
}

// ipQueryIPv6 is the value as IPv6: itself, or an IPv4 address mapped.
func ipQueryIPv6(v *ipValue) (any, error) {
	if v.version == 6 {
		return v.given, nil
	}
	ip := new(big.Int).Add(v.ip, big.NewInt(0xffff00000000))
	return ipString(ip, 6) + "/" + strconv.Itoa(v.prefix+96), nil
}

func ipQueryLoopback(v *ipValue) (any, error) {
	return v.givenIf(ipIsLoopback(v.ip, v.version)), nil
}

func ipQueryNet(v *ipValue) (any, error) {
	if v.size.Cmp(bigOne) > 0 && !v.notNetwork {
		return v.networkWithPrefix(), nil
	}
	return nil, nil
}

func ipQueryNetwork(v *ipValue) (any, error) { return v.addrStr(v.network()), nil }

// ipQueryPeer is the other end of a point-to-point (/31 or /30) link.
func ipQueryPeer(v *ipValue) (any, error) {
	if err := v.needNetwork(); err != nil {
		return nil, err
	}
	switch v.size.Int64() {
	case 2:
		return v.addrStr(new(big.Int).Xor(v.ip, bigOne)), nil
	case 4:
		switch new(big.Int).Mod(v.ip, big.NewInt(4)).Int64() {
		case 0:
			return nil, Errorf("Network address of /30 has no peer")
		case 3:
			return nil, Errorf("Broadcast address of /30 has no peer")
		}
		return v.addrStr(new(big.Int).Xor(v.ip, big.NewInt(3))), nil
	}
	return nil, Errorf("Not a point-to-point network")
}

func ipQueryPublic(v *ipValue) (any, error) {
	hostmask := isLowMask(v.ip)
	netmask := isLowMask(new(big.Int).Xor(v.ip, v.maxInt()))
	public := !ipIsMulticast(v.ip, v.version) && ipIsGlobal(v.ip, v.version) && !ipIsLoopback(v.ip, v.version)
	return v.givenIf(public && !netmask && !hostmask), nil
}

// ipQueryRevDNS is the reverse DNS name of the address.
func ipQueryRevDNS(v *ipValue) (any, error) {
	if v.version == 4 {
		p := strings.Split(v.addr, ".")
		return p[3] + "." + p[2] + "." + p[1] + "." + p[0] + ".in-addr.arpa.", nil
	}
	h := fmt.Sprintf("%032x", v.ip)
	parts := make([]string, 0, len(h))
	for i := len(h) - 1; i >= 0; i-- {
		parts = append(parts, h[i:i+1])
	}
	return strings.Join(parts, ".") + ".ip6.arpa.", nil
}

func ipQuerySizeUsable(v *ipValue) (any, error) {
	switch {
	case v.size.Cmp(bigOne) == 0:
		return 0, nil
	case v.size.Cmp(bigTwo) == 0:
		return 2, nil
	}
	return bigOrInt(new(big.Int).Sub(v.size, bigTwo)), nil
}

func ipQueryType(v *ipValue) (any, error) {
	if v.size.Cmp(bigOne) == 0 || v.notNetwork {
		return "address", nil
	}
	return "network", nil
}

// ipQueryWrap puts an IPv6 address in brackets.
func ipQueryWrap(v *ipValue) (any, error) {
	if v.version != 6 {
		return v.given, nil
	}
	if v.isAddress {
		return "[" + v.addr + "]", nil
	}
	return "[" + v.addr + "]/" + strconv.Itoa(v.prefix), nil
}

// ipQuery6to4 is the 6to4 network of a public IPv4 address, or the value
// itself when it is a 6to4 IPv6 address.
func ipQuery6to4(v *ipValue) (any, error) {
	if v.version == 4 {
		if v.size.Cmp(bigOne) > 0 && !v.notNetwork {
			return false, nil
		}
		if ipIsGlobal(v.ip, 4) && !ipIsMulticast(v.ip, 4) || !ipIsGlobal(v.ip, 4) {
			p := strings.Split(v.addr, ".")
			var b [4]int
			for i := range p {
				b[i], _ = strconv.Atoi(p[i])
			}
			return fmt.Sprintf("2002:%02x%02x:%02x%02x::1/48", b[0], b[1], b[2], b[3]), nil
		}
		return false, nil
	}
	if inNet(v.ip, 6, "2002::/16") && (v.isAddress || v.notNetwork) {
		return v.given, nil
	}
	return false, nil
}
