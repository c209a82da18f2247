package engine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/bus"
)

// lastInventoryReport is the aggregator's latest status report of a
// namespaced inventory (nil when none).
func lastInventoryReport(t *testing.T, b *bed, ns, name string) *busv1.InventoryStatus {
	t.Helper()
	ctx := context.Background()
	s, err := b.js.Stream(ctx, bus.StreamStatus)
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.GetLastMsgForSubject(ctx, bus.StatusSubjectFor(busv1.StatusReport{Service: busv1.ServiceAggregator,
		Kind: busv1.KindInventory, Namespace: ns, Name: name}))
	if err != nil {
		return nil
	}
	var r busv1.StatusReport
	if json.Unmarshal(m.Data, &r) != nil {
		return nil
	}
	return r.Inventory
}

// TestANamespaceOverItsRevisionQuotaLosesItsOldestRevisions: the operator's
// quota of 5 revisions for the namespace keeps team-a's newest 5 although
// each inventory's own retention allows 16, and another namespace is left
// alone.
func TestANamespaceOverItsRevisionQuotaLosesItsOldestRevisions(t *testing.T) {
	b := newBed(t, func(o *bus.Options) { o.SnapshotHistory = 64 })
	clock := newFakeClock()
	other := nsInventory("team-b", "small")
	b.putInventory(other)
	opts := Options{Settle: time.Second, Clock: clock, MaxMessageBytes: 8 << 10, GCInterval: time.Hour,
		HistoryRevisions: 16, NamespaceHistoryRevisions: 5}
	e := churnInventory(t, b, clock, opts, nsInventory("team-a", "big"), 600, 7)
	collectNow(t, e, clock, time.Hour)
	if diff := cmp.Diff([]uint64{4, 5, 6, 7, 8}, revisions(b.history(key("team-a", "big")))); diff != "" {
		t.Errorf("team-a's revisions (-want +got):\n%s", diff)
	}
	if n := len(b.history(key("team-b", "small"))); n != 1 {
		t.Errorf("team-b keeps %d events, want its one", n)
	}
	waitFor(t, "team-a's report of its history", func() bool {
		r := lastInventoryReport(t, b, "team-a", "big")
		return r != nil && r.History != nil && r.History.Revisions == 5 && r.Reason == ""
	})
}

// TestAScopeLowersTheNamespaceQuotaAndAnUnreachableQuotaIsReported: the
// namespace's configs carry a Scope's lower bytes quota; the history goes
// down to the newest event, and every inventory of the namespace reports
// NamespaceQuotaExceeded naming usage and quota, while its snapshots still
// publish.
func TestAScopeLowersTheNamespaceQuotaAndAnUnreachableQuotaIsReported(t *testing.T) {
	b := newBed(t, func(o *bus.Options) { o.SnapshotHistory = 64 })
	clock := newFakeClock()
	inv := nsInventory("team-a", "big")
	inv.NamespaceQuota = busv1.NamespaceQuota{BusBytes: 1024}
	opts := Options{Settle: time.Second, Clock: clock, MaxMessageBytes: 8 << 10, GCInterval: time.Hour,
		HistoryRevisions: 16, NamespaceBusBytes: 1 << 30}
	e := churnInventory(t, b, clock, opts, inv, 600, 4)
	collectNow(t, e, clock, time.Hour)
	if diff := cmp.Diff([]uint64{5}, revisions(b.history(key("team-a", "big")))); diff != "" {
		t.Errorf("team-a's revisions (-want +got):\n%s", diff)
	}
	var r *busv1.InventoryStatus
	waitFor(t, "a NamespaceQuotaExceeded report", func() bool {
		r = lastInventoryReport(t, b, "team-a", "big")
		return r != nil && r.Reason == v1alpha1.ReasonNamespaceQuotaExceeded
	})
	if !strings.Contains(r.Message, "above its quota of 1Ki") || !strings.Contains(r.Message, "maxNamespaceBusBytes") {
		t.Errorf("message %q does not name the quota and where it comes from", r.Message)
	}
	last := b.putRow(mkRow("team-a", "web", "new-row", "v"))
	waitFor(t, "the row", func() bool { return e.rowsRev.Load() >= last })
	clock.Advance(time.Second)
	waitFor(t, "a new revision over the quota", func() bool { return latestRevision(b, key("team-a", "big")) == 6 })
}

// TestADeletedInventorysHistoryIsPurgedAfterTheGrace: a deleted inventory
// (deletionPolicy Retain) keeps its history through the grace, then a
// collection purges it whole.
func TestADeletedInventorysHistoryIsPurgedAfterTheGrace(t *testing.T) {
	b := newBed(t, func(o *bus.Options) { o.SnapshotHistory = 64 })
	clock := newFakeClock()
	inv := nsInventory("team-a", "big")
	opts := Options{Settle: time.Second, Clock: clock, MaxMessageBytes: 8 << 10, GCInterval: time.Hour,
		HistoryRevisions: 16, HistoryPurgeGrace: 90 * time.Minute}
	e := churnInventory(t, b, clock, opts, inv, 100, 2)
	b.deleteInventory(inv)
	after := b.putInventory(nsInventory("team-b", "other")) // applied after the deletion
	waitFor(t, "the deletion applied", func() bool { return e.cfgRev.Load() >= after })
	collectNow(t, e, clock, time.Hour) // finds it orphaned: the grace starts
	if n := len(b.history(key("team-a", "big"))); n != 3 {
		t.Fatalf("%d events within the grace, want the 3 revisions", n)
	}
	collectNow(t, e, clock, time.Hour) // an hour into the grace
	if n := len(b.history(key("team-a", "big"))); n != 3 {
		t.Fatalf("%d events within the grace, want the 3 revisions", n)
	}
	collectNow(t, e, clock, time.Hour) // past it
	if n := len(b.history(key("team-a", "big"))); n != 0 {
		t.Fatalf("%d events after the grace, want none", n)
	}
}
