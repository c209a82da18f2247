package kafka

import (
	"context"
	"crypto/tls"
	"fmt"
	"math"
	"net"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
)

// DefaultMaxRecordBytes is the largest record value sent when neither the
// binding (sink.Snapshot.MaxExportBytes) nor the Backend sets one: 1 MB,
// below Kafka's default message.max.bytes (1048588) with room for the key,
// headers and batch framing.
const DefaultMaxRecordBytes = 1_000_000

// Backend creates kafka sinks. It implements backend.Backend.
type Backend struct {
	// Egress is the address policy every broker connection goes through.
	Egress egress.Policy
	// MaxRecordBytes caps a record's value, and sets the producer's batch
	// limit to it plus 16 KiB of framing; zero means
	// DefaultMaxRecordBytes. Raise it only for brokers whose
	// message.max.bytes allows it. A binding's maxExportBytes lowers the
	// cap for its snapshots, never raises it.
	MaxRecordBytes int
	// DeliveryTimeout bounds the delivery of one export's records; zero
	// means one minute.
	DeliveryTimeout time.Duration
}

// Type returns "kafka".
func (b Backend) Type() string { return string(v1alpha1.EventKafka) }

// New returns a kafka sink for cfg. It connects lazily: the first Write or
// Check dials the brokers, so refused credentials are reported there as
// sink.Permanent errors.
func (b Backend) New(ctx context.Context, cfg busv1.SinkConfig, creds backend.Credentials) (sink.Sink, error) {
	spec, err := backend.DecodeSpec[v1alpha1.KollectEventSinkSpec](cfg, string(v1alpha1.EventKafka))
	if err != nil {
		return nil, fmt.Errorf("kafka sink %s/%s: %w", cfg.Namespace, cfg.Name, err)
	}
	set, err := settingsOf(spec)
	if err != nil {
		return nil, sink.Permanent(fmt.Errorf("kafka sink %s/%s: %w", cfg.Namespace, cfg.Name, err))
	}
	opts, err := b.clientOptions(ctx, cfg, spec, set, creds)
	if err != nil {
		return nil, fmt.Errorf("kafka sink %s/%s: %w", cfg.Namespace, cfg.Name, err)
	}
	auth := &authWatch{}
	cl, err := kgo.NewClient(append(opts, kgo.WithHooks(auth))...)
	if err != nil {
		return nil, sink.Permanent(fmt.Errorf("kafka sink %s/%s: create client: %w", cfg.Namespace, cfg.Name, err))
	}
	return newSink(cl, opts, auth, set, b.maxRecordBytes()), nil
}

func (b Backend) maxRecordBytes() int {
	if b.MaxRecordBytes > 0 {
		return b.MaxRecordBytes
	}
	return DefaultMaxRecordBytes
}

// clientOptions builds the franz-go options: brokers, the policy dialer
// (with TLS on top when enabled), SASL, an idempotent producer with acks
// from all in-sync replicas (franz-go's default) and the batch limit.
func (b Backend) clientOptions(ctx context.Context, cfg busv1.SinkConfig, spec v1alpha1.KollectEventSinkSpec, set settings,
	creds backend.Credentials) ([]kgo.Opt, error) {
	timeout := b.DeliveryTimeout
	if timeout <= 0 {
		timeout = time.Minute
	}
	opts := []kgo.Opt{
		kgo.SeedBrokers(set.brokers...),
		kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.ProducerBatchMaxBytes(int32(min(b.maxRecordBytes()+16<<10, math.MaxInt32))), //nolint:gosec // G115: clamped on the line itself
		kgo.RecordDeliveryTimeout(timeout),
		kgo.ProducerLinger(0),
		kgo.ClientID("kollect-eventexporter"),
	}
	var tlsCfg *tls.Config
	if set.tls {
		var err error
		if tlsCfg, err = egress.TLSConfig(ctx, spec.TLS, cfg.Namespace, creds); err != nil {
			return nil, err
		}
		if tlsCfg == nil {
			tlsCfg = &tls.Config{MinVersion: tls.VersionTLS12}
		}
	}
	opts = append(opts, kgo.Dialer(dialer(b.Egress, tlsCfg)))
	if set.mechanism != "" {
		m, err := mechanism(ctx, cfg.Namespace, spec.SecretRef, set.mechanism, creds)
		if err != nil {
			return nil, err
		}
		opts = append(opts, kgo.SASL(m))
	}
	return opts, nil
}

// dialer dials every broker through the policy and, when tlsCfg is set,
// runs the TLS handshake on that connection. franz-go refuses Dialer and
// DialTLSConfig together, so TLS is layered here, with the server name
// taken from the broker address as DialTLSConfig would.
func dialer(p egress.Policy, tlsCfg *tls.Config) func(ctx context.Context, network, host string) (net.Conn, error) {
	if tlsCfg == nil {
		return p.DialContext
	}
	return func(ctx context.Context, network, host string) (net.Conn, error) {
		c := tlsCfg.Clone()
		if c.ServerName == "" {
			server, _, err := net.SplitHostPort(host)
			if err != nil {
				return nil, fmt.Errorf("dial %s: %w", host, err)
			}
			c.ServerName = server
		}
		return (&tls.Dialer{NetDialer: p.Dialer(), Config: c}).DialContext(ctx, network, host)
	}
}

// mechanism reads username and password from the sink's Secret and returns
// the SASL mechanism named by kafka.sasl.mechanism.
func mechanism(ctx context.Context, namespace string, ref *v1alpha1.SecretReference, name string,
	creds backend.Credentials) (sasl.Mechanism, error) {
	if ref == nil {
		return nil, sink.Permanent(fmt.Errorf("kafka.sasl needs secretRef, the Secret holding username and password"))
	}
	data, err := backend.SecretData(ctx, creds, namespace, ref, "username", "password")
	if err != nil {
		return nil, fmt.Errorf("kafka.sasl: %w", err)
	}
	user, pass := string(data["username"]), string(data["password"])
	switch name {
	case "PLAIN":
		return plain.Auth{User: user, Pass: pass}.AsMechanism(), nil
	case "SCRAM-SHA-256":
		return scram.Auth{User: user, Pass: pass}.AsSha256Mechanism(), nil
	default: // SCRAM-SHA-512, the CRD's enum
		return scram.Auth{User: user, Pass: pass}.AsSha512Mechanism(), nil
	}
}
