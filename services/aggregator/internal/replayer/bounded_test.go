package replayer_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	"github.com/nats-io/nats.go/jetstream"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/snapshot"
	"kollect.dev/kollect/pkg/testenv"
)

// publishAs publishes revisions 1..n of inv stamped with uid (their rows
// named after uid, so that their checksums differ from another uid's),
// bound to no sink, and names each checksum "<uid>-<revision>" in names.
func (b *bed) publishAs(uid string, n int, names map[string]string) {
	b.t.Helper()
	var rows []busv1.Row
	for rev := 1; rev <= n; rev++ {
		name := fmt.Sprintf("%s-%d", uid, rev)
		rows = append(rows, busv1.Row{TargetNamespace: "team-a", TargetName: "pods", Namespace: "team-a",
			Name: name, UID: name, Version: "v1", Kind: "Pod", Attributes: map[string]any{}})
		envl, err := snapshot.Envelope(inv, uint64(rev), 1, rows)
		if err != nil {
			b.t.Fatal(err)
		}
		names[envl.Checksum] = name
		b.publishEvent(busv1.SnapshotEvent{Inventory: inv, InventoryUID: uid, Revision: uint64(rev), Generation: 1,
			Checksum: envl.Checksum, ItemCount: envl.ItemCount, CreatedAt: time.Date(2026, 11, 30, rev, 0, 0, 0, time.UTC),
			Reason: busv1.ReasonChange, Envelope: &envl})
	}
}

// setUID writes inv's config again with uid.
func (b *bed) setUID(uid string) {
	b.t.Helper()
	kv, err := b.js.KeyValue(context.Background(), bus.BucketConfig)
	if err != nil {
		b.t.Fatal(err)
	}
	key := bus.ConfigKey(bus.ConfigRef{Kind: busv1.KindInventory, Namespace: inv.Namespace, Name: inv.Name})
	e, err := kv.Get(context.Background(), key)
	if err != nil {
		b.t.Fatal(err)
	}
	var ic busv1.InventoryConfig
	if err := json.Unmarshal(e.Value(), &ic); err != nil {
		b.t.Fatal(err)
	}
	ic.UID = uid
	b.put(key, ic)
}

// TestANewInventoryNeverReplaysItsPredecessorsRevisions: inventory
// team-a/apps of uid "old" published revisions 1 to 3 and was deleted; a
// new team-a/apps (uid "new") published revisions 1 and 2. A replay of
// revision 3 fails naming the earlier inventory, one of revision 1 or a
// backfill delivers only the new inventory's rows. F5 of SECURITY-3; seen
// failing before: revision 3 and the old revision 1 were delivered.
func TestANewInventoryNeverReplaysItsPredecessorsRevisions(t *testing.T) {
	b := newBed(t)
	names := map[string]string{}
	b.publishAs("old", 3, names)
	b.setUID("new")
	b.publishAs("new", 2, names)

	st := b.replay("old-three", func(r *busv1.ReplayRequest) { r.Revision = 3 })
	want := "revision 3 of team-a/apps belongs to an earlier inventory of that name (uid old), deleted since, and is never replayed"
	if st.Phase != busv1.ReplayFailed || st.Reason != v1alpha1.ReasonRevisionNotRetained || !strings.HasPrefix(st.Message, want) {
		t.Errorf("replay of the old revision 3: %+v, want Failed %s: %s", st, v1alpha1.ReasonRevisionNotRetained, want)
	}
	if st := b.replay("one", func(r *busv1.ReplayRequest) { r.Revision = 1 }); st.Phase != busv1.ReplaySucceeded {
		t.Fatalf("replay of revision 1: %+v", st)
	}
	if st := b.replay("all", func(r *busv1.ReplayRequest) { r.Backfill = true }); st.Phase != busv1.ReplaySucceeded || st.RevisionsTotal != 2 {
		t.Fatalf("backfill: %+v, want the new inventory's 2 revisions", st)
	}
	var got []string
	for _, w := range b.stores["fresh"].Writes() {
		got = append(got, names[w.Checksum])
	}
	if diff := cmp.Diff([]string{"new-1", "new-1", "new-2"}, got); diff != "" {
		t.Errorf("revisions written to the fresh sink (-want +got):\n%s", diff)
	}
}

