package replayer

import (
	"fmt"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/history"
)

// ours reports whether e was published by the inventory whose uid is uid:
// an event without a uid (published before events carried one) counts as
// the current inventory's.
func ours(e history.Entry, uid string) bool {
	return e.InventoryUID == "" || e.InventoryUID == uid
}

// selectEntries returns the index entries of the events a request
// delivers, oldest first: one per revision (the first published), skipping
// replays, deletions and the events of an earlier inventory of the same
// name (another uid than uid, the current config's; F5 of SECURITY-3). The
// error names what the history lacks.
func selectEntries(req busv1.ReplayRequest, uid string, idx []history.Entry) ([]history.Entry, error) {
	var revs, earlier []history.Entry
	seen := map[uint64]bool{}
	for _, e := range idx {
		switch {
		case e.Replay || e.Reason == busv1.ReasonDeleted:
		case !ours(e, uid):
			earlier = append(earlier, e)
		case !seen[e.Revision]:
			seen[e.Revision] = true
			revs = append(revs, e)
		}
	}
	if len(revs) == 0 {
		return nil, fmt.Errorf("the bus holds no revision of %s%s", req.Inventory, earlierNote(earlier, nil))
	}
	span := fmt.Sprintf("retained revisions %d to %d", revs[0].Revision, revs[len(revs)-1].Revision)
	switch {
	case req.Backfill:
		in := func(e history.Entry) bool {
			return e.Revision >= req.FromRevision && (req.ToRevision == 0 || e.Revision <= req.ToRevision)
		}
		var out []history.Entry
		for _, e := range revs {
			if in(e) {
				out = append(out, e)
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("no retained revision of %s between %d and %d (%s)%s",
				req.Inventory, req.FromRevision, req.ToRevision, span, earlierNote(earlier, in))
		}
		return out, nil
	case req.Revision != 0:
		for _, e := range revs {
			if e.Revision == req.Revision {
				return []history.Entry{e}, nil
			}
		}
		for _, e := range earlier {
			if e.Revision == req.Revision {
				return nil, fmt.Errorf("revision %d of %s belongs to an earlier inventory of that name (uid %s), deleted since, "+
					"and is never replayed (this inventory's %s)", req.Revision, req.Inventory, e.InventoryUID, span)
			}
		}
		return nil, fmt.Errorf("revision %d of %s is not retained (%s)", req.Revision, req.Inventory, span)
	case !req.At.IsZero():
		for i := len(revs) - 1; i >= 0; i-- {
			if !revs[i].Time.After(req.At) {
				return revs[i : i+1], nil
			}
		}
		return nil, fmt.Errorf("no retained revision of %s was created at or before %s (%s, the oldest created %s)%s",
			req.Inventory, req.At.Format(time.RFC3339), span, revs[0].Time.Format(time.RFC3339),
			earlierNote(earlier, func(e history.Entry) bool { return !e.Time.After(req.At) }))
	}
	return revs[len(revs)-1:], nil
}

// earlierNote says, after the message of a selection that found nothing,
// that events the request would have selected (match; nil: any) belong to
// an earlier inventory of the same name, and are never replayed; empty
// when none does.
func earlierNote(earlier []history.Entry, match func(history.Entry) bool) string {
	revs := map[uint64]bool{}
	var uid string
	for _, e := range earlier {
		if match == nil || match(e) {
			revs[e.Revision], uid = true, e.InventoryUID
		}
	}
	if len(revs) == 0 {
		return ""
	}
	return fmt.Sprintf("; %d retained revision(s) that would match belong to an earlier inventory of that name (uid %s), "+
		"deleted since, and are never replayed", len(revs), uid)
}
