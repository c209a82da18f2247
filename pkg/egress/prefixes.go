package egress

import (
	"fmt"
	"net/netip"
	"strings"
)

// Prefixes is a list of networks written as comma-separated CIDRs, such as
// the operator's deny list. It is a flag.Value (and a pflag.Value): each
// Set appends, so the flag may be repeated.
type Prefixes []netip.Prefix

// ParsePrefixes parses comma-separated CIDRs; a bare address is a network
// of that one address. Networks are normalized: host bits cleared, and an
// IPv4-mapped IPv6 network (::ffff:10.0.0.0/104) becomes the IPv4 network
// it maps, since the policy checks mapped addresses as IPv4.
func ParsePrefixes(s string) (Prefixes, error) {
	var out Prefixes
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		p, err := parsePrefix(f)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

func parsePrefix(s string) (netip.Prefix, error) {
	var p netip.Prefix
	var err error
	if strings.Contains(s, "/") {
		p, err = netip.ParsePrefix(s)
	} else {
		var a netip.Addr
		if a, err = netip.ParseAddr(s); err == nil {
			p = netip.PrefixFrom(a, a.BitLen())
		}
	}
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("parse network %q: want a CIDR such as 10.96.0.0/12 or fd00::/108", s)
	}
	if a := p.Addr(); a.Is4In6() && p.Bits() >= 96 {
		p = netip.PrefixFrom(a.Unmap(), p.Bits()-96)
	}
	return p.Masked(), nil
}

// String returns the networks comma-separated.
func (p *Prefixes) String() string {
	if p == nil {
		return ""
	}
	s := make([]string, len(*p))
	for i, n := range *p {
		s[i] = n.String()
	}
	return strings.Join(s, ",")
}

// Set appends the comma-separated CIDRs of s.
func (p *Prefixes) Set(s string) error {
	more, err := ParsePrefixes(s)
	if err != nil {
		return err
	}
	*p = append(*p, more...)
	return nil
}

// Type names the value in pflag's help.
func (p *Prefixes) Type() string { return "cidrs" }
