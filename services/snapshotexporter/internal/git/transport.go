package git

import (
	"context"
	"fmt"
	"net/http"

	"github.com/go-git/go-git/v5/plumbing/transport/client"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/sink"
)

// transportKey carries a sink's HTTP transport in a context.
type transportKey struct{}

// withTransport returns ctx carrying rt, the transport every go-git HTTP
// request made under ctx uses.
func withTransport(ctx context.Context, rt http.RoundTripper) context.Context {
	return context.WithValue(ctx, transportKey{}, rt)
}

// contextTransport sends each request through the transport its context
// carries. A request without one is refused, never sent through a
// transport that would dial around the sink's egress policy.
type contextTransport struct{}

// RoundTrip implements http.RoundTripper.
func (contextTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if rt, ok := req.Context().Value(transportKey{}).(http.RoundTripper); ok {
		return rt.RoundTrip(req)
	}
	if req.Body != nil {
		_ = req.Body.Close()
	}
	return nil, sink.Permanent(fmt.Errorf("git request to %s without the sink's egress policy: %w", req.URL.Host, egress.ErrDenied))
}

// init installs, for the whole process, the go-git transports that dial
// through the calling sink's policy: go-git v5 offers no per-call client,
// only one per scheme (client.InstallProtocol). HTTP(S) routes by the
// request's context, SSH by the call's proxy options (ssh.go).
func init() {
	c := githttp.NewClient(&http.Client{Transport: contextTransport{}})
	client.InstallProtocol("http", c)
	client.InstallProtocol("https", c)
	client.InstallProtocol("ssh", sshTransport)
}
