package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/nats-io/nats.go/jetstream"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
)

// owns reports whether inv is this engine's: every inventory when
// Options.Owns is unset, else those of the owners placed on its shard.
func (e *Engine) owns(inv busv1.NamespacedName) bool {
	return e.opts.Owns == nil || e.opts.Owns(bus.OwnerOf(inv))
}

// ownsObject reports whether garbage collection may delete the object
// called name: one of this engine's owners, or an object without an owner
// (written before shards) when this engine reads every history (readsAll).
func (e *Engine) ownsObject(name string, readsAll bool) bool {
	o, ok := bus.ParseObjectOwner(name)
	if !ok {
		return readsAll
	}
	return e.opts.Owns == nil || e.opts.Owns(o)
}

// readsAll reports whether the next collection reads the history of every
// inventory, not only its own: an unsharded engine always does; the shard
// that collects objects without an owner (Options.CollectUnowned) does
// while the store still holds some, so that it sees every event that
// references one.
func (e *Engine) readsAll() bool {
	return e.opts.Owns == nil || e.opts.CollectUnowned && e.unownedLeft
}

// historyFilters returns the snapshot subjects of this engine's
// inventories, those without config included (orphans, whose history it
// purges): a wildcard per namespace, a subject per cluster inventory; every
// snapshot subject when all.
func (e *Engine) historyFilters(ctx context.Context, all bool) ([]string, error) {
	if all {
		return []string{bus.SnapshotSubjects}, nil
	}
	s, err := e.js.Stream(ctx, bus.StreamSnapshots)
	if err != nil {
		return nil, fmt.Errorf("open stream %s: %w", bus.StreamSnapshots, err)
	}
	info, err := s.Info(ctx, jetstream.WithSubjectFilter(bus.SnapshotSubjects))
	if err != nil {
		return nil, fmt.Errorf("list snapshot subjects: %w", err)
	}
	set := map[string]struct{}{}
	for subject := range info.State.Subjects {
		inv, err := bus.ParseSnapshotSubject(subject)
		if err != nil || !e.owns(inv) {
			continue
		}
		if inv.Namespace == "" {
			set[subject] = struct{}{}
		} else {
			set[strings.TrimSuffix(subject, bus.EncodeToken(inv.Name))+"*"] = struct{}{}
		}
	}
	out := make([]string, 0, len(set))
	for f := range set {
		out = append(out, f)
	}
	slices.Sort(out)
	return out, nil
}
