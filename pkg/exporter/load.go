package exporter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
)

// errSuperseded ends a job that cannot be written and that a newer pending
// job replaces: it is finished without a dead letter.
var errSuperseded = errors.New("superseded by a newer event")

// errObjectMissing marks an attempt that found an object of the event
// missing: retried, without a failure report, until a newer event
// supersedes the job or missingObjectRetries is reached.
var errObjectMissing = errors.New("an object of the snapshot event is missing")

// missingObjectRetries is how many times a missing object is retried before
// the event is dead-lettered: with the default backoff about half a minute,
// enough for a newer event of the inventory, already in the stream when the
// aggregator collected the old objects, to reach the binding.
const missingObjectRetries = 5

// snapshot decides how j is written to s, and only then loads what that
// needs: with a delta that moves the binding from its export state st to
// j's snapshot and a sink.DeltaWriter, a header-only envelope (the manifest
// and chunks are not read unless the sink calls Load); otherwise the full
// envelope. A sink that needs deltas (deltaNeeder) gets one rebuilt from
// the snapshot history when no chained delta applies. A sink.RowStreamer
// gets a header-only envelope for a full write too, and reads the rows
// chunk by chunk (Snapshot.Rows) while it writes them. loads records a
// failure of a later Load or Stream.
func (rt *runtime) snapshot(ctx context.Context, s sink.Sink, st *busv1.ExportState, j *job, cluster string, now time.Time, loads *loadErr) (sink.Snapshot, error) {
	ev := j.d.ev
	snap := sink.Snapshot{Deleted: ev.Reason == busv1.ReasonDeleted, Replay: ev.Replay != nil,
		BackfillStart: ev.Replay != nil && ev.Replay.Backfill && ev.Replay.First, MaxExportBytes: j.binding.MaxExportBytes}
	if _, ok := s.(sink.DeltaWriter); ok {
		d, err := rt.delta(ctx, st, j)
		if err == nil && d == nil && needsDelta(s) {
			d, err = rt.historyDelta(ctx, st, j)
		}
		if err != nil {
			return snap, err
		}
		if d != nil {
			snap.Delta = d
			rt.deferLoad(&snap, j, cluster, now, loads)
			return snap, nil
		}
	}
	if streams(s) {
		rt.deferLoad(&snap, j, cluster, now, loads)
		return snap, nil
	}
	env, err := j.d.envelope(ctx, rt.loader)
	if err != nil {
		return snap, err
	}
	snap.Envelope = env.Stamp(cluster, now)
	return snap, nil
}

// streams reports whether s reads a full write's rows as a stream
// (sink.RowStreamer).
func streams(s sink.Sink) bool {
	rs, ok := s.(sink.RowStreamer)
	return ok && rs.StreamsRows()
}

// deferLoad makes snap header-only: Load reads the full envelope (once for
// every binding of the delivery) and Stream the rows, chunk by chunk and
// for this binding alone, so that a streamed full write holds one chunk at
// a time and nothing after it ends. A failure of either is recorded in
// loads.
func (rt *runtime) deferLoad(snap *sink.Snapshot, j *job, cluster string, now time.Time, loads *loadErr) {
	snap.Envelope = header(j.d.ev).Stamp(cluster, now)
	snap.Load = func(ctx context.Context) (busv1.Envelope, error) {
		env, err := j.d.envelope(ctx, rt.loader)
		if err != nil {
			loads.set(err)
			return busv1.Envelope{}, err
		}
		return env.Stamp(cluster, now), nil
	}
	snap.Stream = func(ctx context.Context) iter.Seq2[json.RawMessage, error] {
		return func(yield func(json.RawMessage, error) bool) {
			for raw, err := range rt.loader.Rows(ctx, j.d.ev) {
				if err != nil {
					loads.set(err)
				}
				if !yield(raw, err) || err != nil {
					return
				}
			}
		}
	}
}

// header is ev's envelope without items (with the event's attribute
// types).
func header(ev *busv1.SnapshotEvent) busv1.Envelope {
	return busv1.Envelope{SchemaVersion: busv1.SchemaVersion, Checksum: ev.Checksum, PreviousChecksum: ev.PreviousChecksum,
		Revision: ev.Revision, Generation: ev.Generation, Inventory: ev.Inventory, ItemCount: ev.ItemCount,
		AttributeTypes: ev.AttributeTypes}
}

// delta returns the delta that moves a binding whose export state is st to
// j's snapshot: the newest event's own delta, or the composition of the
// deltas of j's chain from the event after the state's revision. It is nil,
// and the snapshot is written whole, when no delta applies: no state, a
// replayed state, a replay or deletion, a missing delta, a base that is not
// the state (or the event before it), or a composition larger than
// composeLimit.
func (rt *runtime) delta(ctx context.Context, st *busv1.ExportState, j *job) (*busv1.Delta, error) {
	ev := j.d.ev
	if st == nil || st.Replayed != nil || ev.Replay != nil || ev.Reason == busv1.ReasonDeleted || ev.Delta == nil && ev.DeltaRef == nil {
		return nil, nil
	}
	evs := j.events()
	for k := len(evs) - 2; k >= 0; k-- {
		if evs[k].ev.Revision == st.Revision && evs[k].ev.Checksum == st.Checksum {
			evs = evs[k+1:]
			break
		}
	}
	ds := make([]*busv1.Delta, 0, len(evs))
	baseRev, baseSum, rows := st.Revision, st.Checksum, 0
	for _, d := range evs {
		dl, err := d.delta(ctx, rt.loader)
		if errors.Is(err, jetstream.ErrObjectNotFound) {
			return nil, nil // the manifest, if there, still gives the snapshot
		}
		if err != nil {
			return nil, err
		}
		if dl == nil || dl.BaseRevision != baseRev || dl.BaseChecksum != baseSum {
			return nil, nil
		}
		if rows += len(dl.Upserts) + len(dl.Deletes); len(evs) > 1 && rows > composeLimit(ev.ItemCount) {
			return nil, nil
		}
		ds = append(ds, dl)
		baseRev, baseSum = d.ev.Revision, d.ev.Checksum
	}
	if len(ds) == 1 {
		return ds[0], nil
	}
	return compose(ds), nil
}

// loadFailed classifies a failure to read j's objects. A missing object
// (M10: an old or periodic event whose objects were collected) does not
// dead-letter the binding while a newer event may replace j: superseded at
// once when one is pending, else retried missingObjectRetries times, then
// permanent as before. Other errors (unreachable bus, content that fails
// its digest or the event's checksum) stay transient.
func (rt *runtime) loadFailed(w *worker, j *job, err error) error {
	err = fmt.Errorf("load snapshot %s revision %d: %w", w.inv, j.revision(), err)
	if !errors.Is(err, jetstream.ErrObjectNotFound) {
		return err
	}
	if w.superseded(j) {
		return fmt.Errorf("%w: %w", errSuperseded, err)
	}
	if j.missing++; j.missing <= missingObjectRetries {
		return fmt.Errorf("%w: %w", errObjectMissing, err)
	}
	return sink.Permanent(err)
}

// loadErr keeps the first error of a Load a sink called during its write,
// so that the runtime classifies it as a load failure whatever the sink
// wrapped it in.
type loadErr struct {
	mu  sync.Mutex
	err error
}

func (l *loadErr) set(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err == nil {
		l.err = err
	}
}

func (l *loadErr) get() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}
