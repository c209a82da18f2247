package engine

import "time"

// A bulk arrival (an initial sync, a new Target, a re-list) adds rows all
// over an inventory's key range for many settle windows. Publishing every
// window would store again, each time, nearly every chunk the inventory
// has so far: the bus would take many times the snapshot's bytes. While a
// bulk lasts, the aggregator publishes at growing intervals instead, and
// at once when the rows stop coming, so the bytes stored during a bulk are
// about twice the snapshot's, and its end is published within two settle
// windows.

// bulkMinInserted and bulkChunkShare make a settle a bulk one: at least
// bulkMinInserted rows added since the last publish, and at least one for
// every bulkChunkShare chunks (rows added at random touch about as many
// chunks: one in bulkChunkShare is 5 %). Updates and deletions never make a
// bulk, so the latency of ordinary changes, however many, is unchanged.
const (
	bulkMinInserted = 8
	bulkChunkShare  = 20
)

// BulkMaxInterval is the longest time between two publishes of an
// inventory while rows keep being added in bulk.
const BulkMaxInterval = 2 * time.Minute

// bulk is an inventory's bulk arrival in progress; zero when none.
type bulk struct {
	// since is the first settle that found the bulk.
	since time.Time
	// next is the earliest publish while the bulk lasts.
	next time.Time
}

// deferBulk reports whether st's publish waits for more of a bulk
// arrival: when rows were added in bulk since the last publish, were still
// being added within the last settle window, and the bulk's next publish
// is not due. The next publish of a bulk comes twice as long after the
// previous as the bulk had lasted then (at most BulkMaxInterval), so the
// snapshots stored during it grow geometrically. A deferred st is checked
// again after a settle window.
func (e *Engine) deferBulk(st *invState, now time.Time) bool {
	if in := st.view.Inserted(); in < bulkMinInserted || in*bulkChunkShare < st.view.ChunkCount() {
		st.bulk = bulk{}
		return false
	}
	if st.bulk.since.IsZero() {
		st.bulk = bulk{since: now, next: now}
	}
	quiet := now.Sub(st.changedAt) >= e.opts.Settle
	if !quiet && now.Before(st.bulk.next) {
		st.phase, st.settleAt = settling, now.Add(e.opts.Settle)
		e.m.bulkDeferred()
		return true
	}
	st.bulk.next = now.Add(min(BulkMaxInterval, max(e.opts.Settle, 2*now.Sub(st.bulk.since))))
	return false
}

// wholeWrite reports whether a publish during a bulk leaves out its delta
// of rows changed rows in a snapshot of total rows: when it holds more than
// half the snapshot, exporters write the snapshot whole anyway (they do not
// compose deltas past half a snapshot either), so the delta would only add
// its bytes to the bus.
func (b bulk) wholeWrite(rows, total int) bool {
	return !b.since.IsZero() && rows > total/2
}
