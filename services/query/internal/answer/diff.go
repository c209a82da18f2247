package answer

import (
	"bytes"
	"context"
	"hash/maphash"

	busv1 "kollect.dev/kollect/api/bus/v1"
	queryv1 "kollect.dev/kollect/api/query/v1alpha1"
)

// A diff of two revisions is a merge of their rows, both in canonical
// order, one chunk of each in memory at a time. Where both revisions are at
// the start of a chunk with the same digest the chunk is skipped unread:
// chunks end at rows chosen by their sort key alone, so after a change both
// revisions cut at the same rows again, and every chunk they share is
// passed over. A row whose identity (target and uid) moved in canonical
// order (its namespace or name changed) is one change, not a removal and
// an addition, as Compare has it: a first pass finds such pairs among the
// rows only one revision holds, by a hash of their identity.

// step is one difference the merge meets: a row only before holds, a row
// only after holds, or a row both hold that differs.
type step struct {
	before, after *head
}

// walkDiff merges the rows of before and after and calls fn with every
// difference, in canonical order.
func (r *Reader) walkDiff(ctx context.Context, before, after *busv1.SnapshotEvent, fn func(step) error) error {
	a, err := r.newWalker(ctx, before)
	if err != nil {
		return err
	}
	b, err := r.newWalker(ctx, after)
	if err != nil {
		return err
	}
	for {
		if ca, ok := a.chunkStart(); ok {
			if cb, ok := b.chunkStart(); ok && ca.Digest == cb.Digest {
				a.skipChunk()
				b.skipChunk()
				continue
			}
		}
		ha, okA, err := a.peek(ctx)
		if err != nil {
			return err
		}
		hb, okB, err := b.peek(ctx)
		if err != nil {
			return err
		}
		var c int
		switch {
		case !okA && !okB:
			return nil
		case !okB:
			c = -1
		case !okA:
			c = 1
		default:
			c = compareHeads(ha, hb)
		}
		switch {
		case c < 0:
			err = fn(step{before: ha})
			a.next()
		case c > 0:
			err = fn(step{after: hb})
			b.next()
		default:
			if !bytes.Equal(ha.raw, hb.raw) {
				err = fn(step{before: ha, after: hb})
			}
			a.next()
			b.next()
		}
		if err != nil {
			return err
		}
	}
}

// moves are the rows whose identity is in both revisions at different
// places in canonical order: by identity, the row before.
type moves map[busv1.RowKey]*head

// findMoves walks the diff once and returns its counts, without the moved
// rows, and the moved rows (nil when none moved, the usual case).
func (r *Reader) findMoves(ctx context.Context, before, after *busv1.SnapshotEvent) (counts, moves, error) {
	seed := maphash.MakeSeed()
	gone, came := map[uint64]struct{}{}, map[uint64]struct{}{}
	var c counts
	err := r.walkDiff(ctx, before, after, func(s step) error {
		switch {
		case s.after == nil:
			c.removed++
			gone[maphash.Comparable(seed, s.before.key())] = struct{}{}
		case s.before == nil:
			c.added++
			came[maphash.Comparable(seed, s.after.key())] = struct{}{}
		default:
			c.changed++
		}
		return nil
	})
	if err != nil {
		return counts{}, nil, err
	}
	both := map[uint64]struct{}{}
	for h := range gone {
		if _, ok := came[h]; ok {
			both[h] = struct{}{}
		}
	}
	clear(gone)
	clear(came)
	if len(both) == 0 {
		return c, nil, nil
	}
	// Some identities may have moved: read their rows before, and keep those
	// the revision after holds elsewhere (a hash collision keeps none).
	candidates, arrived := moves{}, map[busv1.RowKey]bool{}
	err = r.walkDiff(ctx, before, after, func(s step) error {
		switch {
		case s.after == nil:
			if _, ok := both[maphash.Comparable(seed, s.before.key())]; ok {
				h := *s.before
				candidates[h.key()] = &h
			}
		case s.before == nil:
			if _, ok := both[maphash.Comparable(seed, s.after.key())]; ok {
				arrived[s.after.key()] = true
			}
		}
		return nil
	})
	if err != nil {
		return counts{}, nil, err
	}
	m := moves{}
	for k, h := range candidates {
		if arrived[k] {
			m[k] = h
		}
	}
	c.removed -= len(m)
	c.added -= len(m)
	c.changed += len(m)
	return c, m, nil
}

