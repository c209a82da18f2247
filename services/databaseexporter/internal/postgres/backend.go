package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
)

// defaultMaxConns bounds each sink's pool: the runtime writes one inventory
// at a time per binding, so a few connections serve many inventories.
const defaultMaxConns = 4

// Backend creates postgres sinks. It implements backend.Backend.
type Backend struct {
	// Egress is the address policy every connection is dialled through.
	Egress egress.Policy
	// MaxConns bounds each sink's connection pool; zero means 4.
	MaxConns int32
	// Tracer, when set, traces every statement of the sink's connections
	// (pgx calls its CopyFromTracer and BatchTracer methods too when it has
	// them): for profiling, and for the package's benchmarks, which
	// attribute client and server CPU to the phases of an export.
	Tracer pgx.QueryTracer
}

// Type returns "postgres".
func (Backend) Type() string { return string(v1alpha1.DatabasePostgres) }

// New returns the sink of cfg; see Open.
func (b Backend) New(ctx context.Context, cfg busv1.SinkConfig, creds backend.Credentials) (sink.Sink, error) {
	s, err := b.Open(ctx, cfg, creds)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Open decodes and validates cfg.Spec, resolves the connection string from
// the sink's Secrets and returns a sink with an idle connection pool: it
// does not contact the server, which happens on the first Write or Check.
// An invalid spec or a missing Secret key is a sink.Permanent error naming
// the field or the Secret and key.
func (b Backend) Open(ctx context.Context, cfg busv1.SinkConfig, creds backend.Credentials) (*Sink, error) {
	spec, err := decodeSpec(cfg)
	if err != nil {
		return nil, fmt.Errorf("configure postgres sink %s/%s: %w", cfg.Namespace, cfg.Name, err)
	}
	conn, err := connConfig(ctx, spec, cfg.Namespace, creds)
	if err != nil {
		return nil, fmt.Errorf("configure postgres sink %s/%s: %w", cfg.Namespace, cfg.Name, err)
	}
	conn.ConnConfig.DialFunc = b.Egress.DialContext
	conn.ConnConfig.Tracer = b.Tracer
	conn.MaxConns = b.MaxConns
	if conn.MaxConns <= 0 {
		conn.MaxConns = defaultMaxConns
	}
	conn.MinConns = 0
	pool, err := pgxpool.NewWithConfig(ctx, conn)
	if err != nil {
		return nil, fmt.Errorf("configure postgres sink %s/%s: create pool: %w", cfg.Namespace, cfg.Name, err)
	}
	mode := v1alpha1.ProvisionEnsure
	if spec.Provisioning != nil && spec.Provisioning.Mode != "" {
		mode = spec.Provisioning.Mode
	}
	return &Sink{pool: pool, t: newTable(spec.Postgres.Schema, spec.Postgres.Table,
		spec.Postgres.History != nil && spec.Postgres.History.Enabled), mode: mode}, nil
}

// decodeSpec decodes the sink spec (backend.DecodeSpec: strict, of type
// postgres, valid) and checks what this backend relies on beyond it,
// applying the API defaults a hand-written spec may lack.
func decodeSpec(cfg busv1.SinkConfig) (*v1alpha1.KollectDatabaseSinkSpec, error) {
	spec, err := backend.DecodeSpec[v1alpha1.KollectDatabaseSinkSpec](cfg, string(v1alpha1.DatabasePostgres))
	if err != nil {
		return nil, err
	}
	if spec.Postgres.Table == "" {
		return nil, sink.Permanent(errors.New("spec.postgres.table is required"))
	}
	if spec.Postgres.Schema == "" {
		spec.Postgres.Schema = "public"
	}
	for field, v := range map[string]string{"spec.postgres.schema": spec.Postgres.Schema, "spec.postgres.table": spec.Postgres.Table} {
		if len(v) > maxIdentifier {
			return nil, sink.Permanent(fmt.Errorf("%s is longer than %d bytes", field, maxIdentifier))
		}
	}
	return &spec, nil
}
