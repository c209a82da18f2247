package history_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/history"
	"kollect.dev/kollect/pkg/testenv"
)

// TestIndexReadsEventHeadsAndAtReadsOneEvent proves the index carries what
// an event says about itself (uid, replay, size) without its envelope, and
// that At reads one event by sequence but never another subject's.
func TestIndexReadsEventHeadsAndAtReadsOneEvent(t *testing.T) {
	n := testenv.StartNATS(t)
	ctx := context.Background()
	if err := bus.Provision(ctx, n.JS, bus.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	inv := busv1.NamespacedName{Namespace: "team-a", Name: "inv"}
	other := busv1.NamespacedName{Namespace: "team-b", Name: "inv"}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	big := busv1.Row{Namespace: "team-a", Name: strings.Repeat("x", 4000)}
	publish(t, n, busv1.SnapshotEvent{Inventory: inv, InventoryUID: "uid-1", Revision: 1, Checksum: "c1", CreatedAt: t0,
		Reason: busv1.ReasonChange, ItemCount: 1,
		Envelope: &busv1.Envelope{SchemaVersion: busv1.SchemaVersion, Checksum: "c1", Revision: 1, Inventory: inv, Items: []busv1.Row{big}}})
	publish(t, n, busv1.SnapshotEvent{Inventory: other, Revision: 7})
	publish(t, n, busv1.SnapshotEvent{Inventory: inv, InventoryUID: "uid-1", Revision: 1, Checksum: "c1", CreatedAt: t0.Add(time.Hour),
		Reason: busv1.ReasonChange, Replay: &busv1.Replay{RequestedAt: t0}})

	idx, err := history.Index(ctx, n.JS, inv)
	if err != nil {
		t.Fatal(err)
	}
	if len(idx) != 2 {
		t.Fatalf("Index = %+v, want 2 entries", idx)
	}
	if e := idx[0]; e.InventoryUID != "uid-1" || e.Replay || e.Bytes < 4000 || e.ItemCount != 1 || !e.Time.Equal(t0) {
		t.Errorf("first entry = %+v", e)
	}
	if e := idx[1]; !e.Replay || e.Bytes > 1000 {
		t.Errorf("replay entry = %+v", e)
	}
	st, err := history.At(ctx, n.JS, inv, idx[0].Sequence)
	if err != nil || st.Event.Envelope == nil || st.Event.Envelope.Items[0].Name != big.Name {
		t.Fatalf("At(first) = %+v, %v", st, err)
	}
	if _, err := history.At(ctx, n.JS, inv, idx[0].Sequence+1); !errors.Is(err, history.ErrNotFound) {
		t.Errorf("At(another subject's event) error = %v, want ErrNotFound", err)
	}
	if _, err := history.At(ctx, n.JS, inv, 999); !errors.Is(err, history.ErrNotFound) {
		t.Errorf("At(no such sequence) error = %v, want ErrNotFound", err)
	}
	stop := errors.New("stop")
	calls := 0
	if err := history.Scan(ctx, n.JS, inv, func(history.Entry) error { calls++; return stop }); !errors.Is(err, stop) || calls != 1 {
		t.Errorf("Scan stopped by its callback: %v after %d calls", err, calls)
	}
}

// TestAScanEndsWhenTheEventsLeftAreDeletedMeanwhile: the aggregator trims
// and deletes superseded periodic events while readers scan; a scan whose
// remaining events vanish ends (it hung before, waiting for them).
func TestAScanEndsWhenTheEventsLeftAreDeletedMeanwhile(t *testing.T) {
	n := testenv.StartNATS(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := bus.Provision(ctx, n.JS, bus.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	inv := busv1.NamespacedName{Namespace: "team-a", Name: "inv"}
	for rev := range 40 {
		publish(t, n, busv1.SnapshotEvent{Inventory: inv, Revision: uint64(rev + 1), Reason: busv1.ReasonChange})
	}
	s, err := n.JS.Stream(ctx, bus.StreamSnapshots)
	if err != nil {
		t.Fatal(err)
	}
	var got []uint64
	err = history.Scan(ctx, n.JS, inv, func(e history.Entry) error {
		if len(got) == 0 {
			if err := s.Purge(ctx, jetstream.WithPurgeSubject(bus.SnapshotSubject(inv)), jetstream.WithPurgeKeep(0)); err != nil {
				return err
			}
		}
		got = append(got, e.Revision)
		return nil
	})
	if err != nil {
		t.Fatalf("scan: %v", err)
	}
	if len(got) == 0 || len(got) >= 40 || got[0] != 1 {
		t.Errorf("scan read revisions %v, want the first few before the purge", got)
	}
}
