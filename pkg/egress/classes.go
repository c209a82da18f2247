package egress

import (
	"net/netip"
)

// optIn is what admits an address class.
type optIn int

const (
	// The zero value: public addresses need no opt-in.
	_ optIn = iota
	// private addresses need Policy.AllowPrivate (in-cluster sinks).
	private
	// linkLocal addresses need Policy.AllowLinkLocal: link-local and cloud
	// metadata addresses, never opened by the in-cluster opt-in.
	linkLocal
	// never addresses are refused whatever the opt-ins: no sink listens
	// there, and some of them reach the local host.
	never
)

// class is a set of networks, named with its article for messages, and
// the opt-in that admits them.
type class struct {
	name     string
	optIn    optIn
	prefixes []netip.Prefix
}

// classes are matched in order, so a more specific network (a metadata
// address) comes before the wider one holding it (link-local, CGNAT,
// unique local). An address in none of them is public.
var classes = []class{
	{"an unspecified address", never, prefixes("0.0.0.0/32", "::/128")},
	{"a this-network address (0.0.0.0/8)", never, prefixes("0.0.0.0/8")},
	{"a broadcast address", never, prefixes("255.255.255.255/32")},
	{"a multicast address", never, prefixes("224.0.0.0/4", "ff00::/8")},
	{"a loopback address", private, prefixes("127.0.0.0/8", "::1/128")},
	{"a reserved address", never, prefixes(
		"240.0.0.0/4",  // future use
		"192.0.0.0/24", // IETF protocol assignments (DS-Lite, NAT64 discovery)
		"::/96",        // IPv4-compatible IPv6, deprecated
		"100::/64",     // discard-only
		"2001::/32",    // Teredo: the IPv4 client address is obfuscated
	)},
	{"a cloud metadata address", linkLocal, prefixes(
		"169.254.169.254/32", // AWS, GCP, Azure, OpenStack, Oracle, DigitalOcean
		"fd00:ec2::254/128",  // AWS IPv6 instance metadata
		"100.100.100.200/32", // Alibaba Cloud
		"168.63.129.16/32",   // Azure WireServer
	)},
	{"a link-local address", linkLocal, prefixes("169.254.0.0/16", "fe80::/10")},
	{"a private address (RFC 1918)", private, prefixes("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16")},
	{"a shared address (CGNAT, 100.64.0.0/10)", private, prefixes("100.64.0.0/10")},
	{"a benchmarking address (198.18.0.0/15)", private, prefixes("198.18.0.0/15")},
	{"a unique local address", private, prefixes("fc00::/7", "fec0::/10")},
	{"a local-use NAT64 address (64:ff9b:1::/48)", private, prefixes("64:ff9b:1::/48")},
}

func prefixes(cidrs ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(cidrs))
	for i, c := range cidrs {
		out[i] = netip.MustParsePrefix(c)
	}
	return out
}

// classOf returns the class of ip (unmapped, without zone), or ok false
// for a public address.
func classOf(ip netip.Addr) (class, bool) {
	for _, c := range classes {
		for _, p := range c.prefixes {
			if p.Contains(ip) {
				return c, true
			}
		}
	}
	return class{}, false
}

// Translation prefixes whose addresses carry an IPv4 address: the
// connection ends at that IPv4 host, so it is checked too.
var (
	nat64      = netip.MustParsePrefix("64:ff9b::/96")
	nat64Local = netip.MustParsePrefix("64:ff9b:1::/48")
	sixToFour  = netip.MustParsePrefix("2002::/16")
)

// embedded returns the IPv4 address an IPv6 address of a translation
// prefix carries: the last 32 bits of NAT64 (RFC 6052 /96 layout, also for
// the local-use prefix, whose other layouts the in-cluster opt-in
// accepts), bits 16-47 of 6to4 (RFC 3056).
func embedded(ip netip.Addr) (netip.Addr, bool) {
	if !ip.Is6() {
		return netip.Addr{}, false
	}
	b := ip.As16()
	switch {
	case nat64.Contains(ip), nat64Local.Contains(ip):
		return netip.AddrFrom4([4]byte(b[12:16])), true
	case sixToFour.Contains(ip):
		return netip.AddrFrom4([4]byte(b[2:6])), true
	}
	return netip.Addr{}, false
}
