package exporter_test

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/exporter"
	"kollect.dev/kollect/pkg/testenv"
)

// The review's H5 arithmetic (300 inventories of one tenant against the
// consumer's MaxAckPending of 256), scaled down: 40 inventories against 32.
const (
	stallAckPending  = 32
	stallInventories = 40
)

func TestAStalledTenantDoesNotStallTheFamily(t *testing.T) {
	e := newStallEnv(t, stallAckPending, time.Minute)
	e.start(e.n.JS, func(c *exporter.Config) {
		c.MaxHeld, c.MaxHeldPerNamespace, c.WriteTimeout = 8, 4, time.Hour // the tarpit never times out here
	})
	for i := range stallInventories {
		e.send(tenantInv("team-x", i), 1, tarpitRef)
	}
	other := tenantInv("team-y", 0)
	e.send(other, 1, goodRef)
	waitFor(t, "the other tenant's sink written", func() bool {
		v, ok := e.store.Get("east", other)
		return ok && v.Revision == 1
	})
	// Every stalled inventory is still being written, but the tenant holds
	// only its namespace's budget of the consumer's.
	waitFor(t, "every stalled inventory's write started", func() bool {
		n, _ := e.pit.entries()
		return n == stallInventories
	})
	waitFor(t, "the namespace's budget held, nothing left undelivered", func() bool {
		held, undelivered := e.consumer()
		return held == 4 && undelivered == 0
	})
}

// The same workload without a held budget reproduces the review's stall: the
// tenant's messages take the whole MaxAckPending and the server delivers
// nothing else, so the other tenant's event stays undelivered.
func TestWithoutAHeldBudgetAStalledTenantStallsTheFamily(t *testing.T) {
	e := newStallEnv(t, stallAckPending, time.Minute)
	e.start(e.n.JS, func(c *exporter.Config) {
		c.MaxHeld, c.MaxHeldPerNamespace, c.WriteTimeout = 1000, 1000, time.Hour
	})
	for i := range stallInventories {
		e.send(tenantInv("team-x", i), 1, tarpitRef)
	}
	other := tenantInv("team-y", 0)
	e.send(other, 1, goodRef)
	waitFor(t, "the consumer's budget used up by the stalled tenant", func() bool {
		held, undelivered := e.consumer()
		n, _ := e.pit.entries()
		return held == stallAckPending && undelivered == stallInventories+1-stallAckPending && n == stallAckPending
	})
	if _, ok := e.store.Get("east", other); ok {
		t.Fatal("the other tenant's sink was written although the consumer's budget was used up")
	}
}

func TestATarpitWriteTimesOutIsRetriedAndShownInStatus(t *testing.T) {
	e := newStallEnv(t, 256, time.Minute)
	e.start(e.n.JS, func(c *exporter.Config) { c.WriteTimeout = 100 * time.Millisecond })
	x := tenantInv("team-x", 0)
	e.send(x, 1, tarpitRef)
	waitFor(t, "a transient failure naming the timeout in status", func() bool {
		st := e.exportStatus(x, tarpitRef)
		return st != nil && !st.OK && !st.Permanent && st.Outcome.Reason == v1alpha1.ReasonExportFailed &&
			strings.Contains(st.Outcome.Message, "sink write timed out after 100ms")
	})
	waitFor(t, "the write tried again", func() bool {
		_, writes := e.pit.entries()
		return writes >= 3
	})
	for _, end := range e.pit.ends() {
		if end.cause == nil || !strings.Contains(end.cause.Error(), "sink write timed out") {
			t.Fatalf("a write ended by %v, want the write timeout", end.cause)
		}
	}
	if st, _ := e.stateOf(x, tarpitRef); st.Revision != 0 {
		t.Fatalf("revision %d recorded for a write that timed out", st.Revision)
	}
	e.pit.release()
	waitFor(t, "revision 1 recorded once the sink answers", func() bool {
		st, _ := e.stateOf(x, tarpitRef)
		return st.Revision == 1 && st.Claim == nil
	})
	waitFor(t, "the event acknowledged", func() bool {
		held, undelivered := e.consumer()
		return held == 0 && undelivered == 0
	})
}

