package replayer_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/testenv"
)

// watchState records every version of sink s's export state from now on.
func (b *bed) watchState(s string) func() []busv1.ExportState {
	b.t.Helper()
	kv, err := b.js.KeyValue(context.Background(), bus.BucketExportState)
	if err != nil {
		b.t.Fatal(err)
	}
	w, err := kv.Watch(b.t.Context(), bus.ExportStateKey(inv, ref(s)), jetstream.UpdatesOnly())
	if err != nil {
		b.t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []busv1.ExportState
	go func() {
		for e := range w.Updates() {
			if e == nil || e.Operation() != jetstream.KeyValuePut {
				continue
			}
			var st busv1.ExportState
			if err := json.Unmarshal(e.Value(), &st); err != nil {
				b.t.Errorf("export state %s: %v", e.Value(), err)
				continue
			}
			mu.Lock()
			seen = append(seen, st)
			mu.Unlock()
		}
	}()
	return func() []busv1.ExportState {
		mu.Lock()
		defer mu.Unlock()
		return append([]busv1.ExportState(nil), seen...)
	}
}

// cleared waits until the last state seen carries no hold and returns
// every state seen.
func cleared(t *testing.T, states func() []busv1.ExportState) []busv1.ExportState {
	t.Helper()
	testenv.EventuallyTrue(t, 30*time.Second, "the hold cleared", func() bool {
		s := states()
		return len(s) > 0 && s[len(s)-1].Hold == nil
	})
	return states()
}

func TestABackfillHoldsItsBindingFromBeforeItsFirstRevisionUntilItSucceeds(t *testing.T) {
	b := newBed(t)
	b.publish(3)
	states := b.watchState("fresh")
	st := b.replay("backfill", func(r *busv1.ReplayRequest) { r.Backfill = true })
	if st.Phase != busv1.ReplaySucceeded {
		t.Fatalf("final status %+v", st)
	}
	seen := cleared(t, states)
	if h := seen[0].Hold; h == nil || h.UID != "uid-backfill" || h.Replay.Name != "backfill" || seen[0].Replayed != nil {
		t.Fatalf("the first state written is %+v (hold %+v), want the backfill's hold before any revision", seen[0], h)
	}
	for _, s := range seen[:len(seen)-1] {
		if s.Hold == nil || time.Until(s.Hold.Expires) <= 0 {
			t.Fatalf("a state written during the backfill has no live hold: %+v", s)
		}
	}
	if last := seen[len(seen)-1]; last.Replayed == nil || last.Replayed.Revision != 3 || last.Claim != nil {
		t.Fatalf("the last state %+v (replayed %+v), want revision 3 replayed and the exporter's fields kept", last, last.Replayed)
	}
}

func TestAFailedBackfillClearsItsHold(t *testing.T) {
	b := newBedWith(t, 200*time.Millisecond)
	b.publish(2)
	states := b.watchState("broken")
	st := b.replay("backfill", func(r *busv1.ReplayRequest) { r.Backfill, r.Sink = true, ref("broken") })
	if st.Phase != busv1.ReplayFailed {
		t.Fatalf("final status %+v, want Failed: the sink refuses every write", st)
	}
	seen := cleared(t, states)
	if seen[0].Hold == nil || seen[0].Hold.UID != "uid-backfill" {
		t.Fatalf("the first state written is %+v, want the backfill's hold", seen[0])
	}
}

func TestASingleRevisionReplaySetsNoHold(t *testing.T) {
	b := newBed(t)
	b.publish(2)
	states := b.watchState("fresh")
	if st := b.replay("one", func(r *busv1.ReplayRequest) { r.Revision = 1 }); st.Phase != busv1.ReplaySucceeded {
		t.Fatalf("final status %+v", st)
	}
	testenv.EventuallyTrue(t, 30*time.Second, "the replay recorded", func() bool { return len(states()) > 0 })
	for _, s := range states() {
		if s.Hold != nil {
			t.Fatalf("a single-revision replay held the binding: %+v", s)
		}
	}
}
