package git

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/transport"
	"kollect.dev/kollect/pkg/sink"
)

// classify wraps err from a Git operation: the context's error when ctx
// is done, permanent for refused credentials, a missing repository or the
// egress policy, transient otherwise.
func classify(ctx context.Context, op string, err error) error {
	if err == nil {
		return nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("%s: %w", op, errors.Join(ctxErr, err))
	}
	err = fmt.Errorf("%s: %w", op, err)
	if sink.IsPermanent(err) || permanent(err) {
		return sink.Permanent(err)
	}
	return err
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
		errors.Is(err, transport.ErrRepositoryNotFound):
		return true
	}
	msg := err.Error()
	for _, s := range []string{
		"ssh: unable to authenticate", // the server refused the key
		"knownhosts: key mismatch",    // the host key is not the known one
		"knownhosts: key is unknown",
		"endpoint address denied", // egress.ErrDenied through an error chain that lost it
		tooLargeText,              // ErrAnswerTooLarge, likewise
	} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}