// diffCounts counts the rows after added, changed and removed since
// before.
func (r *Reader) diffCounts(ctx context.Context, before, after *busv1.SnapshotEvent) (counts, error) {
	c, _, err := r.findMoves(ctx, before, after)
	return c, err
}

// Diff returns changes [offset, offset+size) of the row-level difference
// from before to after, in the order of Compare, and how many changes the
// whole difference holds. It holds one chunk of each revision, the page,
// and the identities of the rows only one of them holds.
func (r *Reader) Diff(ctx context.Context, before, after *busv1.SnapshotEvent, offset, size int) ([]queryv1.RowChange, int, error) {
	c, m, err := r.findMoves(ctx, before, after)
	if err != nil {
		return nil, 0, err
	}
	out := []queryv1.RowChange{}
	n := 0 // changes met so far
	errFull := errDone
	err = r.walkDiff(ctx, before, after, func(s step) error {
		var b, a *head
		switch {
		case s.after == nil:
			if _, moved := m[s.before.key()]; moved {
				return nil // one change, where its row after is
			}
			b = s.before
		case s.before == nil:
			a = s.after
			b = m[a.key()]
		default:
			b, a = s.before, s.after
		}
		n++
		if n <= offset {
			return nil
		}
		ch, changed, err := change(b, a)
		if err != nil {
			return err
		}
		if changed {
			out = append(out, ch)
		}
		if len(out) == size {
			return errFull
		}
		return nil
	})
	if err != nil && err != errFull { //nolint:errorlint // the sentinel itself, never wrapped
		return nil, 0, err
	}
	return out, c.added + c.changed + c.removed, nil
}

// errDone stops a walk that has what it needs.
var errDone = doneError{}

type doneError struct{}

func (doneError) Error() string { return "done" }

// change is the RowChange from b to a (either nil: added or removed).
func change(b, a *head) (queryv1.RowChange, bool, error) {
	var before, after *busv1.Row
	var err error
	if b != nil {
		if before, err = b.decode(); err != nil {
			return queryv1.RowChange{}, false, err
		}
	}
	if a != nil {
		if after, err = a.decode(); err != nil {
			return queryv1.RowChange{}, false, err
		}
	}
	switch {
	case before == nil:
		return queryv1.RowChange{Change: queryv1.ChangeAdded, Key: after.Key(), After: after}, true, nil
	case after == nil:
		return queryv1.RowChange{Change: queryv1.ChangeRemoved, Key: before.Key(), Before: before}, true, nil
	}
	ch, changed := CompareRow(before, after)
	return ch, changed, nil
}

// DiffRows returns how many rows a diff of before and after reads: the rows
// of the chunks the two revisions do not share (all rows of an inline
// envelope). A request's limit on diffs is on this number.
func (r *Reader) DiffRows(ctx context.Context, before, after *busv1.SnapshotEvent) (int, error) {
	if before.ManifestRef == nil || after.ManifestRef == nil {
		return before.ItemCount + after.ItemCount, nil
	}
	mb, err := r.loader.Manifest(ctx, before)
	if err != nil {
		return 0, err
	}
	ma, err := r.loader.Manifest(ctx, after)
	if err != nil {
		return 0, err
	}
	shared := map[string]int{}
	for _, c := range mb.Chunks {
		shared[c.Digest]++
	}
	n := 0
	for _, c := range ma.Chunks {
		if shared[c.Digest] > 0 {
			shared[c.Digest]--
			continue
		}
		n += c.Rows
	}
	for _, c := range mb.Chunks { // what is left unmatched
		if shared[c.Digest] > 0 {
			shared[c.Digest]--
			n += c.Rows
		}
	}
	return n, nil
}
