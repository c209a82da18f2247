package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	"github.com/nats-io/nats.go/jetstream"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/history"
	"kollect.dev/kollect/services/aggregator/internal/index"
	"kollect.dev/kollect/services/aggregator/internal/publish"
)

// Options tune the engine.
type Options struct {
	// Settle is how long a material change waits for more changes before
	// it is published, so that a burst of row writes publishes once.
	Settle time.Duration
	// CollectorShards is the collector's shard count: the rows bucket is
	// synced while it holds the rows-synced marker of each of them
	// (bus.RowsSyncedShardKey). Zero is bus.DefaultCollectorShards.
	CollectorShards int
	// RetryBackoff is how long a failed publish waits before it is retried.
	RetryBackoff time.Duration
	// MaxMessageBytes bounds an inline event; zero uses the bus limits.
	MaxMessageBytes int
	// Clock is the time source; nil is the wall clock.
	Clock Clock
	// Log receives one line per failure handled here.
	Log logr.Logger
	// Metrics records what the engine does; nil records nothing.
	Metrics *Metrics
	// GCInterval is the longest time between two collections of objects no
	// retained snapshot references; zero disables collection.
	GCInterval time.Duration
	// GCAfterBytes starts a collection sooner, once this many object bytes
	// were written since the last one (but at most every GCMinInterval).
	GCAfterBytes int64
	// GCGrace is how old an unreferenced object must be before it is
	// deleted, so a reader that just got its event can still load it.
	GCGrace time.Duration
	// BusCheckInterval is how often the engine checks that the rows and
	// config buckets are the ones it rebuilt from; zero never checks.
	BusCheckInterval time.Duration
	// HistoryRevisions, HistoryMaxAge and HistoryMaxBytes are the default
	// retention of an inventory's snapshot history, for inventories whose
	// spec.history leaves a field unset: how many distinct revisions, for
	// how long (by the event's createdAt on the engine's clock) and how many
	// referenced bytes. Older events are dropped at each collection (the
	// newest always stays); a Scope's cap lowers them. Zero is unlimited.
	HistoryRevisions int64
	HistoryMaxAge    time.Duration
	HistoryMaxBytes  int64
	// MinExportInterval is the operator's floor for every binding's
	// periodic interval (--min-export-interval): a binding whose config
	// asks for a shorter non-zero interval gets periodic events at this
	// interval instead, whatever the config on the bus says (admission may
	// be off, a config may predate the floor). Zero, on a binding (no
	// periodic events) or here (no floor), is left alone.
	MinExportInterval time.Duration
	// NamespaceBusBytes and NamespaceHistoryRevisions are the operator's
	// quota on what all inventories of one namespace keep on the bus
	// (enforceQuotas): bytes of events and referenced objects, and distinct
	// revisions retained. A namespace's KollectScope may lower them
	// (InventoryConfig.NamespaceQuota). Zero is unlimited.
	NamespaceBusBytes         int64
	NamespaceHistoryRevisions int64
	// HistoryPurgeGrace is how long the history of a deleted inventory
	// stays on the bus before it is purged (purgeOrphans); zero never
	// purges.
	HistoryPurgeGrace time.Duration
	// Owns, when set, restricts the engine to the inventories of the
	// owners it accepts (bus.OwnerOf; an aggregator shard's): it follows
	// their configs and only the rows they read, publishes and reports
	// them, trims and purges only their histories, and deletes only their
	// owners' objects. Nil is every inventory.
	Owns func(bus.ObjectOwner) bool
	// CollectUnowned, with Owns, lets this engine delete objects without
	// an owner (written before the aggregator was sharded): while the
	// store holds some, its collections read every inventory's history,
	// so that it sees every event that references one. One shard sets it.
	CollectUnowned bool
	// MaxRowFilters is the most namespaces the rows watch of an engine
	// with Owns names one filter each (zero: 256); one reading more
	// watches every row and skips those of other namespaces.
	MaxRowFilters int
	// Shard labels the engine's per-shard metrics (NameShardInventories,
	// NameShardRows); "" for an unsharded engine.
	Shard string
	// Observe, when set, is told every step of the engine's work, on the
	// engine's goroutine; it must return quickly. Tests wait on it.
	Observe func(Event)
}

