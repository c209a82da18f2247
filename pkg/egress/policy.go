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

// Policy decides which addresses exporters may connect to.
type Policy struct {
	// AllowPrivate admits private, loopback, link-local and unspecified
	// addresses (the operator's in-cluster sinks opt-in).
	AllowPrivate bool
}

// Check returns a sink.Permanent error wrapping ErrDenied when the policy
// refuses ip.
func (p Policy) Check(ip netip.Addr) error {
	if p.AllowPrivate {
		return nil
	}
	ip = ip.Unmap()
	if ip.IsPrivate() || ip.IsLoopback() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsUnspecified() || ip.IsInterfaceLocalMulticast() {
		return sink.Permanent(fmt.Errorf("%w: %s is a private, loopback or link-local address and in-cluster sinks are not allowed", ErrDenied, ip))
	}
	return nil
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
