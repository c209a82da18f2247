package git

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/transport"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
	"golang.org/x/net/proxy"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/sink"
)

// sshDialScheme is the proxy scheme through which go-git's SSH transport
// dials with a sink's egress.Policy. go-git dials SSH itself
// (golang.org/x/net/proxy) and offers one per-call hook, the proxy of the
// call's options; every SSH call of the backend names this scheme, with
// the policy in the URL's query, and the registered dialer dials through
// Policy.DialContext. The address is so checked before the TCP connection,
// let alone the key exchange.
const sshDialScheme = "kollect-egress"

// Query keys of the policy in an sshDialScheme URL.
const (
	queryPrivate   = "private"
	queryLinkLocal = "link-local"
	queryDeny      = "deny"
)

// sshProxy returns the proxy options that make go-git dial endpoint
// through p: set for ssh endpoints only (go-git's HTTP transport would
// take any proxy URL as an HTTP proxy).
func sshProxy(p egress.Policy, endpoint string) transport.ProxyOptions {
	ep, err := transport.NewEndpoint(endpoint)
	if err != nil || ep.Protocol != "ssh" {
		return transport.ProxyOptions{}
	}
	q := url.Values{}
	if p.AllowPrivate {
		q.Set(queryPrivate, "true")
	}
	if p.AllowLinkLocal {
		q.Set(queryLinkLocal, "true")
	}
	for _, d := range p.Deny {
		q.Add(queryDeny, d.String())
	}
	return transport.ProxyOptions{URL: (&url.URL{Scheme: sshDialScheme, Host: "policy", RawQuery: q.Encode()}).String()}
}

// policyOf reads the policy back from an sshDialScheme URL.
func policyOf(u *url.URL) (egress.Policy, error) {
	q := u.Query()
	p := egress.Policy{AllowPrivate: q.Get(queryPrivate) == "true", AllowLinkLocal: q.Get(queryLinkLocal) == "true"}
	for _, d := range q[queryDeny] {
		n, err := netip.ParsePrefix(d)
		if err != nil {
			return egress.Policy{}, fmt.Errorf("parse ssh dial policy: %w", err)
		}
		p.Deny = append(p.Deny, n)
	}
	return p, nil
}

// policyDialer dials through an egress.Policy; it is the proxy.Dialer of
// sshDialScheme URLs.
type policyDialer struct{ p egress.Policy }

// Dial implements proxy.Dialer.
func (d policyDialer) Dial(network, addr string) (net.Conn, error) {
	return d.p.DialContext(context.Background(), network, addr)
}

// DialContext implements proxy.ContextDialer, which go-git requires.
func (d policyDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	return d.p.DialContext(ctx, network, addr)
}

// policySSH is go-git's SSH transport that refuses to open a session
// whose endpoint would not dial through a policy: a call that forgot the
// proxy options fails instead of dialing around the policy.
type policySSH struct{ transport.Transport }

// NewUploadPackSession implements transport.Transport.
func (t policySSH) NewUploadPackSession(ep *transport.Endpoint, auth transport.AuthMethod) (transport.UploadPackSession, error) {
	if err := throughPolicy(ep); err != nil {
		return nil, err
	}
	return t.Transport.NewUploadPackSession(ep, auth)
}

// NewReceivePackSession implements transport.Transport.
func (t policySSH) NewReceivePackSession(ep *transport.Endpoint, auth transport.AuthMethod) (transport.ReceivePackSession, error) {
	if err := throughPolicy(ep); err != nil {
		return nil, err
	}
	return t.Transport.NewReceivePackSession(ep, auth)
}

func throughPolicy(ep *transport.Endpoint) error {
	if !strings.HasPrefix(ep.Proxy.URL, sshDialScheme+"://") {
		return sink.Permanent(fmt.Errorf("ssh connection to %s without the sink's egress policy: %w", ep.Host, egress.ErrDenied))
	}
	return nil
}

func init() {
	proxy.RegisterDialerType(sshDialScheme, func(u *url.URL, _ proxy.Dialer) (proxy.Dialer, error) {
		p, err := policyOf(u)
		if err != nil {
			return nil, err
		}
		return policyDialer{p}, nil
	})
}

// sshTransport is the SSH transport the backend installs for go-git.
var sshTransport transport.Transport = policySSH{gitssh.DefaultClient}
