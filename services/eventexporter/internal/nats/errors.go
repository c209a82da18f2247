package nats

import (
	"context"
	"crypto/tls"
	"errors"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"kollect.dev/kollect/pkg/sink"
)

// permanentNATS are the client errors a retry cannot fix.
var permanentNATS = []error{
	nats.ErrAuthorization, nats.ErrAuthExpired, nats.ErrAuthRevoked, nats.ErrAccountAuthExpired,
	nats.ErrPermissionViolation, nats.ErrMaxPayload, nats.ErrBadSubject,
	jetstream.ErrJetStreamNotEnabled, jetstream.ErrJetStreamNotEnabledForAccount,
}

// permanentJS are the JetStream API error codes a retry cannot fix.
var permanentJS = []jetstream.ErrorCode{
	jetstream.JSErrCodeStreamMessageExceedsMaximum, jetstream.JSErrCodeStreamNameInUse,
	jetstream.JSErrCodeJetStreamNotEnabled, jetstream.JSErrCodeJetStreamNotEnabledForAccount,
	jetstream.JSErrCodeBadRequest,
	10065, // JSStreamSubjectOverlapErr: the subject is captured by another stream
}

// classify marks err permanent when no retry can succeed (sink.Classify):
// refused or expired credentials, JetStream off, a message or stream the
// server will never accept, a certificate the spec's TLS settings do not
// trust. The context's error wins when ctx is done, so that a cancelled
// write reports context.Canceled. No responders, timeouts and connection
// errors stay transient.
func classify(ctx context.Context, err error) error {
	return sink.Classify(ctx, "", err, permanent)
}

// permanent reports the errors no retry can fix.
func permanent(err error) bool {
	for _, p := range permanentNATS {
		if errors.Is(err, p) {
			return true
		}
	}
	if api, ok := errors.AsType[*jetstream.APIError](err); ok {
		for _, c := range permanentJS {
			if api.ErrorCode == c {
				return true
			}
		}
	}
	_, ok := errors.AsType[*tls.CertificateVerificationError](err)
	return ok
}
