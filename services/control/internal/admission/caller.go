package admission

import (
	"context"
	"net"
	"net/http"
	"sync"

	"golang.org/x/time/rate"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// MaxIncludedNamespaces is the CRD's limit on a Target's
// spec.includedNamespaces, applied again to the body the webhook receives:
// a body posted to the webhook directly is not validated by the API server,
// and each listed namespace costs one SubjectAccessReview.
const MaxIncludedNamespaces = 256

// caller is who sent an AdmissionReview, as the HTTP layer saw it.
type caller struct {
	// addr is the remote IP address.
	addr string
	// verified is true when the connection presented a client certificate
	// the configured client CA signed: the API server, which vouches for
	// the userInfo of the body.
	verified bool
}

type callerKey struct{}

// WithCaller records the HTTP caller of r in ctx. It is the webhook's
// WithContextFunc.
func WithCaller(ctx context.Context, r *http.Request) context.Context {
	c := caller{addr: r.RemoteAddr}
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		c.addr = host
	}
	c.verified = r.TLS != nil && len(r.TLS.VerifiedChains) > 0
	return context.WithValue(ctx, callerKey{}, c)
}

func callerOf(ctx context.Context) caller {
	c, _ := ctx.Value(callerKey{}).(caller)
	return c
}

// key is what req is rate-limited by: the requesting user when the API
// server vouches for it, the remote address otherwise (the body's userInfo
// is then the sender's choice, so it cannot key a fair share).
func (c caller) key(req admission.Request) string {
	if c.verified {
		return "user:" + req.UserInfo.Username
	}
	return "addr:" + c.addr
}

// Limiter is a token bucket per caller, over a bounded number of callers.
type Limiter struct {
	// Rate and Burst size each caller's bucket.
	Rate  rate.Limit
	Burst int
	// Max bounds the callers remembered; when full the map starts afresh,
	// which at worst gives every caller a full bucket again.
	Max int

	mu      sync.Mutex
	buckets map[string]*rate.Limiter
}

// Allow takes one token from key's bucket.
func (l *Limiter) Allow(key string) bool {
	l.mu.Lock()
	b, ok := l.buckets[key]
	if !ok {
		if l.buckets == nil || len(l.buckets) >= max(l.Max, 1) {
			l.buckets = map[string]*rate.Limiter{}
		}
		b = rate.NewLimiter(l.Rate, l.Burst)
		l.buckets[key] = b
	}
	l.mu.Unlock()
	return b.Allow()
}
