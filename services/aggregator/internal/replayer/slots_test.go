package replayer_test

import (
	"strings"
	"testing"

	"github.com/go-logr/logr"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// TestReplaysWaitForASlotInArrivalOrderAndWithinTheirNamespacesShare: with
// three slots and two per namespace, team-a's third replay waits (Pending,
// naming --max-replays-per-namespace) although a slot is free, team-b's
// first takes it, and team-b's second waits for the aggregator's bound
// (--max-replays). A freed slot goes to the earliest waiter that may take
// it: team-a's, queued first. Each running replay reported how many
// revisions it delivers before it delivered any. F2 of SECURITY-3; before
// the caps every replay ran at once (seen failing: a3 Running).
func TestReplaysWaitForASlotInArrivalOrderAndWithinTheirNamespacesShare(t *testing.T) {
	b := newQuietBus(t)
	opts := quietOptions(logr.Discard())
	opts.MaxReplays, opts.MaxReplaysPerNamespace = 3, 2
	b.startWith(opts)
	started := func(ns, name string) {
		t.Helper()
		st := b.waitReport(ns, name, "running with its count", func(st busv1.ReplayStatus) bool {
			return running(st) && st.RevisionsTotal == 1
		})
		if st.RevisionsDone != 0 || st.Attempts != 1 {
			t.Errorf("%s/%s: %+v, want 0 of 1 revisions done in its first run", ns, name, st)
		}
	}
	queued := func(ns, name string, why ...string) {
		t.Helper()
		st := b.waitReport(ns, name, "queued", pending)
		for _, w := range why {
			if !strings.Contains(st.Message, w) {
				t.Errorf("%s/%s queued with %q, want it to say %q", ns, name, st.Message, w)
			}
		}
	}
	for i, name := range []string{"a1", "a2", "a3"} {
		b.request("team-a", name, b.inventoryAs("team-a", "inv-"+name, "", 1))
		if i < 2 {
			started("team-a", name)
		}
	}
	queued("team-a", "a3", "namespace team-a already runs 2 replays", "--max-replays-per-namespace")
	b.request("team-b", "b1", b.inventoryAs("team-b", "inv-b1", "", 1))
	started("team-b", "b1")
	b.request("team-b", "b2", b.inventoryAs("team-b", "inv-b2", "", 1))
	queued("team-b", "b2", "the aggregator already runs 3 replays", "(--max-replays)", "replays waiting ahead of it: 1")

	b.withdraw("team-a", "a1")
	started("team-a", "a3")
	if st := b.lastReport("team-b", "b2"); !pending(*st) {
		t.Errorf("b2 took the slot of team-a's a1 before a3, queued earlier: %+v", st)
	}
	b.withdraw("team-b", "b1")
	started("team-b", "b2")
}
