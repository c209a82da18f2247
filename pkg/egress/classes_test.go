package egress_test

import (
	"errors"
	"net/netip"
	"strings"
	"testing"

	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/sink"
)

// Opt-ins an address class needs, as the table below states them.
const (
	none      = "no opt-in"
	private   = "the in-cluster opt-in"
	linkLocal = "the link-local opt-in"
	both      = "both the in-cluster and the link-local opt-ins"
	never     = "never"
)

// addressClasses lists, per address, the opt-in that admits it. It holds
// the probe list of the security review (section 3.6) and the edges of
// every class.
var addressClasses = []struct {
	addr, what, need string
}{
	{"8.8.8.8", "a public IPv4 address", none},
	{"34.118.224.1", "a public address in GKE Autopilot's Service range (deny-list it)", none},
	{"172.32.0.1", "the address just above 172.16.0.0/12", none},
	{"100.63.255.255", "the address just below 100.64.0.0/10", none},
	{"100.128.0.1", "the address just above 100.64.0.0/10", none},
	{"2606:4700::1111", "a public IPv6 address", none},
	{"::ffff:8.8.8.8", "an IPv4-mapped public address", none},
	{"64:ff9b::808:808", "NAT64 of a public address", none},
	{"2002:808:808::1", "6to4 of a public address", none},

	{"127.0.0.1", "IPv4 loopback", private},
	{"127.255.255.254", "the top of 127.0.0.0/8", private},
	{"::1", "IPv6 loopback", private},
	{"10.96.0.1", "the usual Kubernetes Service address (RFC 1918)", private},
	{"172.16.0.1", "the bottom of 172.16.0.0/12", private},
	{"172.31.255.255", "the top of 172.16.0.0/12", private},
	{"192.168.1.1", "RFC 1918 192.168.0.0/16", private},
	{"100.64.0.10", "CGNAT 100.64.0.0/10 (pod and Service CIDRs on some CNIs)", private},
	{"100.127.255.254", "the top of 100.64.0.0/10", private},
	{"198.18.0.1", "benchmarking 198.18.0.0/15", private},
	{"198.19.255.255", "the top of 198.18.0.0/15", private},
	{"fd00::1", "unique local fd00::/8", private},
	{"fc00::1", "unique local fc00::/8", private},
	{"fec0::1", "deprecated site-local", private},
	{"::ffff:10.0.0.1", "an IPv4-mapped RFC 1918 address", private},
	{"::ffff:127.0.0.1", "IPv4-mapped loopback", private},
	{"64:ff9b::7f00:1", "NAT64 of loopback", private},
	{"64:ff9b::a00:1", "NAT64 of an RFC 1918 address", private},
	{"64:ff9b:1::808:808", "local-use NAT64 of a public address", private},
	{"2002:7f00:1::1", "6to4 of loopback", private},
	{"2002:a00:1::1", "6to4 of an RFC 1918 address", private},

	{"169.254.169.254", "the AWS, GCP and Azure metadata address", linkLocal},
	{"169.254.1.1", "IPv4 link-local", linkLocal},
	{"fd00:ec2::254", "the AWS IPv6 metadata address (inside unique local)", linkLocal},
	{"100.100.100.200", "the Alibaba Cloud metadata address (inside CGNAT)", linkLocal},
	{"168.63.129.16", "the Azure WireServer", linkLocal},
	{"fe80::1", "IPv6 link-local", linkLocal},
	{"fe80::1%eth0", "IPv6 link-local with a zone", linkLocal},
	{"::ffff:169.254.169.254", "IPv4-mapped metadata", linkLocal},
	{"64:ff9b::a9fe:a9fe", "NAT64 of the metadata address", linkLocal},
	{"64:ff9b::6464:64c8", "NAT64 of the Alibaba metadata address", linkLocal},
	{"2002:a9fe:a9fe::1", "6to4 of the metadata address", linkLocal},

	{"64:ff9b:1::a9fe:a9fe", "local-use NAT64 of the metadata address", both},

	{"0.0.0.0", "IPv4 unspecified", never},
	{"0.1.2.3", "this-network 0.0.0.0/8", never},
	{"::", "IPv6 unspecified", never},
	{"::ffff:0.0.0.0", "IPv4-mapped unspecified", never},
	{"255.255.255.255", "broadcast", never},
	{"224.0.0.1", "IPv4 multicast", never},
	{"239.255.255.250", "IPv4 site multicast", never},
	{"ff02::1", "IPv6 link-local multicast", never},
	{"ff05::1:3", "IPv6 site multicast", never},
	{"240.0.0.1", "reserved 240.0.0.0/4", never},
	{"192.0.0.170", "IETF protocol assignments 192.0.0.0/24", never},
	{"::a9fe:a9fe", "IPv4-compatible IPv6 (deprecated)", never},
	{"100::1", "discard-only 100::/64", never},
	{"2001::a9fe:a9fe", "Teredo", never},
	{"2002::1", "6to4 of 0.0.0.0", never},
	{"64:ff9b::", "NAT64 of 0.0.0.0", never},
}