// Engine keeps the snapshots of every inventory and publishes them.
type Engine struct {
	js jetstream.JetStream
	// snapshots is the snapshot stream, opened at the first event deleted.
	snapshots jetstream.Stream
	// orphanSince is, per snapshot subject without an inventory, when a
	// collection first found it so (purgeOrphans).
	orphanSince map[string]time.Time
	pub         *publish.Publisher
	opts        Options
	clock       Clock
	m           *Metrics
	rows        *index.Rows
	// loader reads snapshots back (restart, delta base, garbage collection).
	loader *history.Loader
	invs   map[busv1.NamespacedName]*invState
	// timers holds each inventory's next check or periodic event, once
	// the rebuild ended.
	timers *timers
	// manifests caches what the manifests and pages garbage collection
	// read reference, by object name.
	manifests map[string]manifestObjects
	gcAt      time.Time
	gcLast    time.Time
	written   int64 // object bytes written since the last collection
	ready     bool
	// rowsSynced and configComplete say whether the buckets hold their
	// markers (hold.go).
	rowsSynced     bool
	configComplete bool
	syncedShards   map[int]bool // the collector shards whose marker the rows bucket holds
	guard          *bus.Incarnation
	// unownedLeft is whether the last collection left objects without an
	// owner in the store (readsAll); true until one found none.
	unownedLeft bool
	// rw is the rows watch, restricted to the rows of the engine's
	// inventories when Options.Owns is set (rowswatch.go).
	rw *rowsWatch
	// usageNS are the namespaces whose usage this engine last reported.
	usageNS map[string]struct{}
	// sweeping is closed when the last collection's deletions ended
	// (sweep); nil before the first.
	sweeping chan struct{}
}

// New opens the publisher; Run does the rest.
func New(ctx context.Context, js jetstream.JetStream, opts Options) (*Engine, error) {
	pub, err := publish.New(ctx, js, js.Conn(), opts.MaxMessageBytes)
	if err != nil {
		return nil, err
	}
	if opts.Clock == nil {
		opts.Clock = RealClock{}
	}
	if opts.RetryBackoff <= 0 {
		opts.RetryBackoff = time.Second
	}
	return &Engine{js: js, pub: pub, opts: opts, clock: opts.Clock, m: opts.Metrics, rows: index.NewRows(), loader: history.NewLoader(js, -1),
		invs: map[busv1.NamespacedName]*invState{}, timers: newTimers(), manifests: map[string]manifestObjects{},
		orphanSince: map[string]time.Time{}, unownedLeft: true}, nil
}

// Run rebuilds every snapshot from the bus, then follows rows and config and
// publishes until ctx ends. It runs only while its replica holds the lease,
// so it is what the leader metric reports.
func (e *Engine) Run(ctx context.Context) error {
	e.m.lead()
	defer e.m.stepDown()
	var err error
	if e.guard, err = bus.Watch(ctx, e.js, rebuiltFrom); err != nil {
		return err
	}
	e.m.holding(heldRows, true)
	e.m.holding(heldConfig, true)
	rowsKV, err := e.js.KeyValue(ctx, bus.BucketRows)
	if err != nil {
		return fmt.Errorf("open KV bucket %s: %w", bus.BucketRows, err)
	}
	cfgKV, err := e.js.KeyValue(ctx, bus.BucketConfig)
	if err != nil {
		return fmt.Errorf("open KV bucket %s: %w", bus.BucketConfig, err)
	}
	// A shard's work stops writing before its lease goes: the last
	// collection's deletions are cancelled, then waited for.
	defer e.sweepDone()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	e.rw = &rowsWatch{kv: rowsKV}
	if e.opts.Owns == nil {
		if err := e.watchAllRows(ctx, rowsKV); err != nil {
			return err
		}
	} // else the first watch starts once the inventories are known (loop)
	defer func() { e.rw.stop() }()
	defer func() {
		e.m.shardGone(e.opts.Shard, e.invs)
		e.usageNS = e.m.namespaceUsage(e.usageNS, nil)
	}()
	cw, err := cfgKV.WatchFiltered(ctx, []string{
		bus.ConfigKeyFilter(busv1.KindInventory), bus.ConfigKeyFilter(busv1.KindClusterInventory), bus.ConfigCompleteKey})
	if err != nil {
		return fmt.Errorf("watch inventories in KV bucket %s: %w", bus.BucketConfig, err)
	}
	defer func() { _ = cw.Stop() }()
	return e.loop(ctx, cw.Updates())
}