// publishLarge publishes revisions 1..n of inv, each of rows of size bytes
// in all (distinct in every revision), bound to no sink.
func (b *bed) publishLarge(n, size int) {
	b.t.Helper()
	const perRow = 16 << 10
	for rev := 1; rev <= n; rev++ {
		var rows []busv1.Row
		for i := range size / perRow {
			name := fmt.Sprintf("r%d-%d", rev, i)
			rows = append(rows, busv1.Row{TargetNamespace: "team-a", TargetName: "pods", Namespace: "team-a", Name: name,
				UID: name, Version: "v1", Kind: "Pod", Attributes: map[string]any{"data": strings.Repeat(string(rune('a'+rev%26)), perRow)}})
		}
		envl, err := snapshot.Envelope(inv, uint64(rev), 1, rows)
		if err != nil {
			b.t.Fatal(err)
		}
		b.publishEvent(busv1.SnapshotEvent{Inventory: inv, Revision: uint64(rev), Generation: 1, Checksum: envl.Checksum,
			ItemCount: envl.ItemCount, CreatedAt: time.Date(2026, 11, 30, 0, 0, rev, 0, time.UTC), Reason: busv1.ReasonChange,
			Envelope: &envl})
	}
}

// liveHeap returns the process's live heap once it is idle: after two
// collections (the second empties the pools the first kept), with nothing
// allocating in between.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(live)
	return live[0].Value.Uint64()
}

// TestABackfillHoldsOneRevisionNotTheHistory backfills a history of 200
// revisions of 128 KiB each (25 MiB) on a bus without exporters: the
// replay publishes its first revision and waits for an acknowledgement
// that never comes, the process idle. Its live heap then holds the
// history's index and that one event, not the history: it grew by less
// than a tenth of it. F2 of SECURITY-3; before, the replayer decoded every
// event of the subject and kept the selected ones for the whole run (seen
// failing: the heap grew by 60 MiB).
func TestABackfillHoldsOneRevisionNotTheHistory(t *testing.T) {
	const revisions, size = 200, 128 << 10
	// Streams in memory: the embedded server holds the history from the
	// start, where a file store would load it into this process's heap
	// when it is read (which a NATS server of its own does not count).
	opts := bus.DefaultOptions()
	opts.Storage = jetstream.MemoryStorage
	b := newQuietBusWith(t, opts)
	b.inventoryAs(inv.Namespace, inv.Name, "", 0)
	b.publishLarge(revisions, size)
	b.startWith(quietOptions(logr.Discard()))
	base := liveHeap()
	b.request(inv.Namespace, "all", inv, func(r *busv1.ReplayRequest) { r.Backfill = true })
	b.waitReport(inv.Namespace, "all", "running with its count", func(st busv1.ReplayStatus) bool {
		return running(st) && st.RevisionsTotal == revisions
	})
	s, err := b.js.Stream(t.Context(), bus.StreamSnapshots)
	if err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 30*time.Second, "the first revision published again", func() error {
		m, err := s.GetLastMsgForSubject(t.Context(), bus.SnapshotSubject(inv))
		if err != nil {
			return err
		}
		var head struct{ Replay *busv1.Replay }
		if err := json.Unmarshal(m.Data, &head); err != nil || head.Replay == nil {
			return fmt.Errorf("the last event, %d, is no replay (%v)", m.Sequence, err)
		}
		return nil
	})
	grew := int64(liveHeap()) - int64(base)
	t.Logf("the live heap grew by %d KiB while a backfill of %d revisions of %d KiB waits on its first", grew>>10, revisions, size>>10)
	if limit := int64(revisions * size / 10); grew > limit {
		t.Errorf("the live heap grew by %d KiB while a backfill waits on its first revision of %d KiB: more than %d KiB, "+
			"a tenth of the history (%d KiB); it was loaded", grew>>10, size>>10, limit>>10, revisions*size>>10)
	}
}