func TestEveryAddressClassNeedsItsOptIn(t *testing.T) {
	policies := []struct {
		name   string
		policy egress.Policy
		admits map[string]bool
	}{
		{"the default policy", egress.Policy{}, map[string]bool{none: true}},
		{"the in-cluster opt-in", egress.Policy{AllowPrivate: true}, map[string]bool{none: true, private: true}},
		{"the link-local opt-in", egress.Policy{AllowLinkLocal: true}, map[string]bool{none: true, linkLocal: true}},
		{"both opt-ins", egress.Policy{AllowPrivate: true, AllowLinkLocal: true},
			map[string]bool{none: true, private: true, linkLocal: true, both: true}},
	}
	for _, a := range addressClasses {
		ip := netip.MustParseAddr(a.addr)
		for _, p := range policies {
			want := p.admits[a.need]
			verb := "refuses"
			if want {
				verb = "admits"
			}
			t.Run(p.name+" "+verb+" "+a.what+" ("+a.addr+", needs "+a.need+")", func(t *testing.T) {
				err := p.policy.Check(ip)
				if (err == nil) != want {
					t.Fatalf("Check(%s) = %v, want admitted %v", ip, err, want)
				}
				if err != nil && (!errors.Is(err, egress.ErrDenied) || !sink.IsPermanent(err)) {
					t.Fatalf("Check(%s) = %v, want a permanent error wrapping ErrDenied", ip, err)
				}
			})
		}
	}
}

func TestRefusalsNameTheMissingOptIn(t *testing.T) {
	tests := []struct {
		name, addr string
		policy     egress.Policy
		want       string
	}{
		{"a private address names the in-cluster opt-in", "10.0.0.1", egress.Policy{}, "in-cluster sinks are not allowed"},
		{"metadata under the in-cluster opt-in names the link-local opt-in", "169.254.169.254", egress.Policy{AllowPrivate: true},
			"cloud metadata address and link-local sinks are not allowed"},
		{"an unspecified address says it is never allowed", "0.0.0.0", egress.Policy{AllowPrivate: true, AllowLinkLocal: true}, "never allowed"},
		{"NAT64 names the IPv4 address it carries", "64:ff9b::a9fe:a9fe", egress.Policy{AllowPrivate: true},
			"carries the IPv4 address 169.254.169.254"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.policy.Check(netip.MustParseAddr(tt.addr))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Check(%s) = %v, want a message containing %q", tt.addr, err, tt.want)
			}
		})
	}
}

func TestTheDenyListWinsOverEveryOptIn(t *testing.T) {
	deny, err := egress.ParsePrefixes("10.96.0.0/12, 34.118.224.0/20,fd00:10:96::/108")
	if err != nil {
		t.Fatal(err)
	}
	p := egress.Policy{AllowPrivate: true, AllowLinkLocal: true, Deny: deny}
	tests := []struct {
		name, addr string
		denied     bool
	}{
		{"an address in the Service CIDR is refused", "10.96.0.1", true},
		{"the last address of the Service CIDR is refused", "10.111.255.255", true},
		{"a private address outside the deny list is admitted", "10.112.0.1", false},
		{"a public Service range in the deny list is refused", "34.118.224.1", true},
		{"an IPv4-mapped address in the deny list is refused", "::ffff:10.96.0.10", true},
		{"NAT64 of an address in the deny list is refused", "64:ff9b::a60:1", true},
		{"6to4 of an address in the deny list is refused", "2002:a60:1::1", true},
		{"an IPv6 Service address in the deny list is refused", "fd00:10:96::a", true},
		{"a unique local address outside the deny list is admitted", "fd00:10:97::1", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := p.Check(netip.MustParseAddr(tt.addr))
			if (err != nil) != tt.denied {
				t.Fatalf("Check(%s) = %v, want denied %v", tt.addr, err, tt.denied)
			}
			if err != nil && !strings.Contains(err.Error(), "denied network") {
				t.Fatalf("Check(%s) = %v, want the deny list named", tt.addr, err)
			}
		})
	}
}

func TestParsePrefixes(t *testing.T) {
	tests := []struct {
		name, in, want string
		wantErr        bool
	}{
		{"an empty list is no network", "", "", false},
		{"comma-separated CIDRs of both families parse", "10.96.0.0/12, fd00:10:96::/108", "10.96.0.0/12,fd00:10:96::/108", false},
		{"a bare address is a one-address network", "100.100.100.200", "100.100.100.200/32", false},
		{"host bits are cleared", "10.96.0.5/12", "10.96.0.0/12", false},
		{"an IPv4-mapped network becomes IPv4", "::ffff:10.0.0.0/104", "10.0.0.0/8", false},
		{"a name is an error", "kubernetes.default", "", true},
		{"a bad length is an error", "10.0.0.0/33", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got egress.Prefixes
			err := got.Set(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Set(%q) error = %v, want error %v", tt.in, err, tt.wantErr)
			}
			if err == nil && got.String() != tt.want {
				t.Fatalf("Set(%q) = %q, want %q", tt.in, got.String(), tt.want)
			}
		})
	}
}
