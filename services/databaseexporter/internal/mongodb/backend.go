package mongodb

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"regexp"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
)

// Defaults of the Backend options.
const (
	// DefaultServerSelectionTimeout is how long an operation waits for a
	// usable server before failing.
	DefaultServerSelectionTimeout = 30 * time.Second
	// DefaultBatchSize is the number of writes sent in one bulk write.
	DefaultBatchSize = 1000
)

// The patterns of the API (api/v1alpha1 MongoDBSink), checked again here
// because the spec reaches the exporter as JSON.
var (
	databasePattern   = regexp.MustCompile(`^[^/\\. "$*<>:|?]{1,63}$`)
	collectionPattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]{0,119}$`)
)

// Backend creates mongodb sinks.
type Backend struct {
	// Egress is the address policy every connection is dialed through.
	Egress egress.Policy
	// ServerSelectionTimeout bounds the wait for a usable server (zero:
	// DefaultServerSelectionTimeout). An address the policy refuses is
	// reported only when it expires.
	ServerSelectionTimeout time.Duration
	// BatchSize is the number of writes per bulk write (zero:
	// DefaultBatchSize).
	BatchSize int
}

// Type returns "mongodb".
func (b Backend) Type() string { return string(v1alpha1.DatabaseMongoDB) }

// New returns a sink writing to the collection cfg names. The client
// connects lazily: New fails only on an invalid spec or unreadable Secrets.
func (b Backend) New(ctx context.Context, cfg busv1.SinkConfig, creds backend.Credentials) (sink.Sink, error) {
	spec, err := decodeSpec(cfg.Spec)
	if err != nil {
		return nil, err
	}
	opts, err := b.clientOptions(ctx, spec, cfg.Namespace, creds)
	if err != nil {
		return nil, err
	}
	client, err := mongo.Connect(opts)
	if err != nil {
		return nil, sink.Permanent(fmt.Errorf("configure mongodb client: %w", err))
	}
	batch := b.BatchSize
	if batch <= 0 {
		batch = DefaultBatchSize
	}
	db := client.Database(spec.MongoDB.Database)
	return &Sink{
		client:      client,
		data:        db.Collection(spec.MongoDB.Collection),
		state:       db.Collection(spec.MongoDB.Collection + StateSuffix),
		ensure:      spec.Provisioning == nil || spec.Provisioning.Mode != v1alpha1.ProvisionExisting,
		batch:       batch,
		deleteChunk: DefaultDeleteChunk,
		seed:        maphash.MakeSeed(),
		database:    spec.MongoDB.Database,
	}, nil
}

// decodeSpec decodes a database sink spec of type mongodb
// (backend.DecodeSpec) and checks the names New relies on.
func decodeSpec(raw json.RawMessage) (v1alpha1.KollectDatabaseSinkSpec, error) {
	spec, err := backend.DecodeSpec[v1alpha1.KollectDatabaseSinkSpec](busv1.SinkConfig{Spec: raw}, string(v1alpha1.DatabaseMongoDB))
	if err != nil {
		return spec, err
	}
	return spec, validate(spec)
}

// validate checks the names New relies on (the API's patterns, checked
// again: they become database and collection names); each error names the
// field.
func validate(spec v1alpha1.KollectDatabaseSinkSpec) error {
	switch {
	case !databasePattern.MatchString(spec.MongoDB.Database):
		return sink.Permanent(fmt.Errorf("spec.mongodb.database: %q is not a valid database name", spec.MongoDB.Database))
	case !collectionPattern.MatchString(spec.MongoDB.Collection):
		return sink.Permanent(fmt.Errorf("spec.mongodb.collection: %q is not a valid collection name", spec.MongoDB.Collection))
	}
	return nil
}

// clientOptions builds the driver options: the endpoint (or the Secret's
// connection string), the Secret's credentials, the egress dialer and TLS.
func (b Backend) clientOptions(ctx context.Context, spec v1alpha1.KollectDatabaseSinkSpec, namespace string, creds backend.Credentials) (*options.ClientOptions, error) {
	secretURI, from, err := connectionString(ctx, spec, namespace, creds)
	if err != nil {
		return nil, err
	}
	base := spec.Endpoint
	if base == "" {
		base = secretURI
	}
	if err := refuseLocalOptions(spec.Endpoint, "spec.endpoint"); err != nil {
		return nil, err
	}
	if err := refuseLocalOptions(secretURI, "the connection string in "+from); err != nil {
		return nil, err
	}
	opts := options.Client().ApplyURI(base)
	if err := opts.Validate(); err != nil {
		if base == secretURI {
			// The driver's message may quote the string, credentials included.
			return nil, sink.Permanent(fmt.Errorf("parse the connection string in %s: invalid MongoDB URI", from))
		}
		// The driver's message may quote the endpoint, with its user
		// information: never pass that on.
		return nil, sink.Permanent(fmt.Errorf("parse spec.endpoint: %s", bus.RedactURL(err.Error())))
	}
	if spec.Endpoint != "" && secretURI != "" {
		auth := options.Client().ApplyURI(secretURI)
		if auth.Validate() != nil {
			return nil, sink.Permanent(fmt.Errorf("parse the connection string in %s: invalid MongoDB URI", from))
		}
		if auth.Auth != nil {
			opts.SetAuth(*auth.Auth)
		}
	}
	tlsCfg, err := egress.TLSConfig(ctx, spec.TLS, namespace, creds)
	if err != nil {
		return nil, err
	}
	if tlsCfg != nil {
		opts.SetTLSConfig(tlsCfg)
	}
	timeout := b.ServerSelectionTimeout
	if timeout <= 0 {
		timeout = DefaultServerSelectionTimeout
	}
	// The HTTP client serves the driver's OCSP responder requests (URLs from
	// the server's certificate) and cloud auth mechanisms: through the
	// policy too.
	return opts.SetDialer(b.Egress.Dialer()).SetHTTPClient(b.Egress.HTTPClient(nil)).
		SetServerSelectionTimeout(timeout).SetAppName("kollect"), nil
}

// connectionString reads the connection string from mongodb.databaseRef, or
// from secretRef's key uri or dsn; it returns "" when neither is set, and
// from names where it came from, for error messages.
func connectionString(ctx context.Context, spec v1alpha1.KollectDatabaseSinkSpec, namespace string, creds backend.Credentials) (uri, from string, err error) {
	if ref := spec.MongoDB.DatabaseRef; ref != nil {
		data, err := backend.SecretData(ctx, creds, namespace, &v1alpha1.SecretReference{Name: ref.Name, Namespace: ref.Namespace}, ref.Key)
		if err != nil {
			return "", "", err
		}
		return string(data[ref.Key]), fmt.Sprintf("Secret %s key %s", ref.Name, ref.Key), nil
	}
	data, err := backend.SecretData(ctx, creds, namespace, spec.SecretRef)
	if err != nil || data == nil {
		return "", "", err
	}
	for _, key := range []string{"uri", "dsn"} {
		if v := data[key]; len(v) > 0 {
			return string(v), fmt.Sprintf("Secret %s key %s", spec.SecretRef.Name, key), nil
		}
	}
	return "", "", backend.MissingKey(cmp.Or(spec.SecretRef.Namespace, namespace), spec.SecretRef.Name, "uri", "dsn")
}
