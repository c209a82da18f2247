package index

import (
	"bytes"
	"context"
	"slices"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// Changes returns the rows upserted and deleted since the last publish, each
// in canonical order; a row changed and changed back is in neither.
func (v *View) Changes() (upserts, deletes []*Row) {
	for k, before := range v.pending {
		cur := v.members[k]
		switch {
		case cur == nil && before != nil:
			deletes = append(deletes, before)
		case cur != nil && (before == nil || !bytes.Equal(before.Raw, cur.Raw)):
			upserts = append(upserts, cur)
		}
	}
	slices.SortFunc(upserts, func(a, b *Row) int { return cmpStr(a.Sort, b.Sort) })
	slices.SortFunc(deletes, func(a, b *Row) int { return cmpStr(a.Sort, b.Sort) })
	return upserts, deletes
}

// Inserted is the number of rows added since the last publish: rows whose
// key was not a member then.
func (v *View) Inserted() int {
	n := 0
	for k, before := range v.pending {
		if before == nil && v.members[k] != nil {
			n++
		}
	}
	return n
}

// ChunkCount is the number of chunks of the view's rows.
func (v *View) ChunkCount() int {
	v.rechunk()
	return v.chunks.Len()
}

// HasBase reports whether the view knows the published snapshot its changes
// are relative to, that is whether Changes is a delta.
func (v *View) HasBase() bool { return !v.noBase }

// Published records that the current rows were published: nothing is
// pending and they are the base of the next delta.
func (v *View) Published() {
	clear(v.pending)
	v.noBase = false
}

// ForgetBase records that the published snapshot is unknown: the next
// publish carries no delta.
func (v *View) ForgetBase() {
	clear(v.pending)
	v.noBase = true
}

// SetBase records published, the rows of the last published snapshot read
// back after a restart, as the base: the changes become the difference
// between them and the current rows.
func (v *View) SetBase(published []*Row) {
	clear(v.pending)
	v.noBase = false
	seen := make(map[busv1.RowKey]struct{}, len(published))
	for _, p := range published {
		seen[p.Key] = struct{}{}
		if cur := v.members[p.Key]; cur == nil || !bytes.Equal(cur.Raw, p.Raw) {
			v.pending[p.Key] = p
		}
	}
	for k := range v.members {
		if _, ok := seen[k]; !ok {
			v.pending[k] = nil
		}
	}
}

// Each calls f for every member row in canonical order until f returns
// false.
func (v *View) Each(f func(*Row) bool) { v.tree.Ascend(f) }

// Store hands every chunk of the view not yet stored to put, in order, and
// marks those put successfully as stored.
func (v *View) Store(ctx context.Context, put func(context.Context, busv1.Chunk, []byte) error) error {
	v.rechunk()
	var err error
	v.chunks.Ascend(func(c *chunk) bool {
		if c.data == nil {
			return true
		}
		if err = put(ctx, c.c, c.data); err != nil {
			return false
		}
		c.data = nil
		return true
	})
	return err
}

// Digests returns the digests of the view's current chunks, which garbage
// collection must keep.
func (v *View) Digests(into map[string]struct{}) {
	v.rechunk()
	v.chunks.Ascend(func(c *chunk) bool {
		into[c.c.Digest] = struct{}{}
		return true
	})
}

// Base returns the rows of the last published snapshot, in canonical order,
// as far as the view knows them (HasBase).
func (v *View) Base() []*Row {
	var out []*Row
	v.tree.Ascend(func(r *Row) bool {
		if before, ok := v.pending[r.Key]; !ok {
			out = append(out, r)
		} else if before != nil {
			out = append(out, before)
		}
		return true
	})
	for k, before := range v.pending {
		if before != nil && v.members[k] == nil {
			out = append(out, before)
		}
	}
	slices.SortFunc(out, func(a, b *Row) int { return cmpStr(a.Sort, b.Sort) })
	return out
}

// ItemsBytes is the size of the item list's canonical JSON.
func (v *View) ItemsBytes() int64 {
	return v.bytes + int64(max(v.Len()-1, 0)) + 2
}

// SetBaseChunks is SetBase for a published snapshot known by its chunks:
// only the published chunks the view does not hold (by digest) differ, so
// load is called for those alone and must return their rows.
func (v *View) SetBaseChunks(published []busv1.Chunk, load func(busv1.Chunk) ([]*Row, error)) error {
	v.rechunk()
	cur := map[string]struct{}{}
	v.Digests(cur)
	old := map[string]struct{}{}
	var changed []*Row // published rows of chunks the view does not hold
	for _, c := range published {
		old[c.Digest] = struct{}{}
		if _, ok := cur[c.Digest]; ok {
			continue
		}
		rows, err := load(c)
		if err != nil {
			return err
		}
		changed = append(changed, rows...)
	}
	clear(v.pending)
	v.noBase = false
	byKey := make(map[busv1.RowKey]*Row, len(changed))
	for _, p := range changed {
		byKey[p.Key] = p
		if m := v.members[p.Key]; m == nil || !bytes.Equal(m.Raw, p.Raw) {
			v.pending[p.Key] = p
		}
	}
	// A current row in a chunk the published snapshot does not hold was
	// published only if a changed published chunk holds it.
	v.chunks.Ascend(func(c *chunk) bool {
		if _, ok := old[c.c.Digest]; ok {
			return true
		}
		v.eachIn(c, func(r *Row) {
			if _, ok := byKey[r.Key]; !ok {
				v.pending[r.Key] = nil
			}
		})
		return true
	})
	return nil
}

// eachIn calls f for every row of chunk c.
func (v *View) eachIn(c *chunk, f func(*Row)) {
	start := ""
	first := true
	v.chunks.DescendLessOrEqual(c, func(p *chunk) bool {
		if p == c || p.open {
			return true
		}
		start, first = p.end, false
		return false
	})
	visit := func(r *Row) bool {
		if !c.open && r.Sort > c.end {
			return false
		}
		f(r)
		return true
	}
	if first {
		v.tree.Ascend(visit)
	} else {
		v.tree.AscendGreaterOrEqual(&Row{Sort: start + "\x00"}, visit)
	}
}
