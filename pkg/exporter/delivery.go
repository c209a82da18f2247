package exporter

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/history"
)

// delivery is one snapshot event received from the family's consumer and
// the bindings of this family it still waits for. A held delivery is
// acknowledged when the last binding finishes (delivered, skipped,
// superseded or dead-lettered); until then the tracker keeps it in
// progress. A detached one (over the tracker's budget) was acknowledged on
// arrival and is written all the same.
type delivery struct {
	msg       jetstream.Msg
	ev        *busv1.SnapshotEvent
	remaining atomic.Int64
	tracker   *tracker
	held      bool // unacknowledged until finished; false: detached

	mu     sync.Mutex
	env    *busv1.Envelope
	dl     *busv1.Delta
	loaded bool // dl was loaded (it may be nil)
}

// envelope returns the event's full envelope, loaded through l (inline, from
// its manifest's chunks or a legacy envelope object) once for every binding.
func (d *delivery) envelope(ctx context.Context, l *history.Loader) (*busv1.Envelope, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.env != nil {
		return d.env, nil
	}
	env, err := l.Envelope(ctx, d.ev)
	if err != nil {
		return nil, err
	}
	d.env = env
	return env, nil
}

// delta returns the event's delta (nil when it has none), loaded through l
// once for every binding when it is an object.
func (d *delivery) delta(ctx context.Context, l *history.Loader) (*busv1.Delta, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.loaded {
		return d.dl, nil
	}
	dl, err := l.Delta(ctx, d.ev)
	if err != nil {
		return nil, err
	}
	d.dl, d.loaded = dl, true
	return dl, nil
}

// size is the envelope's size on the bus, in bytes.
func (d *delivery) size() int64 {
	if d.ev.EnvelopeRef != nil {
		return d.ev.EnvelopeRef.Size
	}
	return int64(len(d.msg.Data()))
}

// finish marks one binding done and acknowledges a held message after the
// last. A failed ack is harmless: the redelivered event is skipped because
// the export state already holds its revision.
func (d *delivery) finish() {
	if d.remaining.Add(-1) != 0 || !d.held {
		return
	}
	d.tracker.remove(d)
	_ = d.msg.Ack()
}

// tracker holds the deliveries not yet acknowledged, at most maxHeld of
// them and maxPerNS of one inventory namespace's.
type tracker struct {
	maxHeld, maxPerNS int
	detached          func() // counts a detached delivery; may be nil

	mu      sync.Mutex
	pending map[*delivery]struct{}
	perNS   map[string]int
}

func newTracker(maxHeld, maxPerNS int) *tracker {
	return &tracker{maxHeld: maxHeld, maxPerNS: maxPerNS, pending: map[*delivery]struct{}{}, perNS: map[string]int{}}
}

// add starts a delivery waiting for n bindings: held (tracked until its
// bindings finish) while the budgets allow, else detached: acknowledged
// now, so that a namespace whose sinks stall holds at most maxPerNS of the
// consumer's MaxAckPending budget and the replica at most maxHeld (the
// server counts a nak'ed message against MaxAckPending too, so only an
// acknowledgement frees the budget). A detached event whose replica stops
// or crashes before its write comes back with its inventory's next event.
func (t *tracker) add(msg jetstream.Msg, ev *busv1.SnapshotEvent, n int) *delivery {
	d := &delivery{msg: msg, ev: ev, tracker: t}
	d.remaining.Store(int64(n))
	ns := ev.Inventory.Namespace
	t.mu.Lock()
	d.held = len(t.pending) < t.maxHeld && t.perNS[ns] < t.maxPerNS
	if d.held {
		t.pending[d] = struct{}{}
		t.perNS[ns]++
	}
	t.mu.Unlock()
	if !d.held {
		_ = msg.Ack()
		if t.detached != nil {
			t.detached()
		}
	}
	return d
}

func (t *tracker) remove(d *delivery) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.pending[d]; !ok {
		return
	}
	delete(t.pending, d)
	ns := d.ev.Inventory.Namespace
	if t.perNS[ns]--; t.perNS[ns] <= 0 {
		delete(t.perNS, ns)
	}
}

// held returns the number of deliveries held.
func (t *tracker) held() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.pending)
}

func (t *tracker) each(f func(*delivery)) {
	t.mu.Lock()
	ds := make([]*delivery, 0, len(t.pending))
	for d := range t.pending {
		ds = append(ds, d)
	}
	t.mu.Unlock()
	for _, d := range ds {
		f(d)
	}
}

// keepAlive tells the server every interval that held deliveries are in
// progress, so that a binding retrying for longer than the ack wait keeps
// its message instead of having it redelivered to another replica. Each
// attempt is bounded by the write timeout and the held budget bounds how
// many messages a stalled namespace keeps this way.
func (t *tracker) keepAlive(ctx context.Context, interval time.Duration) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			t.each(func(d *delivery) { _ = d.msg.InProgress() })
		}
	}
}

// release hands every held delivery back to the server at shutdown, so
// that another replica takes it over without waiting for the ack wait.
func (t *tracker) release() {
	t.each(func(d *delivery) {
		t.remove(d)
		_ = d.msg.Nak()
	})
}
