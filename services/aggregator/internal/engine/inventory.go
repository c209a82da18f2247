package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"kollect.dev/kollect/pkg/app"

	"github.com/nats-io/nats.go/jetstream"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/services/aggregator/internal/index"
)

// invState is what the engine knows about one inventory.
type invState struct {
	name busv1.NamespacedName
	cfg  *busv1.InventoryConfig
	// phase is what the next check does (phase.go): loading until last,
	// body and the view's base were read back from the inventory's
	// snapshot subject.
	phase phase
	// deleted is set when the config key is gone and a final event is
	// still owed (deletionPolicy Delete): the inventory is deleting, or
	// loading and deletes once loaded.
	deleted bool
	// held is set when the config key went while the config bucket was
	// incomplete: the deletion waits for bus.ConfigCompleteKey.
	held bool

	last published
	// view is the inventory's snapshot, maintained row by row; nil for an
	// orphan (a deleted inventory found on the bus without config).
	view *index.View
	// body is what periodic events of the last revision carry.
	body body

	// settleAt is when the pending check of a phase other than idle runs:
	// the end of its settle window or of a retry's backoff.
	settleAt time.Time
	// due is, per binding with a non-zero interval, the next periodic event.
	due map[busv1.SinkRef]time.Time
	// periodic is, per binding, the sequence of the last periodic event
	// this engine published to it: the next one supersedes it.
	periodic map[busv1.SinkRef]uint64
	// outcome is the last publish failure, for status.
	outcome busv1.Outcome
	// quota is the outcome of its namespace's quota at the last
	// collection (NamespaceQuotaExceeded), reported when outcome is empty.
	quota busv1.Outcome
	// history is what the bus kept of the inventory's history at the last
	// trim (collect), for status; nil before the first.
	history *busv1.HistoryStatus
	// changedAt is when a row or the config last changed the view
	// (markDirty); bulk is the bulk arrival in progress, if any (bulk.go).
	changedAt time.Time
	bulk      bulk
}

// published is the last event on the inventory's subject.
type published struct {
	revision uint64
	checksum string
	// previous is the checksum of the revision before (the event's
	// PreviousChecksum), repeated by periodic events.
	previous   string
	generation int64
	seq        uint64
	itemCount  int
	createdAt  time.Time
	reason     busv1.SnapshotReason
	bindings   []busv1.SinkRef
}

func (p published) addressed(ref busv1.SinkRef) bool {
	for _, b := range p.bindings {
		if b == ref {
			return true
		}
	}
	return false
}

func sinkRefs(bs []busv1.Binding) []busv1.SinkRef {
	out := make([]busv1.SinkRef, len(bs))
	for i, b := range bs {
		out[i] = b.SinkRef
	}
	return out
}

func (e *Engine) applyRow(ent jetstream.KeyValueEntry) {
	defer e.observe(Event{Kind: EventRowApplied, Revision: ent.Revision()})
	key, err := bus.ParseRowKey(ent.Key())
	if err != nil {
		e.opts.Log.Error(err, "skip row", app.KeyKey, ent.Key())
		return
	}
	var old, next *index.Row
	if ent.Operation() == jetstream.KeyValuePut {
		r, err := index.ParseEntry(ent.Value())
		if err == nil && r.Key != key {
			err = errors.New("the row's identity is not its key")
		}
		if err != nil {
			e.opts.Log.Error(err, "skip undecodable row", app.KeyKey, ent.Key())
			return
		}
		var changed bool
		if old, changed = e.rows.Put(r); !changed {
			e.m.rowApplied()
			return
		}
		next = r
	} else if old = e.rows.Delete(key); old == nil {
		e.m.rowApplied()
		return
	}
	e.m.rowApplied()
	for _, st := range e.invs {
		if st.view != nil && index.Affects(st.cfg, key) && st.view.Apply(old, next) && e.ready {
			e.markDirty(st)
		}
	}
}

func (e *Engine) applyConfig(ent jetstream.KeyValueEntry) {
	defer e.observe(Event{Kind: EventConfigApplied, Revision: ent.Revision()})
	ref, err := bus.ParseConfigKey(ent.Key())
	if err != nil {
		e.opts.Log.Error(err, "skip config entry", app.KeyKey, ent.Key())
		return
	}
	name := busv1.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}
	if !e.owns(name) {
		return // another shard's
	}
	st := e.invs[name]
	if ent.Operation() != jetstream.KeyValuePut {
		if st == nil || st.cfg == nil || e.holdDeletion(st) {
			return
		}
		e.deleteInventory(name, st)
		return
	}
	var cfg busv1.InventoryConfig
	if err := json.Unmarshal(ent.Value(), &cfg); err != nil {
		e.opts.Log.Error(err, "skip undecodable inventory config", app.KeyKey, ent.Key())
		return
	}
	e.floorIntervals(&cfg)
	if st == nil {
		st = &invState{name: name}
		e.invs[name] = st
	}
	st.cfg, st.deleted, st.held = &cfg, false, false
	if st.phase == deleting {
		st.phase = settling // back before its final event: no longer owed
	}
	switch {
	case st.view == nil:
		st.view = index.NewView(st.cfg, e.rows)
		st.view.ForgetBase()
	case selects(st.view.Config()) != selects(st.cfg):
		st.view.Reconfigure(st.cfg, e.rows)
	}
	if e.ready {
		e.markDirty(st)
	}
}

// floorIntervals raises every binding's non-zero interval in cfg to the
// operator's floor (Options.MinExportInterval), so that no binding gets
// periodic events more often than that, whatever its config on the bus
// says. A zero interval (no periodic events) stays zero.
func (e *Engine) floorIntervals(cfg *busv1.InventoryConfig) {
	floor := e.opts.MinExportInterval
	for i := range cfg.Bindings {
		if d := &cfg.Bindings[i].EffectiveInterval.Duration; *d > 0 && *d < floor {
			*d = floor
		}
	}
}

// markDirty schedules a check for a material change after the settle window;
// changes inside the window ride along with the first one.
func (e *Engine) markDirty(st *invState) {
	if st.phase == idle {
		st.phase = settling
	}
	st.changedAt = e.clock.Now()
	if st.settleAt.IsZero() {
		st.settleAt = st.changedAt.Add(e.opts.Settle)
	}
	e.schedule(st)
}

// scheduleAll sets every binding's next periodic event interval after now.
func (st *invState) scheduleAll(now time.Time) {
	st.due = map[busv1.SinkRef]time.Time{}
	for _, b := range st.cfg.Bindings {
		if b.EffectiveInterval.Duration > 0 {
			st.due[b.SinkRef] = now.Add(b.EffectiveInterval.Duration)
		}
	}
}

// scheduleFromLast sets the next periodic events after a (re)load: one
// interval after the last event for the bindings it addressed, one interval
// from now for the others, so that taking over never re-publishes at once.
func (st *invState) scheduleFromLast(now time.Time) {
	st.scheduleAll(now)
	if st.last.revision == 0 || st.last.reason == busv1.ReasonDeleted {
		return
	}
	for _, b := range st.cfg.Bindings {
		if _, ok := st.due[b.SinkRef]; ok && st.last.addressed(b.SinkRef) {
			st.due[b.SinkRef] = st.last.createdAt.Add(b.EffectiveInterval.Duration)
		}
	}
}

// selects is what decides an inventory's members, as a comparable string.
func selects(c *busv1.InventoryConfig) string {
	return fmt.Sprintf("%s|%s|%q|%q|%s|%t", c.Kind, c.Namespace, c.TargetRefs, c.Namespaces, c.Dedupe, c.Namespaces == nil)
}