func (e *Engine) loop(ctx context.Context, cfg <-chan jetstream.KeyValueEntry) error {
	var rowsDone, cfgDone bool
	var check <-chan time.Time
	if e.opts.BusCheckInterval > 0 && e.guard != nil {
		t := time.NewTicker(e.opts.BusCheckInterval)
		defer t.Stop()
		check = t.C
	}
	for {
		var wake <-chan time.Time
		if e.ready && !e.rw.resyncing {
			if at, ok := e.nextWake(); ok {
				wake = e.clock.Until(at)
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case ent, ok := <-e.rw.updates():
			if !ok {
				return e.stopped(ctx, bus.BucketRows)
			}
			switch {
			case ent == nil:
				if e.rw.resyncing {
					e.resynced()
				}
				rowsDone = true
			case !e.applyMarker(ctx, ent) && e.keeps(ent.Key()):
				e.applyRow(ent)
			}
		case ent, ok := <-cfg:
			if !ok {
				return e.stopped(ctx, bus.BucketConfig)
			}
			switch {
			case ent == nil:
				cfgDone = true
			case !e.applyMarker(ctx, ent):
				e.applyConfig(ent)
			}
			if cfgDone {
				if err := e.rewatch(ctx); err != nil {
					return err
				}
			}
		case <-check:
			if err := e.guard.Check(ctx); errors.Is(err, bus.ErrReset) {
				return err // a failure to ask (NATS down) is no answer
			}
		case <-wake:
			e.fire(ctx)
		}
		if !e.ready && rowsDone && cfgDone {
			e.start(ctx)
		}
		e.m.shardSize(e.opts.Shard, len(e.invs), e.rows.Len())
	}
}

// stopped is the error for a closed watcher: none when ctx ended, which
// closes watchers too, and bus.ErrReset when its stream was deleted or
// re-created, so that the caller rebuilds instead of exiting.
func (e *Engine) stopped(ctx context.Context, bucket string) error {
	if ctx.Err() != nil {
		return nil //nolint:nilerr // a cancelled ctx is a clean stop
	}
	if e.guard != nil {
		if err := e.guard.Check(ctx); errors.Is(err, bus.ErrReset) {
			return err
		}
	}
	return fmt.Errorf("watch KV bucket %s: watcher stopped", bucket)
}

// start ends the rebuild: every inventory is compared with its last event.
func (e *Engine) start(ctx context.Context) {
	e.ready = true
	now := e.clock.Now()
	if e.configComplete {
		e.adoptOrphans(ctx)
	}
	e.gcAt, e.gcLast = now.Add(e.opts.GCInterval), now
	for _, st := range e.invs {
		st.settleAt = now
		e.schedule(st)
	}
	e.observe(Event{Kind: EventRebuilt})
}

// nextWake returns the earliest check or periodic event of any inventory,
// or garbage collection's time when sooner.
func (e *Engine) nextWake() (time.Time, bool) {
	at, found := e.timers.next()
	consider := func(t time.Time) {
		if !t.IsZero() && (!found || t.Before(at)) {
			at, found = t, true
		}
	}
	if e.opts.GCInterval > 0 {
		consider(e.gcAt)
		if e.opts.GCAfterBytes > 0 && e.written >= e.opts.GCAfterBytes {
			consider(e.gcLast.Add(GCMinInterval))
		}
	}
	return at, found
}

// schedule puts st's next wake-up time in the timers, once the rebuild
// ended; call it after changing st's phase, settleAt or due.
func (e *Engine) schedule(st *invState) {
	if !e.ready {
		return
	}
	if at, ok := st.wakeAt(); ok {
		e.timers.set(st.name, at)
		return
	}
	e.timers.remove(st.name)
}
