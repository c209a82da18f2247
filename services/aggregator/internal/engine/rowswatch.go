package engine

import (
	"context"
	"fmt"
	"slices"

	"github.com/nats-io/nats.go/jetstream"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/services/aggregator/internal/index"
)

// rowsWatch follows the rows bucket: every row for an unsharded engine,
// else only the rows its inventories read (the rows of their namespaces'
// Targets, of the ClusterTargets for cluster inventories) and the markers,
// with one filter per namespace. When that set of namespaces changes the
// watch starts again with the new filters: it delivers every watched row
// again (an unchanged row applies as a no-op), and once it delivered them
// all, the rows it did not deliver (deleted while no watch ran) and those
// of namespaces no longer read are removed. Publishing pauses meanwhile
// (resyncing), so an inventory of a namespace just added is never
// published before its rows are in.
type rowsWatch struct {
	kv  jetstream.KeyValue
	w   jetstream.KeyWatcher
	all bool
	// nss are the Target namespaces watched, sorted ("" for ClusterTargets),
	// and the same as a set.
	nss     []string
	watched map[string]bool
	// resyncing is set from a restart until its watch delivered every row;
	// seen are the keys it delivered meanwhile.
	resyncing bool
	seen      map[busv1.RowKey]struct{}
}

// updates is the current watch's channel; nil (never ready) before the
// first watch.
func (rw *rowsWatch) updates() <-chan jetstream.KeyValueEntry {
	if rw == nil || rw.w == nil {
		return nil
	}
	return rw.w.Updates()
}

func (rw *rowsWatch) stop() {
	if rw != nil && rw.w != nil {
		_ = rw.w.Stop()
	}
}

// watchAllRows starts the watch of an unsharded engine.
func (e *Engine) watchAllRows(ctx context.Context, kv jetstream.KeyValue) error {
	w, err := kv.WatchAll(ctx)
	if err != nil {
		return fmt.Errorf("watch KV bucket %s: %w", bus.BucketRows, err)
	}
	e.rw = &rowsWatch{kv: kv, w: w, all: true}
	return nil
}

// readNamespaces are the Target namespaces the engine's inventories read.
func (e *Engine) readNamespaces() []string {
	set := map[string]struct{}{}
	for _, st := range e.invs {
		if st.view != nil {
			set[st.name.Namespace] = struct{}{} // "" for a cluster inventory: the ClusterTargets
		}
	}
	out := make([]string, 0, len(set))
	for ns := range set {
		out = append(out, ns)
	}
	slices.Sort(out)
	return out
}

// rewatch starts the rows watch again when the namespaces the inventories
// read changed (or starts the first one).
func (e *Engine) rewatch(ctx context.Context) error {
	if e.rw.all {
		return nil
	}
	nss := e.readNamespaces()
	if e.rw.w != nil && slices.Equal(nss, e.rw.nss) {
		return nil
	}
	filters := []string{bus.MarkerKeys}
	for _, ns := range nss {
		filters = append(filters, bus.RowNamespaceFilter(ns))
	}
	if limit := e.opts.MaxRowFilters; len(nss) > limit && limit > 0 || len(nss) > maxRowFilters && limit == 0 {
		filters = []string{">"} // the rows of other namespaces are skipped (keeps)
	}
	w, err := e.rw.kv.WatchFiltered(ctx, filters)
	if err != nil {
		return fmt.Errorf("watch rows of %d namespaces in KV bucket %s: %w", len(nss), bus.BucketRows, err)
	}
	first := e.rw.w == nil
	e.rw.stop()
	e.rw.w, e.rw.nss, e.rw.watched = w, nss, map[string]bool{}
	for _, ns := range nss {
		e.rw.watched[ns] = true
	}
	e.rw.resyncing, e.rw.seen = !first, map[busv1.RowKey]struct{}{}
	return nil
}

// maxRowFilters is the default of Options.MaxRowFilters.
const maxRowFilters = 256

// keeps reports whether the row entry with key is one the engine reads,
// and notes it as delivered during a resync.
func (e *Engine) keeps(key string) bool {
	if e.rw.all {
		return true
	}
	k, err := bus.ParseRowKey(key)
	if err != nil {
		return true // applyRow reports it
	}
	ns := k.TargetNamespace
	if k.ClusterTarget {
		ns = ""
	}
	if !e.rw.watched[ns] {
		return false
	}
	if e.rw.resyncing {
		e.rw.seen[k] = struct{}{}
	}
	return true
}

// resynced ends a restart's resync: rows not delivered again, or of
// namespaces no longer watched, are removed.
func (e *Engine) resynced() {
	watched := map[string]bool{}
	for _, ns := range e.rw.nss {
		watched[ns] = true
	}
	for _, ns := range e.rows.Namespaces() {
		for _, r := range e.rows.InNamespace(ns) {
			if _, ok := e.rw.seen[r.Key]; !ok || !watched[ns] {
				e.removeRow(r.Key)
			}
		}
	}
	e.rw.resyncing, e.rw.seen = false, nil
}

// removeRow deletes the row with key from the index and the views.
func (e *Engine) removeRow(key busv1.RowKey) {
	old := e.rows.Delete(key)
	if old == nil {
		return
	}
	for _, st := range e.invs {
		if st.view != nil && index.Affects(st.cfg, key) && st.view.Apply(old, nil) && e.ready {
			e.markDirty(st)
		}
	}
}
