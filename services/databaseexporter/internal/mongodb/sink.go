package mongodb

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
)

// Sink writes inventories to one MongoDB collection. It implements
// sink.Sink, sink.Checker, sink.DeltaWriter and sink.DriftChecker.
type Sink struct {
	client   *mongo.Client
	data     *mongo.Collection
	state    *mongo.Collection
	database string
	ensure   bool
	batch    int
	// deleteChunk is the most _ids one delete names (DefaultDeleteChunk).
	deleteChunk int
	// seed hashes stored rows for comparison within one write.
	seed maphash.Seed

	mu          sync.Mutex
	provisioned bool
	// identityDeferred is set in ensure mode while documents of the earlier
	// layout keep the unique identity index from being built.
	identityDeferred bool
	// identityRetry is set when creating the identity index failed after
	// the collections were provisioned: the next write retries it.
	identityRetry bool

	// afterData, when set (tests), runs between the data write and the
	// state record; an error it returns aborts the write there, as a crash
	// would. beforeData runs between marking the write pending and the
	// data write of Write.
	afterData, beforeData func() error
}

// Write makes the collection hold exactly s for its (cluster, inventory).
func (s *Sink) Write(ctx context.Context, snap sink.Snapshot) error {
	env := snap.Envelope
	if err := sink.CheckRevision(env.Revision); err != nil {
		return err
	}
	if err := s.prepare(ctx); err != nil {
		return err
	}
	if snap.Deleted {
		return s.remove(ctx, env)
	}
	st, found, err := s.readState(ctx, env)
	if err != nil {
		return err
	}
	if found && skip(st, env, snap.Replay, snap.Repair) {
		return nil
	}
	if found && !snap.Repair && st.holds() && st.Checksum == env.Checksum {
		// Same rows under a new revision: only the state moves.
		return s.recordState(ctx, env, snap.Replay)
	}
	if err := s.markPending(ctx, env); err != nil {
		return err
	}
	if s.beforeData != nil {
		if err := s.beforeData(); err != nil {
			return err
		}
	}
	converted, err := s.writeAll(ctx, snap)
	if err != nil {
		return err
	}
	if s.afterData != nil {
		if err := s.afterData(); err != nil {
			return err
		}
	}
	if err := s.recordState(ctx, env, snap.Replay); err != nil {
		return err
	}
	if converted {
		// Documents of the earlier layout may have been what kept the
		// unique identity index from being built.
		return s.retryIdentityIndex(ctx)
	}
	return nil
}

// WriteDelta applies s.Delta when the collection holds its base for the
// inventory, and otherwise loads the full snapshot (s.WithFull) and falls
// back to Write.
func (s *Sink) WriteDelta(ctx context.Context, snap sink.Snapshot) error {
	env, d := snap.Envelope, snap.Delta
	if d == nil || snap.Deleted || snap.Replay {
		return s.writeFull(ctx, snap)
	}
	if err := sink.CheckRevision(env.Revision); err != nil {
		return err
	}
	if err := s.prepare(ctx); err != nil {
		return err
	}
	st, found, err := s.readState(ctx, env)
	if err != nil {
		return err
	}
	if !found || !st.holds() || st.Revision != sink.Revision64(d.BaseRevision) || st.Checksum != d.BaseChecksum {
		if found && skip(st, env, false, false) {
			return nil
		}
		return s.writeFull(ctx, snap)
	}
	if err := s.markPending(ctx, env); err != nil {
		return err
	}
	var c changes
	for _, r := range d.Upserts {
		raw, err := encodeRow(r)
		if err != nil {
			return err
		}
		c.replace = append(c.replace, change{id: documentID(env, r.Key()), row: r, raw: raw})
	}
	for _, k := range d.Deletes {
		c.delete = append(c.delete, documentID(env, k))
	}
	if err := s.apply(ctx, env, c); err != nil {
		return err
	}
	if s.afterData != nil {
		if err := s.afterData(); err != nil {
			return err
		}
	}
	return s.recordState(ctx, env, false)
}

// StreamsRows makes the runtime hand full writes the rows as a stream
// (sink.RowStreamer): Write reads them one at a time.
func (s *Sink) StreamsRows() bool { return true }

// writeFull writes snap with Write, loading its items first when WriteDelta
// was handed the header only and no stream of its rows.
func (s *Sink) writeFull(ctx context.Context, snap sink.Snapshot) error {
	if snap.Stream != nil {
		return s.Write(ctx, snap)
	}
	full, err := snap.WithFull(ctx)
	if err != nil {
		return fmt.Errorf("write %s to mongodb: %w", snap.Envelope.Inventory, err)
	}
	return s.Write(ctx, full)
}

// skip reports whether env is older than what the state records (or what an
// interrupted write was applying) and not a replay, or is exactly what a
// completed write recorded in the current layout and not a repair.
func skip(st state, env busv1.Envelope, replay, repair bool) bool {
	rev := sink.Revision64(env.Revision)
	if !replay && (rev < st.Revision || (st.Pending && rev < st.PendingRevision)) {
		return true
	}
	return !repair && st.holds() && rev == st.Revision && env.Checksum == st.Checksum
}

// remove deletes the inventory's documents, of either layout, and then its
// state. The documents are deleted by ranges of _ids: FerretDB fails to
// delete more than 32,766 documents at once.
func (s *Sink) remove(ctx context.Context, env busv1.Envelope) error {
	have, err := s.readScope(ctx, env, false)
	if err != nil {
		return err
	}
	ids := make([]string, 0, len(have.rows))
	for id := range have.rows {
		ids = append(ids, id)
	}
	if err := s.deleteScope(ctx, env, ids); err != nil {
		return fmt.Errorf("remove the deleted inventory: %w", err)
	}
	if have.legacy {
		if _, err := s.data.DeleteMany(ctx, append(scope(env), legacyID...)); err != nil {
			return classify(ctx, "delete documents of the earlier layout of the deleted inventory", err)
		}
	}
	if _, err := s.state.DeleteOne(ctx, bson.D{{Key: "_id", Value: stateID(env)}}); err != nil {
		return classify(ctx, "delete state of the deleted inventory", err)
	}
	return nil
}

// Check pings the server and verifies, or in ensure mode creates, the
// collections, without writing documents.
func (s *Sink) Check(ctx context.Context) error {
	if err := s.ping(ctx); err != nil {
		return classify(ctx, "ping mongodb", err)
	}
	return s.prepare(ctx)
}

// ping pings the server. When another operation's failure (refused
// credentials, say) cleared the connection pool first, the driver answers
// with a pool-cleared error that hides the cause; the ping is repeated, up to
// twice, so that a connection test reports the cause itself.
func (s *Sink) ping(ctx context.Context) error {
	var err error
	for range 3 {
		err = s.client.Ping(ctx, nil)
		var pe driver.RetryablePoolError
		if err == nil || !errors.As(err, &pe) || !pe.Retryable() {
			return err
		}
	}
	return err
}

// Close disconnects the client.
func (s *Sink) Close(ctx context.Context) error {
	if err := s.client.Disconnect(ctx); err != nil {
		return fmt.Errorf("disconnect mongodb: %w", err)
	}
	return nil
}
