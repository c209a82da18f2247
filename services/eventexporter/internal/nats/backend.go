package nats

import (
	"cmp"
	"context"
	"fmt"
	"net"
	"time"

	"github.com/nats-io/nats.go"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
)

// DefaultDuplicateWindow is the duplicate window of a stream Kollect
// creates: a message with a Nats-Msg-Id seen within it is dropped.
const DefaultDuplicateWindow = 2 * time.Minute

// Backend creates nats sinks. It implements backend.Backend.
type Backend struct {
	// Egress is the address policy every connection goes through.
	Egress egress.Policy
	// MaxMessageBytes caps a message's envelope JSON; zero means the
	// server's max_payload (1 MiB by default) less the headers. A binding's
	// maxExportBytes lowers the cap for its snapshots, and the server's
	// max_payload always bounds it.
	MaxMessageBytes int64
	// DuplicateWindow is the duplicate window of streams created in
	// provisioning mode ensure; zero means DefaultDuplicateWindow.
	DuplicateWindow time.Duration
	// Timeout bounds connecting and each acknowledgement when the
	// context has no earlier deadline; zero means 10 seconds.
	Timeout time.Duration
}

// Type returns "nats".
func (b Backend) Type() string { return string(v1alpha1.EventNATS) }

// New returns a nats sink for cfg. It connects lazily: the first Write or
// Check connects, so refused credentials are reported there as
// sink.Permanent errors.
func (b Backend) New(ctx context.Context, cfg busv1.SinkConfig, creds backend.Credentials) (sink.Sink, error) {
	spec, err := backend.DecodeSpec[v1alpha1.KollectEventSinkSpec](cfg, string(v1alpha1.EventNATS))
	if err != nil {
		return nil, fmt.Errorf("nats sink %s/%s: %w", cfg.Namespace, cfg.Name, err)
	}
	set, err := settingsOf(spec)
	if err != nil {
		return nil, sink.Permanent(fmt.Errorf("nats sink %s/%s: %w", cfg.Namespace, cfg.Name, err))
	}
	opts, err := b.options(ctx, cfg, spec, creds)
	if err != nil {
		return nil, fmt.Errorf("nats sink %s/%s: %w", cfg.Namespace, cfg.Name, err)
	}
	return &Sink{set: set, opts: opts, maxBytes: b.MaxMessageBytes, window: b.window(), timeout: b.timeout()}, nil
}

func (b Backend) window() time.Duration {
	if b.DuplicateWindow > 0 {
		return b.DuplicateWindow
	}
	return DefaultDuplicateWindow
}

func (b Backend) timeout() time.Duration {
	if b.Timeout > 0 {
		return b.Timeout
	}
	return 10 * time.Second
}

// options are the connection options: the policy dialer, TLS from spec.tls,
// the Secret's credentials, reconnects forever.
func (b Backend) options(ctx context.Context, cfg busv1.SinkConfig, spec v1alpha1.KollectEventSinkSpec,
	creds backend.Credentials) ([]nats.Option, error) {
	opts := []nats.Option{
		nats.Name("kollect-eventexporter " + cfg.Namespace + "/" + cfg.Name),
		nats.SetCustomDialer(dialer{policy: b.Egress, timeout: b.timeout()}),
		nats.Timeout(b.timeout()),
		nats.MaxReconnects(-1),
		nats.NoCallbacksAfterClientClose(),
	}
	tlsCfg, err := egress.TLSConfig(ctx, spec.TLS, cfg.Namespace, creds)
	if err != nil {
		return nil, err
	}
	if tlsCfg != nil {
		opts = append(opts, nats.Secure(tlsCfg))
	}
	auth, err := credentials(ctx, cfg.Namespace, spec.SecretRef, creds)
	if err != nil {
		return nil, err
	}
	return append(opts, auth...), nil
}

// credentials reads the sink's Secret: key "creds" (a user credentials
// file: JWT and NKey seed), else "token", else "username" and "password".
func credentials(ctx context.Context, namespace string, ref *v1alpha1.SecretReference, creds backend.Credentials) ([]nats.Option, error) {
	data, err := backend.SecretData(ctx, creds, namespace, ref)
	if err != nil || data == nil {
		return nil, err
	}
	ns := cmp.Or(ref.Namespace, namespace)
	switch {
	case len(data["creds"]) > 0:
		return []nats.Option{nats.UserCredentialBytes(data["creds"])}, nil
	case len(data["token"]) > 0:
		return []nats.Option{nats.Token(string(data["token"]))}, nil
	case len(data["username"]) > 0 && len(data["password"]) > 0:
		return []nats.Option{nats.UserInfo(string(data["username"]), string(data["password"]))}, nil
	case len(data["username"]) > 0:
		return nil, sink.Permanent(fmt.Errorf("secretRef %s/%s has key \"username\" but no key \"password\"", ns, ref.Name))
	}
	return nil, sink.Permanent(fmt.Errorf("secretRef %s/%s has none of the keys \"token\", \"username\" and \"password\", \"creds\"", ns, ref.Name))
}

// dialer is the nats.CustomDialer that dials through the address policy;
// nats.go runs the TLS handshake on the connection it returns.
type dialer struct {
	policy  egress.Policy
	timeout time.Duration
}

// Dial implements nats.CustomDialer.
func (d dialer) Dial(network, address string) (net.Conn, error) {
	nd := d.policy.Dialer()
	nd.Timeout = d.timeout
	return nd.Dial(network, address)
}
