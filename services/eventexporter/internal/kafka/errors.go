package kafka

import (
	"context"
	"crypto/tls"
	"errors"

	"github.com/twmb/franz-go/pkg/kerr"
	"kollect.dev/kollect/pkg/sink"
)

// permanentKafka are the broker errors a retry cannot fix: refused
// credentials or authorization, and records or topics the broker will never
// accept.
var permanentKafka = []error{
	kerr.SaslAuthenticationFailed, kerr.UnsupportedSaslMechanism, kerr.IllegalSaslState,
	kerr.TopicAuthorizationFailed, kerr.ClusterAuthorizationFailed, kerr.TransactionalIDAuthorizationFailed,
	kerr.DelegationTokenAuthorizationFailed,
	kerr.MessageTooLarge, kerr.RecordListTooLarge, kerr.InvalidRecord, kerr.InvalidTopicException,
	kerr.InvalidReplicationFactor, kerr.InvalidPartitions, kerr.InvalidConfig, kerr.PolicyViolation,
}

// classify marks err permanent when no retry can succeed (sink.Classify;
// ctx, from authWatch.op, cancelled by an authentication refusal
// included); the context's error wins when ctx is otherwise done, so a
// cancelled write reports context.Canceled. Timeouts, unavailable brokers
// and other network errors stay transient.
func classify(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if err := refused(ctx); err != nil {
		return err
	}
	return sink.Classify(ctx, "", err, permanent)
}

// permanent reports a broker refusal no retry can fix, or a certificate
// the spec's tls settings must change to trust.
func permanent(err error) bool {
	if _, ok := errors.AsType[*tls.CertificateVerificationError](err); ok {
		return true
	}
	for _, p := range permanentKafka {
		if errors.Is(err, p) {
			return true
		}
	}
	return false
}
