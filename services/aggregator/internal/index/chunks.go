package index

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/snapshot"
)

// chunk is one chunk of a view: the rows after the previous chunk's end up
// to and including end (a boundary row), or to the last row when open.
type chunk struct {
	end  string
	open bool
	// pageEnd: the chunk ends a page of a paged manifest (snapshot.PageEnd).
	pageEnd bool
	sum     [sha256.Size]byte
	c       busv1.Chunk
	data    []byte // the chunk's bytes until they are stored, then nil
}

func chunkLess(a, b *chunk) bool {
	if a.open || b.open {
		return !a.open && b.open
	}
	return a.end < b.end
}

// region is a run of rows (lo, hi] to cut again; lo "" with fromStart means
// from the first row, toEnd means to the last.
type region struct {
	lo        string
	fromStart bool
	hi        string
	toEnd     bool
}

// regionOf is the region holding sort key s in the current chunks: from the
// end of the last chunk that ends before s to the end of the first chunk
// that ends after s.
func (v *View) regionOf(s string) region {
	r := region{fromStart: true, toEnd: true}
	v.chunks.DescendLessOrEqual(&chunk{end: s}, func(c *chunk) bool {
		if c.open || c.end >= s {
			return true
		}
		r.lo, r.fromStart = c.end, false
		return false
	})
	v.chunks.AscendGreaterOrEqual(&chunk{end: s}, func(c *chunk) bool {
		if !c.open && c.end <= s {
			return true
		}
		if !c.open {
			r.hi, r.toEnd = c.end, false
		}
		return false
	})
	return r
}

// rechunk cuts the chunks of every region a change touched since the last
// call, from the current rows.
func (v *View) rechunk() {
	if len(v.dirty) == 0 {
		return
	}
	slices.Sort(v.dirty)
	v.dirty = slices.Compact(v.dirty)
	var regions []region
	for _, s := range v.dirty {
		if n := len(regions); n > 0 && covers(regions[n-1], s) {
			continue
		}
		r := v.regionOf(s)
		if n := len(regions); n > 0 && !regions[n-1].toEnd && (r.fromStart || r.lo <= regions[n-1].hi) {
			regions[n-1].hi, regions[n-1].toEnd = r.hi, r.toEnd
			continue
		}
		regions = append(regions, r)
	}
	for _, r := range regions {
		v.cut(r)
	}
	v.dirty = v.dirty[:0]
}

// covers reports whether s lies inside r and is not its end: a change at a
// region's end (its boundary row) extends the region to the next chunk end.
func covers(r region, s string) bool {
	return (r.fromStart || s > r.lo) && (r.toEnd || s < r.hi)
}

// rechunkAll cuts every chunk again.
func (v *View) rechunkAll() {
	v.chunks.Clear(false)
	v.dirty = v.dirty[:0]
	v.cut(region{fromStart: true, toEnd: true})
}

// cut replaces the chunks of region r by cutting its rows again. It walks
// on past hi to the next boundary if hi is no longer a boundary row.
func (v *View) cut(r region) {
	var old []*chunk
	collect := func(c *chunk) bool {
		if !r.toEnd && (c.open || c.end > r.hi) {
			return false
		}
		old = append(old, c)
		return true
	}
	if r.fromStart {
		v.chunks.Ascend(collect)
	} else {
		v.chunks.AscendGreaterOrEqual(&chunk{end: r.lo + "\x00"}, collect)
	}
	var buf []byte
	rows := 0
	last := ""
	emit := func(open bool) {
		sum := sha256.Sum256(buf)
		v.chunks.ReplaceOrInsert(&chunk{end: last, open: open, pageEnd: !open && snapshot.PageEnd(last), sum: sum, data: slices.Clone(buf),
			c: busv1.Chunk{Digest: hex.EncodeToString(sum[:]), Rows: rows, Bytes: int64(len(buf))}})
		buf, rows = buf[:0], 0
	}
	walk := func(row *Row) bool {
		if !r.toEnd && rows == 0 && row.Sort > r.hi {
			return false
		}
		if rows > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, row.Raw...)
		rows, last = rows+1, row.Sort
		v.Hashed += int64(len(row.Raw))
		if row.boundary {
			emit(false)
		}
		return true
	}
	for _, c := range old {
		v.chunks.Delete(c)
	}
	if r.fromStart {
		v.tree.Ascend(walk)
	} else {
		v.tree.AscendGreaterOrEqual(&Row{Sort: r.lo + "\x00"}, walk)
	}
	if rows > 0 { // the walk only stops after a cut: these are the last rows
		emit(true)
	}
}

// Chunks returns the view's chunks in order with their sha256 digests.
func (v *View) Chunks() ([]busv1.Chunk, [][sha256.Size]byte) {
	v.rechunk()
	out := make([]busv1.Chunk, 0, v.chunks.Len())
	sums := make([][sha256.Size]byte, 0, v.chunks.Len())
	v.chunks.Ascend(func(c *chunk) bool {
		out = append(out, c.c)
		sums = append(sums, c.sum)
		return true
	})
	return out, sums
}

// Layout returns the view's chunks in order and, for each, whether it ends
// a page of a paged manifest (snapshot.PageEnd).
func (v *View) Layout() ([]busv1.Chunk, []bool) {
	v.rechunk()
	out := make([]busv1.Chunk, 0, v.chunks.Len())
	ends := make([]bool, 0, v.chunks.Len())
	v.chunks.Ascend(func(c *chunk) bool {
		out, ends = append(out, c.c), append(ends, c.pageEnd)
		return true
	})
	return out, ends
}

// Checksum is the version 2 checksum of the view's current rows.
func (v *View) Checksum() string {
	_, sums := v.Chunks()
	return snapshot.ChecksumOfDigests(sums)
}
