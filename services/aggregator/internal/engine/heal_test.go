package engine

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
)

// runRebuilding runs engines the way aggregator.RunWith does: a run that
// ends with bus.ErrReset is followed by a new engine. It returns the engine
// running now.
func (b *bed) runRebuilding(opts Options) func() *probe {
	b.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var cur atomic.Pointer[probe]
	var wg sync.WaitGroup
	wg.Go(func() {
		for ctx.Err() == nil {
			e, err := newProbe(ctx, b.js, opts)
			if err != nil {
				b.t.Errorf("new engine: %v", err)
				return
			}
			cur.Store(e)
			err = e.Run(ctx)
			if err != nil && !errors.Is(err, bus.ErrReset) {
				b.t.Errorf("engine: %v", err)
				return
			}
		}
	})
	b.t.Cleanup(func() { cancel(); wg.Wait() })
	waitFor(b.t, "the first engine", func() bool { return cur.Load() != nil })
	return cur.Load
}

// loseBucket deletes a KV bucket and provisions the bus again, as after a
// NATS store loss and control's re-provisioning.
func (b *bed) loseBucket(bucket string) {
	b.t.Helper()
	ctx := context.Background()
	if err := b.js.DeleteKeyValue(ctx, bucket); err != nil {
		b.t.Fatal(err)
	}
	if err := bus.Provision(ctx, b.js, bus.DefaultOptions()); err != nil {
		b.t.Fatal(err)
	}
	var err error
	if b.rows, err = b.js.KeyValue(ctx, bus.BucketRows); err != nil {
		b.t.Fatal(err)
	}
	if b.cfg, err = b.js.KeyValue(ctx, bus.BucketConfig); err != nil {
		b.t.Fatal(err)
	}
}

// H2: a rows bucket lost and refilled must not publish the partial refill
// (sinks would drop the rows not written back yet): publishes wait for the
// collector's rows-synced marker.
func TestARefilledRowsBucketPublishesOnlyOnceTheCollectorSynced(t *testing.T) {
	b := newBed(t, nil)
	inv := nsInventory("team-a", "inv", binding("kafka", 0))
	b.putInventory(inv)
	b.putRow(mkRow("team-a", "web", "u1", 1))
	b.putRow(mkRow("team-a", "web", "u2", 1))
	current := b.runRebuilding(Options{Settle: 5 * time.Millisecond, BusCheckInterval: 20 * time.Millisecond})
	first := current()
	waitFor(t, "the first snapshot", func() bool { return first.events.Load() == 1 })

	b.loseBucket(bus.BucketRows)
	waitFor(t, "an engine rebuilt from the new rows bucket", func() bool {
		e := current()
		return e != first && e.started.Load()
	})
	rebuilt := current()
	rev := b.putRow(mkRow("team-a", "web", "u1", 1)) // the collector refills, one row so far
	waitFor(t, "the partial refill applied and settled", func() bool {
		return rebuilt.rowsRev.Load() >= rev && rebuilt.settled.Load() >= 2
	})
	if n := rebuilt.events.Load(); n != 0 {
		t.Fatalf("%d events published from a partially refilled rows bucket", n)
	}

	// Every collector shard but the last is synced; the rest of the refill
	// lands after their markers, one row changed meanwhile.
	const shards = bus.DefaultCollectorShards
	for i := range shards - 1 {
		if _, err := b.rows.Put(context.Background(), bus.RowsSyncedShardKey(shards, i), []byte("now")); err != nil {
			t.Fatal(err)
		}
	}
	checks := rebuilt.settled.Load()
	rev = b.putRow(mkRow("team-a", "web", "u2", 2))
	waitFor(t, "the refill applied and settled", func() bool {
		return rebuilt.rowsRev.Load() >= rev && rebuilt.settled.Load() > checks
	})
	if n := rebuilt.events.Load(); n != 0 {
		t.Fatalf("%d events published while the marker of one of %d collector shards was missing", n, shards)
	}
	if _, err := b.rows.Put(context.Background(), bus.RowsSyncedShardKey(shards, shards-1), []byte("now")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the change published once every shard is synced", func() bool { return rebuilt.events.Load() == 1 })
	evs := b.history(key("team-a", "inv"))
	for _, ev := range evs {
		if ev.Event.ItemCount != 2 {
			t.Errorf("revision %d has %d items; every snapshot must hold both rows", ev.Event.Revision, ev.Event.ItemCount)
		}
	}
	if got := lastRevision(t, evs); got != 2 {
		t.Fatalf("revision %d after the refill, want 2", got)
	}
}

// H2: an inventory config that vanished while the config bucket lacks its
// marker may be lost, not deleted: no final empty snapshot until control
// says the config is complete and the entry is still missing.
func TestAnInventoryMissingFromAnIncompleteConfigIsNotDeleted(t *testing.T) {
	b := newBed(t, nil)
	inv := nsInventory("team-a", "inv", binding("kafka", 0))
	inv.DeletionPolicy = busv1.DeletionDelete
	b.putInventory(inv)
	b.putRow(mkRow("team-a", "web", "u1", 1))
	e := b.start(Options{Settle: 5 * time.Millisecond})
	waitFor(t, "the first snapshot", func() bool { return e.events.Load() == 1 })

	if err := b.cfg.Delete(context.Background(), bus.ConfigCompleteKey); err != nil {
		t.Fatal(err)
	}
	b.deleteInventory(inv)
	rev := b.putInventory(nsInventory("team-b", "other")) // a later entry: the deletion was applied before it
	waitFor(t, "the deletion seen", func() bool { return e.cfgRev.Load() >= rev })
	waitFor(t, "the other inventory's first snapshot", func() bool { return e.events.Load() == 2 })
	if last := b.history(key("team-a", "inv")); last[len(last)-1].Event.Reason == busv1.ReasonDeleted {
		t.Fatal("the final empty snapshot was published while the config was incomplete")
	}

	if _, err := b.cfg.Put(context.Background(), bus.ConfigCompleteKey, []byte("now")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the final snapshot once the config is complete", func() bool {
		evs := b.history(key("team-a", "inv"))
		return evs[len(evs)-1].Event.Reason == busv1.ReasonDeleted
	})
}

// H1: the snapshot history and the export state can both be lost with the
// NATS store; the inventory's status (in etcd) still knows the last
// revision, and control passes it in the config.
func TestRevisionsContinueAboveTheStatusFloor(t *testing.T) {
	b := newBed(t, nil)
	inv := nsInventory("team-a", "inv", binding("kafka", 0))
	inv.RevisionFloor = 7
	b.putInventory(inv)
	b.putExportState(key("team-a", "inv"), inv.Bindings[0].SinkRef, 3)
	b.putRow(mkRow("team-a", "web", "u1", 1))
	e := b.start(Options{Settle: 5 * time.Millisecond})
	waitFor(t, "the first snapshot", func() bool { return e.events.Load() == 1 })
	// The status trails the sinks: the sequence jumps past a margin rather
	// than risk repeating a revision a sink holds.
	if got, want := lastRevision(t, b.history(key("team-a", "inv"))), uint64(7+StatusFloorMargin+1); got != want {
		t.Fatalf("revision %d with a status floor of 7, want %d", got, want)
	}
}
