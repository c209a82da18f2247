package verify

import (
	"fmt"
	"slices"
)

// Anchor is the checksum of each revision of an inventory as a source the
// sink's writers cannot forge recorded it: the bus, read through the
// query API's inventoryrevisions (docs/verify.md). It holds the revisions
// the inventory's retention still keeps.
type Anchor map[uint64]string

// oldest returns the anchor's oldest revision, 0 when it is empty.
func (a Anchor) oldest() uint64 {
	var o uint64
	for r := range a {
		if o == 0 || r < o {
			o = r
		}
	}
	return o
}

// CheckAnchored is Check, then every revision the sink holds from the
// anchor's oldest on must carry the anchor's checksum for its number: a
// forged revision (rows rewritten and their checksum recomputed, a
// previousChecksum copied), a repeated or invented revision number is a
// mismatch even though it is consistent in itself. Revisions older than
// the anchor's oldest are verified by Check only (retention trimmed them
// from the bus). Result.Anchored counts the revisions the anchor vouched
// for; an anchor that vouches for none is an error (the wrong inventory,
// or none kept).
func CheckAnchored(revs []Revision, anchor Anchor) (Result, error) {
	res, err := Check(revs)
	if err != nil || res.First != nil {
		return res, err
	}
	revs = slices.Clone(revs)
	slices.SortStableFunc(revs, func(a, b Revision) int { return compare(a.Revision, b.Revision) })
	oldest := anchor.oldest()
	seen := map[uint64]bool{}
	for _, r := range revs {
		if oldest == 0 || r.Revision < oldest {
			continue
		}
		want, ok := anchor[r.Revision]
		switch {
		case seen[r.Revision]:
			res.First = &Mismatch{Revision: r.Revision, Where: r.Where, Reason: "the revision is recorded twice"}
		case !ok:
			res.First = &Mismatch{Revision: r.Revision, Where: r.Where,
				Reason: "the anchor has no such revision: it was never published, though the anchor keeps every revision since " +
					fmt.Sprint(oldest)}
		case want != r.Checksum:
			res.First = &Mismatch{Revision: r.Revision, Where: r.Where,
				Reason: fmt.Sprintf("its checksum %s is not the one the anchor recorded, %s: the rows were rewritten", r.Checksum, want)}
		}
		if res.First != nil {
			return res, nil
		}
		seen[r.Revision] = true
		res.Anchored++
	}
	if res.Anchored == 0 {
		return res, fmt.Errorf("the anchor vouches for none of the %d revisions the sink holds (it keeps revisions since %d): is it the same inventory?",
			len(revs), oldest)
	}
	return res, nil
}

func compare(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
