package verify

import (
	"fmt"
	"slices"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/snapshot"
)

// Revision is one revision of an inventory as a sink holds it: the rows it
// stores and the checksums it recorded for them.
type Revision struct {
	// Revision is the revision number recorded by the sink.
	Revision uint64
	// Checksum is the checksum the sink recorded for the revision.
	Checksum string
	// PreviousChecksum is the recorded previousChecksum, empty when the sink
	// does not keep it or the revision is the first.
	PreviousChecksum string
	// Rows are the rows the sink holds for the revision, in any order.
	Rows []busv1.Row
	// Where says where the revision was read (a commit, a table), for
	// messages.
	Where string
	// Problem, when set, is a fault the source found itself (a commit that
	// changed the data without a revision, unreadable content).
	Problem string
}

// Mismatch is the first revision that does not verify.
type Mismatch struct {
	Revision uint64
	Where    string
	Reason   string
}

// Result is the outcome of Check.
type Result struct {
	// Checked is the number of revisions verified before the first
	// mismatch (all of them when there is none).
	Checked int
	// Linked is the number of previousChecksum links verified.
	Linked int
	// Anchored is the number of revisions whose checksum an Anchor
	// confirmed (CheckAnchored only).
	Anchored int
	// First is the first mismatch in revision order, nil when every revision
	// verified.
	First *Mismatch
}

// Check verifies revs in revision order: each revision's rows must hash to
// its recorded checksum, and a revision that directly follows another must
// name that one's checksum as its previousChecksum (when it records one).
func Check(revs []Revision) (Result, error) {
	revs = slices.Clone(revs)
	slices.SortStableFunc(revs, func(a, b Revision) int { return compare(a.Revision, b.Revision) })
	var res Result
	for i := range revs {
		r := &revs[i]
		if r.Problem != "" {
			res.First = &Mismatch{Revision: r.Revision, Where: r.Where, Reason: r.Problem}
			return res, nil
		}
		rows := slices.Clone(r.Rows)
		snapshot.Sort(rows)
		sum, err := snapshot.Checksum(rows)
		if err != nil {
			return res, fmt.Errorf("checksum revision %d (%s): %w", r.Revision, r.Where, err)
		}
		if sum != r.Checksum {
			res.First = &Mismatch{Revision: r.Revision, Where: r.Where,
				Reason: fmt.Sprintf("its %d rows hash to %s, the recorded checksum is %s", len(rows), sum, r.Checksum)}
			return res, nil
		}
		if i > 0 && r.PreviousChecksum != "" {
			prev := &revs[i-1]
			if prev.Revision+1 == r.Revision && prev.Checksum != r.PreviousChecksum {
				res.First = &Mismatch{Revision: r.Revision, Where: r.Where,
					Reason: fmt.Sprintf("its previousChecksum %s is not revision %d's checksum %s", r.PreviousChecksum, prev.Revision, prev.Checksum)}
				return res, nil
			}
			if prev.Revision+1 == r.Revision {
				res.Linked++
			}
		}
		res.Checked++
	}
	return res, nil
}
