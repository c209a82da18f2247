package querytest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/history"
	"kollect.dev/kollect/pkg/snapshot"
)

// Publisher publishes the revisions of one inventory in order.
type Publisher struct {
	js   jetstream.JetStream
	w    *history.Writer
	inv  busv1.NamespacedName
	last *busv1.SnapshotEvent
	rows map[busv1.RowKey]busv1.Row
	seq  uint64
	// Written counts the object bytes written (chunks and manifests).
	Written int64
	// NoDelta publishes events without a delta, as after an aggregator
	// restart that lost its base: readers must compare whole revisions.
	NoDelta bool
	// Inline publishes the rows in the event (an inline envelope), as the
	// aggregator does for a snapshot that fits in one message, instead of
	// as chunks and a manifest.
	Inline bool
	// UID is stamped on the events as the publishing inventory's uid
	// (empty: unstamped, as from a release before stamping).
	UID string
}

// NewPublisher returns a Publisher of inv's history on a provisioned bus.
func NewPublisher(ctx context.Context, js jetstream.JetStream, inv busv1.NamespacedName) (*Publisher, error) {
	w, err := history.NewWriter(ctx, js)
	if err != nil {
		return nil, err
	}
	return &Publisher{js: js, w: w, inv: inv}, nil
}

// Publish publishes rows as the next revision, created at at, with reason
// change (deleted when rows is nil), and returns its event.
func (p *Publisher) Publish(ctx context.Context, rows []busv1.Row, at time.Time) (*busv1.SnapshotEvent, error) {
	rows = slices.Clone(rows)
	ref, m, written, err := p.w.WriteManifest(ctx, p.inv, history.RowsSource(rows))
	if err != nil {
		return nil, err
	}
	p.Written += written
	ev := &busv1.SnapshotEvent{Inventory: p.inv, InventoryUID: p.UID, Revision: 1, Generation: 1, Checksum: m.Checksum, ItemCount: m.ItemCount,
		CreatedAt: at.UTC(), Reason: busv1.ReasonChange, ManifestRef: ref, Bindings: []busv1.Binding{}}
	if rows == nil {
		ev.Reason = busv1.ReasonDeleted
	}
	if p.Inline {
		ev.ManifestRef = nil
		ev.Envelope = &busv1.Envelope{SchemaVersion: busv1.SchemaVersion, Checksum: m.Checksum, Inventory: p.inv,
			ItemCount: m.ItemCount, Items: rows}
	}
	next := make(map[busv1.RowKey]busv1.Row, len(rows))
	for _, r := range rows {
		next[r.Key()] = r
	}
	if p.last != nil {
		ev.Revision, ev.PreviousChecksum = p.last.Revision+1, p.last.Checksum
		if !p.NoDelta {
			ev.Delta = delta(p.last, p.rows, next)
		}
	}
	if ev.Envelope != nil {
		ev.Envelope.Revision, ev.Envelope.Generation, ev.Envelope.PreviousChecksum = ev.Revision, ev.Generation, ev.PreviousChecksum
	}
	if err := p.publish(ctx, ev); err != nil {
		return nil, err
	}
	p.last, p.rows = ev, next
	return ev, nil
}

// Recreated publishes the next revisions as a new inventory of the same
// name with uid: numbered from 1 again, with no previous checksum and no
// delta, on the subject that still holds its predecessor's events.
func (p *Publisher) Recreated(uid string) {
	p.UID, p.last, p.rows = uid, nil, nil
}

// Periodic re-publishes the last revision at at, as the aggregator's
// periodic re-export does.
func (p *Publisher) Periodic(ctx context.Context, at time.Time) error {
	ev := *p.last
	ev.CreatedAt, ev.Reason, ev.Delta = at.UTC(), busv1.ReasonPeriodic, nil
	return p.publish(ctx, &ev)
}

func (p *Publisher) publish(ctx context.Context, ev *busv1.SnapshotEvent) error {
	data, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("encode event: %w", err)
	}
	ack, err := p.js.PublishMsg(ctx, &nats.Msg{Subject: bus.SnapshotSubject(p.inv), Data: data},
		jetstream.WithMsgID(bus.SnapshotMsgID(*ev)), jetstream.WithExpectLastSequencePerSubject(p.seq))
	if err != nil {
		return fmt.Errorf("publish %s revision %d: %w", p.inv, ev.Revision, err)
	}
	p.seq = ack.Sequence
	return nil
}

// delta is the change from before (the rows of base) to after.
func delta(base *busv1.SnapshotEvent, before, after map[busv1.RowKey]busv1.Row) *busv1.Delta {
	d := &busv1.Delta{BaseRevision: base.Revision, BaseChecksum: base.Checksum, Upserts: []busv1.Row{}, Deletes: []busv1.RowKey{}}
	for k, r := range after {
		if b, ok := before[k]; !ok || !same(&b, &r) {
			d.Upserts = append(d.Upserts, r)
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			d.Deletes = append(d.Deletes, k)
		}
	}
	snapshot.Sort(d.Upserts)
	slices.SortFunc(d.Deletes, func(a, b busv1.RowKey) int {
		return busv1.CompareRows(busv1.Row{TargetNamespace: a.TargetNamespace, TargetName: a.TargetName, UID: a.UID},
			busv1.Row{TargetNamespace: b.TargetNamespace, TargetName: b.TargetName, UID: b.UID})
	})
	return d
}

func same(a, b *busv1.Row) bool {
	x, errX := snapshot.Canonical(a)
	y, errY := snapshot.Canonical(b)
	return errX == nil && errY == nil && string(x) == string(y)
}

// StorageBytes returns the bytes the history takes on the bus: the
// snapshot stream's and the envelope object store's.
func StorageBytes(ctx context.Context, js jetstream.JetStream) (stream, objects uint64, err error) {
	for _, name := range []string{bus.StreamSnapshots, bus.ObjectStoreStreamName(bus.ObjectStoreEnvelopes)} {
		s, err := js.Stream(ctx, name)
		if err != nil {
			return 0, 0, fmt.Errorf("open stream %s: %w", name, err)
		}
		info, err := s.Info(ctx)
		if err != nil {
			return 0, 0, fmt.Errorf("read stream %s: %w", name, err)
		}
		if name == bus.StreamSnapshots {
			stream = info.State.Bytes
		} else {
			objects = info.State.Bytes
		}
	}
	return stream, objects, nil
}
