package git

import (
	"context"
	"net/http"
	"sync"

	"github.com/go-git/go-git/v5/plumbing/transport/client"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
)

// transportKey carries a sink's HTTP transport in a context.
type transportKey struct{}

// withTransport returns ctx carrying rt, the transport every go-git HTTP
// request made under ctx uses.
func withTransport(ctx context.Context, rt http.RoundTripper) context.Context {
	return context.WithValue(ctx, transportKey{}, rt)
}

// contextTransport sends each request through the transport its context
// carries, http.DefaultTransport when none.
type contextTransport struct{}

// RoundTrip implements http.RoundTripper.
func (contextTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if rt, ok := req.Context().Value(transportKey{}).(http.RoundTripper); ok {
		return rt.RoundTrip(req)
	}
	return http.DefaultTransport.RoundTrip(req)
}

var installOnce sync.Once

// installHTTP installs, once per process, the go-git HTTP client that
// routes by context. go-git offers no per-call HTTP client in v5.
func installHTTP() {
	installOnce.Do(func() {
		c := githttp.NewClient(&http.Client{Transport: contextTransport{}})
		client.InstallProtocol("http", c)
		client.InstallProtocol("https", c)
	})
}
