package postgres

import (
	"context"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/sink"
)

// Sink keeps one PostgreSQL table equal to the latest snapshot of every
// inventory written to it. It implements sink.Sink, sink.Checker,
// sink.DeltaWriter and sink.DriftChecker, and is safe for concurrent writes of different
// inventories.
type Sink struct {
	pool *pgxpool.Pool
	t    table
	mode v1alpha1.ProvisioningMode
	// noMerge merges re-exports as for a server without MERGE (tests).
	noMerge bool
	// bufferBytes replaces streamBufferBytes when set (tests).
	bufferBytes int

	mu          sync.Mutex
	provisioned bool // ensured or verified since the sink was opened
	hashed      bool // the state table has the rows hash column
}

// Table returns the sanitized, schema-qualified name of the rows table.
func (k *Sink) Table() string { return k.t.rows }

// StateTable returns the sanitized, schema-qualified name of the state
// table.
func (k *Sink) StateTable() string { return k.t.state }

// Check connects, runs SELECT 1 and, in provisioning mode existing,
// verifies the tables and their columns. It creates nothing.
func (k *Sink) Check(ctx context.Context) error {
	err := k.pool.AcquireFunc(ctx, func(c *pgxpool.Conn) error {
		var one int
		if err := c.QueryRow(ctx, `SELECT 1`).Scan(&one); err != nil {
			return fmt.Errorf("select 1: %w", err)
		}
		if k.mode == v1alpha1.ProvisionExisting {
			_, err := k.t.verify(ctx, c)
			return err
		}
		return nil
	})
	return classify(ctx, fmt.Sprintf("check postgres table %s", k.t), err, k.mode)
}

// Close closes the connection pool, waiting for connections in use.
func (k *Sink) Close(context.Context) error {
	k.pool.Close()
	return nil
}

// provision ensures (mode ensure) or verifies (mode existing) the tables
// once per sink; a failure is retried on the next write.
func (k *Sink) provision(ctx context.Context) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.provisioned {
		return nil
	}
	var err error
	hashed := true
	if k.mode == v1alpha1.ProvisionExisting {
		hashed, err = k.t.verify(ctx, k.pool)
	} else {
		err = pgx.BeginFunc(ctx, k.pool, func(tx pgx.Tx) error { return k.t.ensure(ctx, tx) })
	}
	if err != nil {
		return err
	}
	k.provisioned, k.hashed = true, hashed
	return nil
}

// hashes reports whether the state table keeps the rows hash (hashColumn);
// known once provisioned.
func (k *Sink) hashes() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.hashed
}

// forgetProvisioning makes the next write provision again, after the table
// was found missing.
func (k *Sink) forgetProvisioning() {
	k.mu.Lock()
	k.provisioned = false
	k.mu.Unlock()
}

// Write makes the table hold exactly s for its (cluster, inventory), in one
// transaction; see the package documentation.
func (k *Sink) Write(ctx context.Context, s sink.Snapshot) error {
	return k.export(ctx, s, false)
}

// WriteDelta applies s.Delta when the table holds its base revision and
// checksum, and otherwise loads the full snapshot (s.WithFull) and writes it
// as Write does.
func (k *Sink) WriteDelta(ctx context.Context, s sink.Snapshot) error {
	return k.export(ctx, s, s.Delta != nil)
}

// StreamsRows makes the runtime hand full writes the snapshot's rows as a
// stream (sink.RowStreamer): they are copied into the table as they are
// read from the bus, a chunk at a time.
func (k *Sink) StreamsRows() bool { return true }

// streamBuffer is the most row bytes a streamed full write into an empty
// scope buffers to copy them in key order.
func (k *Sink) streamBuffer() int {
	if k.bufferBytes > 0 {
		return k.bufferBytes
	}
	return streamBufferBytes
}
