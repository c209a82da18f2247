package engine

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
)

// putTypedRow writes r as a collector does: with its Target's declared
// attribute types beside it.
func (b *bed) putTypedRow(r busv1.Row, types busv1.AttributeTypes) uint64 {
	b.t.Helper()
	v, err := json.Marshal(busv1.RowEntry{Row: r, TargetGeneration: 1, ObservedAt: time.Now().UTC(), AttributeTypes: types})
	if err != nil {
		b.t.Fatal(err)
	}
	rev, err := b.rows.Put(context.Background(), bus.RowKey(r.Key()), v)
	if err != nil {
		b.t.Fatal(err)
	}
	return rev
}

// TestSnapshotsCarryTheirTargetsAttributeTypes: a snapshot event carries
// the declared attribute types of the Targets whose rows the inventory
// selects, merged; the types of Targets it does not select, and types that
// Targets declare differently, are left out, and the checksum does not
// depend on them.
func TestSnapshotsCarryTheirTargetsAttributeTypes(t *testing.T) {
	b := newBed(t, nil)
	inv := nsInventory("team-a", "inv", binding("kafka", 0))
	b.putInventory(inv)
	e := b.start(Options{Settle: time.Millisecond})
	waitFor(t, "the empty snapshot", func() bool { return e.events.Load() == 1 })

	web := busv1.AttributeTypes{"v": "int", "image": "string", "labels": "map"}
	db := busv1.AttributeTypes{"v": "int", "image": "any"}
	b.putTypedRow(mkRow("team-a", "web", "w1", 3), web)
	b.putTypedRow(mkRow("team-a", "db", "d1", 4), db)
	b.putTypedRow(mkRow("team-b", "web", "x1", 5), busv1.AttributeTypes{"v": "float"})  // another namespace
	last := b.putTypedRow(mkRow("", "web", "c1", 6), busv1.AttributeTypes{"v": "bool"}) // a ClusterTarget
	waitFor(t, "every row applied", func() bool { return e.rowsRev.Load() >= last })
	waitFor(t, "the snapshot of two rows", func() bool {
		evs := b.history(key("team-a", "inv"))
		return evs[len(evs)-1].Event.ItemCount == 2
	})
	evs := b.history(key("team-a", "inv"))
	ev := evs[len(evs)-1].Event
	if d := cmp.Diff(busv1.AttributeTypes{"v": "int", "labels": "map"}, ev.AttributeTypes); d != "" {
		t.Errorf("attribute types (-want +got):\n%s", d)
	}
	sum := ev.Checksum

	// The Profile of db changes v to float, and its row is written again:
	// v is no longer declared alike.
	last = b.putTypedRow(mkRow("team-a", "db", "d1", 4.5), busv1.AttributeTypes{"v": "float"})
	waitFor(t, "every row applied", func() bool { return e.rowsRev.Load() >= last })
	waitFor(t, "the next snapshot", func() bool {
		evs := b.history(key("team-a", "inv"))
		return evs[len(evs)-1].Event.Checksum != sum
	})
	evs = b.history(key("team-a", "inv"))
	if d := cmp.Diff(busv1.AttributeTypes{"labels": "map", "image": "string"}, evs[len(evs)-1].Event.AttributeTypes); d != "" {
		t.Errorf("attribute types after the change (-want +got):\n%s", d)
	}

	// The same rows without types (a collector of an earlier release) have
	// the same checksum: types are not row content.
	b2 := newBed(t, nil)
	b2.putInventory(inv)
	e2 := b2.start(Options{Settle: time.Millisecond})
	b2.putRow(mkRow("team-a", "web", "w1", 3))
	last = b2.putRow(mkRow("team-a", "db", "d1", 4))
	waitFor(t, "every row applied", func() bool { return e2.rowsRev.Load() >= last })
	waitFor(t, "the snapshot of two rows without types", func() bool {
		evs := b2.history(key("team-a", "inv"))
		return len(evs) > 0 && evs[len(evs)-1].Event.ItemCount == 2
	})
	evs = b2.history(key("team-a", "inv"))
	if got := evs[len(evs)-1].Event; got.Checksum != sum || got.AttributeTypes != nil {
		t.Errorf("without types: checksum %s (with types %s), types %v", got.Checksum, sum, got.AttributeTypes)
	}
}

// TestPeriodicEventsCarryTheAttributeTypes: a periodic re-export carries
// the types too, so a sink that writes it types its columns alike.
func TestPeriodicEventsCarryTheAttributeTypes(t *testing.T) {
	b := newBed(t, nil)
	b.putInventory(nsInventory("team-a", "inv", binding("often", 50*time.Millisecond)))
	b.putTypedRow(mkRow("team-a", "web", "u1", 1), busv1.AttributeTypes{"v": "int"})
	e, stop := b.startStoppable(Options{Settle: 10 * time.Millisecond})
	waitFor(t, "the first snapshot and a periodic event", func() bool { return e.events.Load() >= 2 })
	stop()
	evs := b.history(key("team-a", "inv"))
	var periodic int
	for _, s := range evs {
		if s.Event.Reason == busv1.ReasonPeriodic {
			periodic++
		}
		if d := cmp.Diff(busv1.AttributeTypes{"v": "int"}, s.Event.AttributeTypes); d != "" {
			t.Errorf("%s event of revision %d: attribute types (-want +got):\n%s", s.Event.Reason, s.Event.Revision, d)
		}
	}
	if periodic == 0 {
		t.Errorf("no periodic event among %d", len(evs))
	}
}
