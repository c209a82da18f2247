package engine

import "time"

// A bulk arrival (an initial sync, a new Target, a re-list) adds rows all
// over an inventory's key range for many settle windows. Publishing every
// window would store again, each time, nearly every chunk the inventory
// has so far: the bus would take many times the snapshot's bytes. While a
// bulk lasts, the aggregator publishes at growing intervals instead, and
// at once when the rows stop coming, so the bytes stored during a bulk are
// about twice the snapshot's, and its end is published about a second
// (bulkQuiet) plus a settle window after the last row.

// bulkMinInserted and bulkChunkShare make a settle a bulk one: at least
// bulkMinInserted rows added since the last publish, and at least one for
// every bulkChunkShare chunks (rows added at random touch about as many
// chunks: one in bulkChunkShare is 5 %). Updates and deletions never make a
// bulk, so the latency of ordinary changes, however many, is unchanged.
const (
	bulkMinInserted = 8
	bulkChunkShare  = 20
)

// bulkGrowth is how many times the bulk's age a publish of it waits after
// the previous one: the bulk's age at its publishes grows fourfold each,
// so with rows arriving at a steady rate the snapshots stored before the
// last sum to a third of the last; with the one stored when the rows stop,
// a bulk stores between one and about 2.3 times the final snapshot.
const bulkGrowth = 3

// bulkQuiet is the least time without rows added that ends a bulk, even
// with a shorter settle window: a loaded bus or collector pauses the rows
// for a few hundred milliseconds mid-sync, and each pause taken for the end
// would store nearly every chunk again.
const bulkQuiet = time.Second

// BulkMaxInterval is the longest time between two publishes of an
// inventory while rows keep being added in bulk.
const BulkMaxInterval = 2 * time.Minute

// bulk is an inventory's bulk arrival in progress; zero when none.
type bulk struct {
	// since is the first settle that found the bulk.
	since time.Time
	// next is the earliest publish while the bulk lasts.
	next time.Time
	// waited is set once a publish of the bulk waited: a burst of rows
	// within one settle window is published as ever.
	waited bool
}

// deferBulk reports whether st's publish waits for more of a bulk
// arrival: when rows were added in bulk since the last publish, were still
// being added within the last bulkQuiet, and the bulk's next publish is not
// due. The next publish of a bulk comes bulkGrowth times as long after the
// previous as the bulk had lasted then (at most BulkMaxInterval), so the
// snapshots stored during it grow geometrically. A deferred st is checked
// again after a settle window. Without a settle window nothing waits, nor
// does a snapshot small enough to go inline in its event (it stores no
// chunks).
func (e *Engine) deferBulk(st *invState, now time.Time) bool {
	if e.opts.Settle <= 0 || e.inline(st) { // no settle window, or no chunks stored
		st.bulk = bulk{}
		return false
	}
	if in := st.view.Inserted(); in < bulkMinInserted || in*bulkChunkShare < st.view.ChunkCount() {
		st.bulk = bulk{}
		return false
	}
	if st.bulk.since.IsZero() {
		st.bulk = bulk{since: now, next: now}
	}
	quiet := now.Sub(st.changedAt) >= max(e.opts.Settle, bulkQuiet)
	if !quiet && now.Before(st.bulk.next) {
		st.phase, st.settleAt, st.bulk.waited = settling, now.Add(e.opts.Settle), true
		e.m.bulkDeferred()
		return true
	}
	st.bulk.next = now.Add(min(BulkMaxInterval, max(e.opts.Settle, bulkGrowth*now.Sub(st.bulk.since))))
	return false
}

// wholeWrite reports whether a publish of a bulk that waited leaves out its
// delta of rows changed rows in a snapshot of total rows: when it holds
// more than half the snapshot, exporters write the snapshot whole anyway
// (they do not compose deltas past half a snapshot either), so the delta
// would only add its bytes to the bus.
func (b bulk) wholeWrite(rows, total int) bool {
	return b.waited && rows > total/2
}
