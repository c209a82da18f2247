package egress

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"

	"kollect.dev/kollect/pkg/sink"
)

// ErrDenied is wrapped by every refusal of the address policy.
var ErrDenied = errors.New("endpoint address denied")

// Policy decides which addresses exporters may connect to. The zero value
// admits public addresses only. Whatever the opt-ins, unspecified,
// this-network (0.0.0.0/8), broadcast, multicast and reserved addresses
// are refused, and so is every address in Deny. An IPv4-mapped IPv6
// address is checked as its IPv4 address; a NAT64 (64:ff9b::/96,
// 64:ff9b:1::/48) or 6to4 (2002::/16) address is checked both as itself
// and as the IPv4 address it carries.
type Policy struct {
	// AllowPrivate admits loopback, private (RFC 1918), unique local,
	// shared (CGNAT, 100.64.0.0/10), benchmarking (198.18.0.0/15) and
	// local-use NAT64 addresses: the operator's in-cluster sinks opt-in.
	// It does not admit link-local or cloud metadata addresses.
	AllowPrivate bool
	// AllowLinkLocal admits link-local addresses (169.254.0.0/16,
	// fe80::/10) and the cloud metadata addresses (169.254.169.254,
	// fd00:ec2::254, 100.100.100.200, 168.63.129.16): a separate opt-in,
	// never implied by AllowPrivate.
	AllowLinkLocal bool
	// Deny lists networks refused whatever the opt-ins, such as the
	// cluster's Service and Pod CIDRs.
	Deny []netip.Prefix
	// AllowLocalFiles admits file:// Git repositories on the exporter's
	// own file system (tests and `kollect dev`). It is not an address
	// class: the git backend and control's endpoint check read it.
	AllowLocalFiles bool
}

// Check returns a sink.Permanent error wrapping ErrDenied when the policy
// refuses ip.
func (p Policy) Check(ip netip.Addr) error {
	ip = ip.Unmap().WithZone("")
	if !ip.IsValid() {
		return sink.Permanent(fmt.Errorf("%w: no address", ErrDenied))
	}
	if why := p.refusal(ip); why != "" {
		return sink.Permanent(fmt.Errorf("%w: %s", ErrDenied, why))
	}
	if v4, ok := embedded(ip); ok {
		if why := p.refusal(v4); why != "" {
			return sink.Permanent(fmt.Errorf("%w: %s carries the IPv4 address %s, and %s", ErrDenied, ip, v4, why))
		}
	}
	return nil
}

// refusal says why the policy refuses ip (unmapped, without zone), ""
// when it admits it. It ignores the IPv4 address ip may carry.
func (p Policy) refusal(ip netip.Addr) string {
	for _, d := range p.Deny {
		if d.Contains(ip) {
			return fmt.Sprintf("%s is in the operator's denied network %s", ip, d)
		}
	}
	c, ok := classOf(ip)
	switch {
	case !ok, c.optIn == private && p.AllowPrivate, c.optIn == linkLocal && p.AllowLinkLocal:
		return ""
	case c.optIn == private:
		return fmt.Sprintf("%s is %s and in-cluster sinks are not allowed", ip, c.name)
	case c.optIn == linkLocal:
		return fmt.Sprintf("%s is %s and link-local sinks are not allowed", ip, c.name)
	}
	return fmt.Sprintf("%s is %s, never allowed", ip, c.name)
}

// control runs after name resolution, once per address the dialer tries.
func (p Policy) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return sink.Permanent(fmt.Errorf("%w: unparsable address %q", ErrDenied, address))
	}
	return p.Check(ap.Addr())
}

// Dialer returns a dialer that refuses, per dialed address, what the policy
// denies.
func (p Policy) Dialer() *net.Dialer {
	return &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second, Control: p.control}
}

// DialContext dials through Dialer; it has the signature most clients
// accept as a custom dial function.
func (p Policy) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	return p.Dialer().DialContext(ctx, network, address)
}

// HTTPTransport returns an HTTP transport that dials through the policy and
// uses tlsConfig (nil: system roots).
func (p Policy) HTTPTransport(tlsConfig *tls.Config) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil // a proxy would hide the dialed address from the policy
	t.DialContext = p.Dialer().DialContext
	t.TLSClientConfig = tlsConfig
	return t
}

// HTTPClient returns an HTTP client over HTTPTransport.
func (p Policy) HTTPClient(tlsConfig *tls.Config) *http.Client {
	return &http.Client{Transport: p.HTTPTransport(tlsConfig)}
}
