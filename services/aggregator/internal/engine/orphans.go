package engine

import (
	"cmp"
	"context"
	"slices"

	"kollect.dev/kollect/pkg/app"

	"github.com/nats-io/nats.go/jetstream"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/history"
)

// adoptOrphans finds, at the end of the rebuild, inventories whose config
// entry is gone (deleted while no aggregator ran) but whose last published
// event on the snapshot stream is not a deletion, and whose policy, carried
// on that event, is Delete: each is tracked as deleted so that its settle
// publishes the final empty snapshot. A failure is logged and skipped; the
// next start tries again.
func (e *Engine) adoptOrphans(ctx context.Context) {
	s, err := e.js.Stream(ctx, bus.StreamSnapshots)
	if err != nil {
		e.opts.Log.Error(err, "list snapshot subjects for deleted inventories")
		return
	}
	info, err := s.Info(ctx, jetstream.WithSubjectFilter(bus.SnapshotSubjects))
	if err != nil {
		e.opts.Log.Error(err, "list snapshot subjects for deleted inventories")
		return
	}
	for subject := range info.State.Subjects {
		inv, err := bus.ParseSnapshotSubject(subject)
		if err != nil || e.invs[inv] != nil || !e.owns(inv) {
			continue
		}
		cfg, err := e.orphanConfig(ctx, inv)
		if err != nil {
			e.opts.Log.Error(err, "check inventory without config", app.KeyInventory, inv.String())
			continue
		}
		if cfg != nil {
			e.floorIntervals(cfg)
			st := &invState{name: inv, cfg: cfg, deleted: true}
			e.invs[inv] = st
			if e.ready {
				e.markDirty(st) // adopted when the config marker came back
			}
		}
	}
}

// orphanConfig rebuilds the config of inv from its history when its last
// published event calls for a deletion event: the bindings are those of the
// latest event addressed to every binding (not a periodic one) and every
// sink that ever delivered the inventory (its export state), since periodic
// events, one binding each, may have pushed that event out of the history
// (M9). It returns nil when nothing is to be published.
func (e *Engine) orphanConfig(ctx context.Context, inv busv1.NamespacedName) (*busv1.InventoryConfig, error) {
	last, _, err := history.LastPublished(ctx, e.js, inv)
	if err != nil || last == nil {
		return nil, err
	}
	ev := last.Event
	if ev.Reason == busv1.ReasonDeleted || ev.DeletionPolicy != busv1.DeletionDelete {
		return nil, nil
	}
	bindings := ev.Bindings
	if ev.Reason != busv1.ReasonChange {
		// The index, then the one change event: never the whole history.
		idx, err := history.Index(ctx, e.js, inv)
		if err != nil {
			return nil, err
		}
		for i := len(idx) - 1; i >= 0; i-- {
			if x := idx[i]; !x.Replay && x.Reason == busv1.ReasonChange {
				st, err := history.At(ctx, e.js, inv, x.Sequence)
				if err != nil {
					return nil, err
				}
				bindings = st.Event.Bindings
				break
			}
		}
	}
	delivered, err := exportStates(ctx, e.js, inv)
	if err != nil {
		return nil, err
	}
	for ref := range delivered {
		if !slices.ContainsFunc(bindings, func(b busv1.Binding) bool { return b.SinkRef == ref }) {
			bindings = append(bindings, busv1.Binding{SinkRef: ref})
		}
	}
	slices.SortFunc(bindings, func(a, b busv1.Binding) int {
		return cmp.Or(cmp.Compare(a.Family, b.Family), cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	kind := busv1.KindInventory
	if inv.Namespace == "" {
		kind = busv1.KindClusterInventory
	}
	return &busv1.InventoryConfig{Kind: kind, Namespace: inv.Namespace, Name: inv.Name, Generation: ev.Generation,
		Bindings: bindings, DeletionPolicy: busv1.DeletionDelete}, nil
}
