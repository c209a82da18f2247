package postgres

import (
	"strings"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// insertionCutoff is the partition size below which keyOrder sorts by
// insertion rather than partitioning further.
const insertionCutoff = 16

// keyOrder yields rows in the order of the primary key's varying columns
// (target_namespace, target_name, source_uid) without reordering rows, and
// lazily: an incremental quicksort (Paredes and Navarro, 2006) puts only
// the next few rows in their final place before yielding them. The first
// row costs O(n) comparisons and all of them O(n log n), as a full sort
// would, but the sorting happens as COPY consumes the rows, in pgx's
// encoding goroutine, while the server stores the rows already sent,
// instead of before the first row is sent (about 40 ms of client CPU per
// 100k rows that the server used to wait for).
type keyOrder struct {
	rows []busv1.Row
	idx  []int32 // a permutation of rows; idx[:next] is yielded
	next int
	// ends is the incremental quicksort's stack of partition bounds, the
	// innermost last: idx[next:ends[top]] holds exactly the rows of those
	// positions, unordered; idx[ends[top]] is a pivot in its final place.
	ends []int
	// sorted is the end of the run from next that is in final order.
	sorted int
}

func newKeyOrder(rows []busv1.Row) *keyOrder {
	idx := make([]int32, len(rows))
	for i := range idx {
		idx[i] = int32(i)
	}
	return &keyOrder{rows: rows, idx: idx, ends: []int{len(rows)}}
}

// pop returns the next row in key order, nil after the last.
func (o *keyOrder) pop() *busv1.Row {
	if o.next == len(o.idx) {
		return nil
	}
	for o.next >= o.sorted {
		top := o.ends[len(o.ends)-1]
		switch {
		case top == o.next:
			o.ends = o.ends[:len(o.ends)-1]
			o.sorted = top + 1
		case top-o.next <= insertionCutoff:
			o.insertionSort(o.next, top)
			o.sorted = top
		default:
			o.ends = append(o.ends, o.partition(o.next, top))
		}
	}
	r := &o.rows[o.idx[o.next]]
	o.next++
	return r
}

// compareKeys orders rows by the primary key's varying columns.
func compareKeys(a, b *busv1.Row) int {
	if c := strings.Compare(a.TargetNamespace, b.TargetNamespace); c != 0 {
		return c
	}
	if c := strings.Compare(a.TargetName, b.TargetName); c != 0 {
		return c
	}
	return strings.Compare(a.UID, b.UID)
}

func (o *keyOrder) less(i, j int32) bool { return compareKeys(&o.rows[i], &o.rows[j]) < 0 }

// partition partitions idx[lo:hi] around the median of its first, middle
// and last rows and returns the pivot's final position p: the rows before
// p are smaller than it, the rows after it are not.
func (o *keyOrder) partition(lo, hi int) int {
	x := o.idx
	a, m, z := lo, lo+(hi-lo)/2, hi-1
	if o.less(x[m], x[a]) {
		x[m], x[a] = x[a], x[m]
	}
	if o.less(x[z], x[m]) {
		x[z], x[m] = x[m], x[z]
		if o.less(x[m], x[a]) {
			x[m], x[a] = x[a], x[m]
		}
	}
	x[m], x[z] = x[z], x[m] // the median to the end
	pivot, p := x[z], lo
	for i := lo; i < z; i++ {
		if o.less(x[i], pivot) {
			x[i], x[p] = x[p], x[i]
			p++
		}
	}
	x[p], x[z] = x[z], x[p]
	return p
}

func (o *keyOrder) insertionSort(lo, hi int) {
	x := o.idx
	for i := lo + 1; i < hi; i++ {
		for j := i; j > lo && o.less(x[j], x[j-1]); j-- {
			x[j], x[j-1] = x[j-1], x[j]
		}
	}
}