func TestAClaimTakenOverCancelsTheWriteAndRecordsNothing(t *testing.T) {
	for _, ignoreCancel := range []bool{false, true} {
		name := "the sink honours cancellation"
		if ignoreCancel {
			name = "the sink finishes the write anyway"
		}
		t.Run(name, func(t *testing.T) {
			e := newStallEnv(t, 256, time.Minute)
			e.pit.ignoreCancel = ignoreCancel
			reg := prometheus.NewRegistry()
			e.start(e.n.JS, func(c *exporter.Config) { c.ClaimTTL, c.WriteTimeout, c.Metrics = time.Second, time.Hour, reg })
			x := tenantInv("team-x", 0)
			e.send(x, 1, tarpitRef)
			waitFor(t, "the write started", func() bool {
				n, _ := e.pit.entries()
				return n == 1
			})
			if st, _ := e.stateOf(x, tarpitRef); st.Claim == nil {
				t.Fatalf("state %+v: no claim while writing", st)
			}
			// Another replica took the binding over (the claim looked
			// expired to it) and recorded a newer revision.
			taken := e.putState(x, tarpitRef, busv1.ExportState{Inventory: x, Sink: tarpitRef, Revision: 2, Checksum: "newer",
				ExportedAt: time.Now().UTC(), Claim: &busv1.ExportClaim{Owner: "replica-b", Revision: 3, Expires: time.Now().Add(time.Hour)}})
			waitFor(t, "the write's context cancelled", func() bool { return len(e.pit.ends()) == 1 })
			if cause := e.pit.ends()[0].cause; cause == nil || !strings.Contains(cause.Error(), "claim on the binding lost") ||
				!strings.Contains(cause.Error(), "changed by another writer") {
				t.Fatalf("the write ended by %v, want the lost claim", cause)
			}
			if ignoreCancel {
				e.pit.release() // the write goes through all the same
			}
			waitFor(t, "the lost claim counted", func() bool { return counterValue(t, reg, exporter.NameClaimsLost) == 1 })
			waitFor(t, "the event acknowledged", func() bool {
				held, undelivered := e.consumer()
				return held == 0 && undelivered == 0
			})
			if st, rev := e.stateOf(x, tarpitRef); rev != taken {
				t.Fatalf("state %+v at KV revision %d: the replica that lost its claim wrote it (want revision %d untouched)", st, rev, taken)
			}
			if st := e.exportStatus(x, tarpitRef); st != nil && st.OK {
				t.Fatalf("status %+v: a write whose claim was lost reported success", st)
			}
		})
	}
}

func TestAReplicaCutOffFromTheBusStopsItsWriteBeforeItsClaimExpires(t *testing.T) {
	e := newStallEnv(t, 256, 3*time.Second) // a short ack wait: the event comes back to B soon
	cut := testenv.StartProxy(t, strings.TrimPrefix(e.n.URL, "nats://"))
	jsA := e.connect("nats://" + cut.Addr)
	tune := func(c *exporter.Config) { c.ClaimTTL, c.WriteTimeout = time.Second, time.Hour }
	e.start(jsA, tune)
	x := tenantInv("team-x", 0)
	e.send(x, 1, tarpitRef)
	waitFor(t, "A writing", func() bool {
		n, _ := e.pit.entries()
		return n == 1
	})
	e.start(e.connect(e.n.URL), tune)
	cut.Down() // A is cut off from the bus, not from the sink, and keeps running
	waitFor(t, "A's write cancelled", func() bool { return len(e.pit.ends()) == 1 })
	end := e.pit.ends()[0]
	if end.cause == nil || !strings.Contains(end.cause.Error(), "not renewed before it expired") {
		t.Fatalf("A's write ended by %v, want its claim's fence", end.cause)
	}
	// A cannot write the bus any more: the state holds A's last claim.
	st, _ := e.stateOf(x, tarpitRef)
	if st.Claim == nil || !end.at.Before(st.Claim.Expires) {
		t.Fatalf("A's write ended at %s, claim %+v: not before the claim expired", end.at, st.Claim)
	}
	e.pit.release()
	waitFor(t, "B delivered revision 1 after A's claim expired", func() bool {
		st, _ := e.stateOf(x, tarpitRef)
		return st.Revision == 1 && st.Claim == nil
	})
	if got := e.pit.writtenOf(x); got != 1 {
		t.Fatalf("the sink holds revision %d, want 1", got)
	}
}

func TestASinkConfigThatNeverAppearsIsDeadLetteredAfterTheBound(t *testing.T) {
	e := newStallEnv(t, 256, time.Minute)
	e.start(e.n.JS, func(c *exporter.Config) { c.ConfigPendingTimeout = 200 * time.Millisecond })
	ghost := busv1.SinkRef{Family: busv1.FamilySnapshot, Namespace: "team-x", Name: "ghost"}
	x := tenantInv("team-x", 0)
	e.send(x, 1, ghost)
	var dl busv1.DeadLetter
	waitFor(t, "a dead letter", func() bool {
		return e.lastOn(bus.StreamDeadLetters, bus.DeadLetterSubject(busv1.FamilySnapshot, x), &dl)
	})
	if dl.Outcome.Reason != v1alpha1.ReasonSinkConfigPending || !strings.Contains(dl.Outcome.Message, "after waiting") {
		t.Fatalf("dead letter outcome %+v, want %s after waiting", dl.Outcome, v1alpha1.ReasonSinkConfigPending)
	}
	waitFor(t, "the event acknowledged", func() bool {
		held, undelivered := e.consumer()
		return held == 0 && undelivered == 0
	})
	st := e.exportStatus(x, ghost)
	if st == nil || st.OK || !st.Permanent || st.Outcome.Reason != v1alpha1.ReasonSinkConfigPending {
		t.Fatalf("status %+v, want a permanent %s", st, v1alpha1.ReasonSinkConfigPending)
	}
}
