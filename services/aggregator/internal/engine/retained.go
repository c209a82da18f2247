package engine

import (
	"context"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
)

// noteHistory records on the inventory's state what its trimmed history
// kept (subject's events kept), and reports the status when that changed:
// the figures status.history shows. An inventory still loading its last
// event reports them with its first snapshot; an orphan's history has no
// status.
func (e *Engine) noteHistory(ctx context.Context, subject string, kept []retained) error {
	name, err := bus.ParseSnapshotSubject(subject)
	if err != nil {
		return nil //nolint:nilerr // not an inventory's subject: no status to report
	}
	st, ok := e.invs[name]
	if !ok || st.cfg == nil {
		return nil
	}
	h, err := e.summarize(ctx, kept)
	if err != nil {
		return err
	}
	if st.history != nil && sameHistory(*st.history, h) {
		return nil
	}
	st.history = &h
	if st.phase != loading && st.last.revision > 0 { // else its next report, once it knows its snapshot, carries it
		e.report(st, e.clock.Now())
	}
	return nil
}

// summarize counts the distinct revisions of kept (replays repeat a
// revision and add none), its oldest revision and when that was published,
// and the bytes kept keeps on the bus: the events and every object they
// reference, each counted once (as the retention's maxBytes counts them).
func (e *Engine) summarize(ctx context.Context, kept []retained) (busv1.HistoryStatus, error) {
	var h busv1.HistoryStatus
	fp, err := e.footprint(ctx, kept)
	if err != nil {
		return h, err
	}
	h.Bytes, h.Revisions = fp[0].bytes, int(fp[0].revisions)
	for _, ev := range kept {
		if !ev.refs.replay() {
			h.OldestRevision, h.OldestTime = ev.refs.Revision, ev.refs.CreatedAt.UTC()
			break
		}
	}
	return h, nil
}

// sameHistory is whether a and b keep the same history.
func sameHistory(a, b busv1.HistoryStatus) bool {
	return a.Revisions == b.Revisions && a.OldestRevision == b.OldestRevision && a.OldestTime.Equal(b.OldestTime) && a.Bytes == b.Bytes
}
