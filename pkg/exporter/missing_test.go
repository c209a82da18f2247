package exporter_test

import (
	"context"
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/bus"
)

// drop deletes an object of the envelope store, as garbage collection
// does, and makes c's Writer forget it.
func (c *chunked) drop(t *testing.T, ref *busv1.ObjectRef) {
	t.Helper()
	obs, err := c.e.n.JS.ObjectStore(context.Background(), bus.ObjectStoreEnvelopes)
	if err != nil {
		t.Fatal(err)
	}
	if err := obs.Delete(context.Background(), ref.Name); err != nil {
		t.Fatal(err)
	}
	c.w.Forget(ref.Name)
}

// send publishes ev.
func (c *chunked) send(ev busv1.SnapshotEvent) { c.e.send(ev) }

func TestAMissingObjectIsDeadLetteredOnlyWhenNoNewerEventReplacesIt(t *testing.T) {
	for _, tc := range []struct {
		name  string
		newer bool
	}{
		{"a periodic event whose manifest was collected is replaced by the newer event", true},
		{"the newest event with its manifest missing is dead-lettered", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, "good")
			c := newChunked(t, e, "good")
			old := c.event(t, 1, manyRows(300, "1"), true)
			old.Reason = busv1.ReasonPeriodic
			c.drop(t, old.ManifestRef)
			c.send(old)
			next := manyRows(300, "2")
			if tc.newer {
				// On the subject before the exporter reads revision 1: sent
				// after, it would race with the dead-lettering of revision 1,
				// which is then the newest event.
				c.publish(t, 2, next, false)
			}
			e.start(withLoader(c))
			if tc.newer {
				waitFor(t, "revision 2 in the sink", func() bool { return e.stored("good") == 2 })
				e.expectRows("good", 2, next)
			}
			var dl busv1.DeadLetter
			dead := func() bool {
				return e.last(bus.StreamDeadLetters, bus.DeadLetterSubject(busv1.FamilySnapshot, inv), &dl)
			}
			if !tc.newer {
				waitFor(t, "a dead letter", dead)
				if dl.Revision != 1 || dl.Reason != v1alpha1.ReasonExportRejected {
					t.Fatalf("dead letter %+v, want revision 1 rejected", dl)
				}
			}
			waitFor(t, "every message acknowledged", func() bool { return e.ackPending() == 0 })
			if tc.newer && dead() {
				t.Fatalf("dead letter %+v: the missing object of a replaced event was dead-lettered", dl)
			}
		})
	}
}

func TestAMissingDeltaObjectFallsBackToTheManifest(t *testing.T) {
	e := newEnv(t, "good")
	c := newChunked(t, e, "good")
	e.start(withLoader(c))
	base := manyRows(500, "1")
	c.publish(t, 1, base, true)
	waitFor(t, "revision 1 in the sink", func() bool { return e.stored("good") == 1 })
	c.object = true
	next := set(base, vrow("r-000042", "2"))
	ev := c.event(t, 2, next, false)
	c.drop(t, ev.DeltaRef)
	c.send(ev)
	waitFor(t, "revision 2 in the sink", func() bool { return e.stored("good") == 2 })
	e.expectRows("good", 2, next)
	if w := writesAfter(e.b.stores["good"], 1); len(w) != 1 || w[0].Delta {
		t.Fatalf("writes after revision 1: %+v, want one full write", w)
	}
	waitFor(t, "both messages acknowledged", func() bool { return e.ackPending() == 0 })
}
