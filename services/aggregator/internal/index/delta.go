package index

import (
	"bytes"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// Delta returns the change from prev (published at baseRevision) to next:
// rows of next that prev lacks or holds with other content, in canonical
// order, and the keys of rows of prev that next lacks, in canonical order.
// Delta of a nil prev is nil: there is no base to apply it to.
func Delta(prev *Snapshot, baseRevision uint64, next *Snapshot) *busv1.Delta {
	if prev == nil {
		return nil
	}
	old := make(map[busv1.RowKey][]byte, len(prev.Items))
	for i, r := range prev.Items {
		old[r.Key()] = prev.Raw[i]
	}
	d := &busv1.Delta{BaseRevision: baseRevision, BaseChecksum: prev.Checksum,
		Upserts: []busv1.Row{}, Deletes: []busv1.RowKey{}}
	present := make(map[busv1.RowKey]struct{}, len(next.Items))
	for i, r := range next.Items {
		k := r.Key()
		present[k] = struct{}{}
		if raw, ok := old[k]; !ok || !bytes.Equal(raw, next.Raw[i]) {
			d.Upserts = append(d.Upserts, r)
		}
	}
	for _, r := range prev.Items {
		if _, ok := present[r.Key()]; !ok {
			d.Deletes = append(d.Deletes, r.Key())
		}
	}
	return d
}

// Apply returns base with d applied, in canonical order: what a consumer
// holding base computes. The aggregator's tests use it to prove deltas.
func Apply(base []busv1.Row, d *busv1.Delta) []busv1.Row {
	byKey := make(map[busv1.RowKey]busv1.Row, len(base)+len(d.Upserts))
	for _, r := range base {
		byKey[r.Key()] = r
	}
	for _, k := range d.Deletes {
		delete(byKey, k)
	}
	for _, r := range d.Upserts {
		byKey[r.Key()] = r
	}
	out := make([]busv1.Row, 0, len(byKey))
	for _, r := range byKey {
		out = append(out, r)
	}
	sortRows(out)
	return out
}
