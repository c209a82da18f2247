package index

import (
	"slices"

	"github.com/google/btree"
	busv1 "kollect.dev/kollect/api/bus/v1"
)

// View is one inventory's snapshot, maintained row by row: the member rows
// in canonical order, their chunks, per-namespace shards, and the state of
// every row changed since the last publish (its before-image).
type View struct {
	cfg     *busv1.InventoryConfig
	tree    *btree.BTreeG[*Row]
	members map[busv1.RowKey]*Row
	byUID   map[string][]*Row // dedupe byResourceUID: candidates in canonical order
	bytes   int64
	shards  map[string]*shard

	chunks *btree.BTreeG[*chunk]
	dirty  []string // sort keys changed since the chunks were last cut

	pending map[busv1.RowKey]*Row // before-image per changed key; nil: absent
	noBase  bool                  // the published state is unknown: no delta

	// Hashed counts the row bytes cut into chunks since the view was
	// made: the work changes cost, which must not grow with the inventory.
	Hashed int64
}

func bySort(a, b *Row) bool { return a.Sort < b.Sort }

// NewView returns the view of cfg over rows, with nothing pending: as if the
// current rows had been published.
func NewView(cfg *busv1.InventoryConfig, rows *Rows) *View {
	v := &View{cfg: cfg, tree: btree.NewG(32, bySort), members: map[busv1.RowKey]*Row{},
		shards: map[string]*shard{}, chunks: btree.NewG(32, chunkLess), pending: map[busv1.RowKey]*Row{}}
	if dedupes(cfg) {
		v.byUID = map[string][]*Row{}
	}
	rows.each(cfg, func(r *Row) { v.Apply(nil, r) })
	v.rechunkAll()
	clear(v.pending)
	return v
}

func dedupes(cfg *busv1.InventoryConfig) bool {
	return cfg.Kind == busv1.KindClusterInventory && cfg.Dedupe == busv1.DedupeByResourceUID
}

// Config is the inventory config the view selects with.
func (v *View) Config() *busv1.InventoryConfig { return v.cfg }

// Len is the number of member rows.
func (v *View) Len() int { return v.tree.Len() }

// Bytes is the size of the member rows' canonical JSON.
func (v *View) Bytes() int64 { return v.bytes }

// Reconfigure switches the view to cfg, keeping the before-images of every
// row whose membership changes. It is O(N) and meant for config changes.
func (v *View) Reconfigure(cfg *busv1.InventoryConfig, rows *Rows) {
	next := NewView(cfg, rows)
	for k, r := range v.members {
		if n := next.members[k]; n != r {
			v.touch(k, r)
		}
	}
	for k := range next.members {
		if _, ok := v.members[k]; !ok {
			v.touch(k, nil)
		}
	}
	next.pending, next.noBase = v.pending, v.noBase
	*v = *next
}

// touch records key's before-image at its first change since the last
// publish.
func (v *View) touch(key busv1.RowKey, before *Row) {
	if _, ok := v.pending[key]; !ok {
		v.pending[key] = before
	}
}

// Apply applies one change of the rows (old and next, either nil) that
// Affects the view's inventory, and reports whether the view changed.
func (v *View) Apply(old, next *Row) bool {
	if old != nil && !member(v.cfg, old) {
		old = nil
	}
	if next != nil && !member(v.cfg, next) {
		next = nil
	}
	if old == nil && next == nil {
		return false
	}
	if v.byUID != nil {
		return v.applyDeduped(old, next)
	}
	changed := false
	if old != nil && v.members[old.Key] == old {
		v.remove(old)
		changed = true
	}
	if next != nil {
		v.insert(next)
		changed = true
	}
	return changed
}

// applyDeduped keeps, per uid, the first candidate in canonical order. old
// and next share the uid: it is part of the row key.
func (v *View) applyDeduped(old, next *Row) bool {
	r := old
	if r == nil {
		r = next
	}
	cands := v.byUID[r.UID]
	var winner *Row
	if len(cands) > 0 {
		winner = cands[0]
	}
	if old != nil {
		cands = slices.DeleteFunc(cands, func(c *Row) bool { return c.Key == old.Key })
	}
	if next != nil {
		i, _ := slices.BinarySearchFunc(cands, next, func(a, b *Row) int { return cmpStr(a.Sort, b.Sort) })
		cands = slices.Insert(cands, i, next)
	}
	var now *Row
	if len(cands) == 0 {
		delete(v.byUID, r.UID)
	} else {
		v.byUID[r.UID], now = cands, cands[0]
	}
	if now == winner {
		return false
	}
	if winner != nil {
		v.remove(winner)
	}
	if now != nil {
		v.insert(now)
	}
	return true
}

func cmpStr(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (v *View) remove(r *Row) {
	v.touch(r.Key, r)
	v.tree.Delete(r)
	delete(v.members, r.Key)
	v.bytes -= int64(len(r.Raw))
	if v.cfg.Kind == busv1.KindClusterInventory {
		v.shardOf(r.Namespace).remove(r)
	}
	v.dirty = append(v.dirty, r.Sort)
}

func (v *View) insert(r *Row) {
	if cur := v.members[r.Key]; cur != nil {
		v.remove(cur)
	}
	v.touch(r.Key, nil)
	v.tree.ReplaceOrInsert(r)
	v.members[r.Key] = r
	v.bytes += int64(len(r.Raw))
	if v.cfg.Kind == busv1.KindClusterInventory {
		v.shardOf(r.Namespace).add(r)
	}
	v.dirty = append(v.dirty, r.Sort)
}
