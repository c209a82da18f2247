package replayer

import (
	"fmt"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/history"
)

// selectEvents returns the events a request delivers, oldest first: one
// event per revision (the first published), skipping replays and
// deletions. The error names what the history lacks.
func selectEvents(req busv1.ReplayRequest, history []history.Stored) ([]busv1.SnapshotEvent, error) {
	var revs []busv1.SnapshotEvent
	seen := map[uint64]bool{}
	for _, s := range history {
		ev := s.Event
		if ev.Replay != nil || ev.Reason == busv1.ReasonDeleted || seen[ev.Revision] {
			continue
		}
		seen[ev.Revision] = true
		revs = append(revs, ev)
	}
	if len(revs) == 0 {
		return nil, fmt.Errorf("the bus holds no revision of %s", req.Inventory)
	}
	span := fmt.Sprintf("retained revisions %d to %d", revs[0].Revision, revs[len(revs)-1].Revision)
	switch {
	case req.Backfill:
		var out []busv1.SnapshotEvent
		for _, ev := range revs {
			if ev.Revision >= req.FromRevision && (req.ToRevision == 0 || ev.Revision <= req.ToRevision) {
				out = append(out, ev)
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("no retained revision of %s between %d and %d (%s)", req.Inventory, req.FromRevision, req.ToRevision, span)
		}
		return out, nil
	case req.Revision != 0:
		for _, ev := range revs {
			if ev.Revision == req.Revision {
				return []busv1.SnapshotEvent{ev}, nil
			}
		}
		return nil, fmt.Errorf("revision %d of %s is not retained (%s)", req.Revision, req.Inventory, span)
	case !req.At.IsZero():
		for i := len(revs) - 1; i >= 0; i-- {
			if !revs[i].CreatedAt.After(req.At) {
				return revs[i : i+1], nil
			}
		}
		return nil, fmt.Errorf("no retained revision of %s was created at or before %s (%s, the oldest created %s)",
			req.Inventory, req.At.Format(time.RFC3339), span, revs[0].CreatedAt.Format(time.RFC3339))
	}
	return revs[len(revs)-1:], nil
}
