package engine

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
)

// Two engines on one bus without a lease still never publish one revision
// twice: the expected-last-sequence check makes the loser re-read the
// subject, and it then finds nothing left to publish.
func TestTwoWritersNeverPublishARevisionTwice(t *testing.T) {
	b := newBed(t, nil)
	b.putInventory(nsInventory("team-a", "inv"))
	e1 := b.start(Options{Settle: 5 * time.Millisecond, RetryBackoff: 5 * time.Millisecond})
	e2 := b.start(Options{Settle: 5 * time.Millisecond, RetryBackoff: 5 * time.Millisecond})
	for i := range 5 {
		last := b.putRow(mkRow("team-a", "web", rowName(i), i))
		waitFor(t, "both engines applied the row", func() bool { return e1.rowsRev.Load() >= last && e2.rowsRev.Load() >= last })
		waitFor(t, "the change", func() bool {
			evs := b.history(key("team-a", "inv"))
			return len(evs) > 0 && evs[len(evs)-1].Event.ItemCount == i+1
		})
	}
	evs := b.history(key("team-a", "inv"))
	for i, s := range evs {
		if s.Event.Revision != uint64(i+1) {
			t.Fatalf("event %d has revision %d: %v", i, s.Event.Revision, evs)
		}
	}
	if got := e1.events.Load() + e2.events.Load(); got != int64(len(evs)) {
		t.Errorf("engines counted %d publications, the subject holds %d", got, len(evs))
	}
}

func TestStatusReportsItemCountRevisionAndNextDue(t *testing.T) {
	b := newBed(t, nil)
	clock := newFakeClock()
	inv := nsInventory("team-a", "inv", binding("kafka", time.Minute), binding("nats", 0))
	b.putInventory(inv)
	b.putRow(mkRow("team-a", "web", "u1", 1))
	e := b.start(Options{Settle: time.Second, Clock: clock})
	waitFor(t, "the snapshot", func() bool { return e.events.Load() == 1 })
	subject := bus.StatusSubjectFor(busv1.StatusReport{Service: busv1.ServiceAggregator, Kind: busv1.KindInventory,
		Namespace: "team-a", Name: "inv"})
	s, err := b.js.Stream(context.Background(), bus.StreamStatus)
	if err != nil {
		t.Fatal(err)
	}
	var r busv1.StatusReport
	waitFor(t, "the status report", func() bool {
		m, err := s.GetLastMsgForSubject(context.Background(), subject)
		return err == nil && json.Unmarshal(m.Data, &r) == nil
	})
	st := r.Inventory
	ev := b.history(key("team-a", "inv"))[0].Event
	if st == nil || st.ItemCount != 1 || st.Revision != 1 || st.Checksum != ev.Checksum || r.Generation != 1 ||
		len(st.NextDue) != 1 || st.NextDue[0].Sink.Name != "kafka" || !st.NextDue[0].NextDue.Equal(clock.Now().Add(time.Minute)) {
		t.Fatalf("status report = %+v, inventory %+v", r, st)
	}
}

func TestClusterInventoryStatusCarriesNamespaceShards(t *testing.T) {
	b := newBed(t, nil)
	clock := newFakeClock()
	cl := busv1.InventoryConfig{Kind: busv1.KindClusterInventory, Name: "fleet", Generation: 1,
		TargetRefs: []string{"a"}, Dedupe: busv1.DedupeKeepAll, DeletionPolicy: busv1.DeletionRetain}
	b.putInventory(cl)
	b.putRow(mkRow("", "a", "u1", 1)) // source namespace prod
	b.putRow(mkRow("", "a", "u2", 2))
	e := b.start(Options{Settle: time.Second, Clock: clock})
	waitFor(t, "the snapshot", func() bool { return e.events.Load() >= 1 })
	subject := bus.StatusSubjectFor(busv1.StatusReport{Service: busv1.ServiceAggregator, Kind: busv1.KindClusterInventory, Name: "fleet"})
	s, err := b.js.Stream(context.Background(), bus.StreamStatus)
	if err != nil {
		t.Fatal(err)
	}
	var r busv1.StatusReport
	waitFor(t, "a status report with both rows", func() bool {
		m, err := s.GetLastMsgForSubject(context.Background(), subject)
		return err == nil && json.Unmarshal(m.Data, &r) == nil && r.Inventory != nil && r.Inventory.ItemCount == 2
	})
	sh := r.Inventory.NamespaceShards
	if len(sh) != 1 || sh[0].Namespace != "prod" || sh[0].ItemCount != 2 || len(sh[0].Checksum) != 64 {
		t.Fatalf("namespaceShards = %+v, want one shard for prod with 2 items", sh)
	}
}
