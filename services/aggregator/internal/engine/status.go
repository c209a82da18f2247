package engine

import (
	"encoding/json"
	"time"

	"kollect.dev/kollect/pkg/app"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/services/aggregator/internal/index"
)

// report publishes st's status: item count, revision, checksum, next due
// time per binding and the last failure. Status is level-based and the
// next report supersedes a lost one, so it is a plain publish, not awaited.
func (e *Engine) report(st *invState, now time.Time) {
	if st.cfg == nil {
		return
	}
	outcome := st.outcome
	if outcome.Reason == "" {
		outcome = st.quota
	}
	inv := &busv1.InventoryStatus{ItemCount: st.last.itemCount, Revision: st.last.revision,
		Checksum: st.last.checksum, NextDue: []busv1.BindingDue{}, Outcome: outcome, History: st.history}
	for _, s := range shardsOf(st) {
		inv.NamespaceShards = append(inv.NamespaceShards,
			busv1.NamespaceShard{Namespace: s.Namespace, ItemCount: s.ItemCount, Checksum: s.Checksum})
	}
	for _, b := range st.cfg.Bindings {
		if at, ok := st.due[b.SinkRef]; ok {
			inv.NextDue = append(inv.NextDue, busv1.BindingDue{Sink: b.SinkRef, NextDue: at.UTC()})
		}
	}
	r := busv1.StatusReport{Service: busv1.ServiceAggregator, Kind: st.cfg.Kind, Namespace: st.cfg.Namespace,
		Name: st.cfg.Name, Generation: st.cfg.Generation, ObservedAt: now.UTC(), Inventory: inv}
	b, err := json.Marshal(r)
	if err == nil {
		err = e.js.Conn().Publish(bus.StatusSubjectFor(r), b)
	}
	if err != nil {
		e.opts.Log.Error(err, "publish status", app.KeyInventory, st.name.String())
	}
}

// shardsOf returns a cluster inventory's per-namespace shards.
func shardsOf(st *invState) []index.Shard {
	if st.view == nil {
		return nil
	}
	return st.view.Shards()
}
