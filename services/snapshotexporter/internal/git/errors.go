package git

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/sink"
)

// classify wraps err from a Git operation (sink.Classify): the context's
// error when ctx is done, permanent for refused credentials, a missing
// repository, the egress policy or an answer over the read cap, transient
// otherwise. go-git's plumbing errors do not unwrap; keepChain restores
// the chain through them, so that classification is by error type.
func classify(ctx context.Context, op string, err error) error {
	return sink.Classify(ctx, op, keepChain(err), permanent)
}

// classify is classify for the sink's operations: when the sink has an
// auth type but no secretRef and the server refuses the credential-free
// request, the error says that secretRef is missing.
func (s *Sink) classify(ctx context.Context, op string, err error) error {
	err = classify(ctx, op, err)
	if err == nil || s.authWithoutSecret == "" || !refused(err) {
		return err
	}
	return sink.Permanent(fmt.Errorf("%w: spec.git.auth.type is %s but spec.secretRef is not set, so no credentials were sent; "+
		"set spec.secretRef (required for private repositories)", err, s.authWithoutSecret))
}

// refused reports a server's refusal of the request's credentials or of
// access to the repository (servers answer "not found" for private ones).
func refused(err error) bool {
	return errors.Is(err, transport.ErrAuthenticationRequired) ||
		errors.Is(err, transport.ErrAuthorizationFailed) ||
		errors.Is(err, transport.ErrRepositoryNotFound)
}

// permanent reports errors no retry can fix.
func permanent(err error) bool {
	switch {
	case errors.Is(err, transport.ErrAuthenticationRequired),
		errors.Is(err, transport.ErrAuthorizationFailed),
		errors.Is(err, transport.ErrInvalidAuthMethod),
		errors.Is(err, transport.ErrRepositoryNotFound),
		errors.Is(err, egress.ErrDenied),
		errors.Is(err, ErrAnswerTooLarge):
		return true
	}
	// golang.org/x/crypto/ssh gives a refused key no error type; its
	// message is the only sign.
	return strings.Contains(err.Error(), "ssh: unable to authenticate")
}

// chain is an error whose message is err's and whose chain also holds
// cause, the error a go-git plumbing error carries without unwrapping.
type chain struct{ err, cause error }

func (c *chain) Error() string   { return c.err.Error() }
func (c *chain) Unwrap() []error { return []error{c.err, c.cause} }

// keepChain returns err with the cause of a go-git plumbing.PermanentError
// or UnexpectedError in its chain (an egress refusal, a read over the cap,
// a sink.Permanent mark), or err itself when it holds none.
func keepChain(err error) error {
	if pe, ok := errors.AsType[*plumbing.PermanentError](err); ok && pe.Err != nil {
		return &chain{err: err, cause: keepChain(pe.Err)}
	}
	if ue, ok := errors.AsType[*plumbing.UnexpectedError](err); ok && ue.Err != nil {
		return &chain{err: err, cause: keepChain(ue.Err)}
	}
	return err
}
