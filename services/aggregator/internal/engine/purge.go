package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/nats-io/nats.go/jetstream"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/pkg/bus"
)

// trimPeriodic deletes the periodic events of evs that a later periodic
// event to the same bindings superseded (published by an earlier engine,
// or whose deletion failed: dropSuperseded deletes them as it goes), and
// returns the events left. A periodic event adds no revision, so only the
// newest to each binding is worth keeping.
func (e *Engine) trimPeriodic(ctx context.Context, evs []retained) ([]retained, error) {
	later := map[string]bool{}
	drop := map[int]bool{}
	for i := len(evs) - 1; i >= 0; i-- {
		r := evs[i].refs
		if r.Reason != busv1.ReasonPeriodic || r.replay() {
			continue
		}
		key := bindingsKey(r.Bindings)
		if later[key] && i < len(evs)-1 {
			if err := e.deleteEvent(ctx, evs[i].seq); err != nil {
				return nil, err
			}
			drop[i] = true
		}
		later[key] = true
	}
	if len(drop) == 0 {
		return evs, nil
	}
	out := make([]retained, 0, len(evs)-len(drop))
	for i, ev := range evs {
		if !drop[i] {
			out = append(out, ev)
		}
	}
	return out, nil
}

func bindingsKey(refs []busv1.SinkRef) string {
	keys := make([]string, len(refs))
	for i, r := range refs {
		keys[i] = string(r.Family) + "/" + r.Namespace + "/" + r.Name
	}
	slices.Sort(keys)
	return strings.Join(keys, "\n")
}

// purgeOrphans purges the whole history of every inventory deleted at
// least HistoryPurgeGrace ago (its subject has events, but the config
// bucket, complete, has no config for it), and drops it from history. An
// inventory re-created with the same name within the grace keeps the old
// events until they age out, but nothing reads, diffs or replays events of
// another inventory uid. The grace is counted from the first collection
// that found the subject orphaned, so a restart starts it again: a
// history is purged at least, never before, the grace after its deletion.
func (e *Engine) purgeOrphans(ctx context.Context, history map[string][]retained) {
	if !e.configComplete || e.opts.HistoryPurgeGrace <= 0 {
		return
	}
	now := e.clock.Now()
	orphaned := map[string]bool{}
	for subject := range history {
		name, err := bus.ParseSnapshotSubject(subject)
		if err != nil {
			continue
		}
		if st, ok := e.invs[name]; ok && st.cfg != nil {
			continue
		}
		orphaned[subject] = true
		since, ok := e.orphanSince[subject]
		if !ok {
			e.orphanSince[subject] = now
			continue
		}
		if now.Sub(since) < e.opts.HistoryPurgeGrace {
			continue
		}
		if err := e.purgeAll(ctx, subject); err != nil {
			e.opts.Log.Error(err, "purge the history of a deleted inventory", app.KeySubject, subject)
			continue
		}
		e.opts.Log.Info("purged the history of a deleted inventory", app.KeySubject, subject,
			"events", len(history[subject]), "deletedFor", now.Sub(since).String())
		delete(history, subject)
		delete(e.orphanSince, subject)
		if st, ok := e.invs[name]; ok && st.cfg == nil {
			delete(e.invs, name)
		}
		e.m.historyPurged()
	}
	for subject := range e.orphanSince {
		if !orphaned[subject] {
			delete(e.orphanSince, subject) // re-created, or gone
		}
	}
}

// purgeAll deletes every event of subject.
func (e *Engine) purgeAll(ctx context.Context, subject string) error {
	s, err := e.js.Stream(ctx, bus.StreamSnapshots)
	if err != nil {
		return fmt.Errorf("open stream %s: %w", bus.StreamSnapshots, err)
	}
	if err := s.Purge(ctx, jetstream.WithPurgeSubject(subject)); err != nil {
		return fmt.Errorf("purge history of %s: %w", subject, err)
	}
	return nil
}
