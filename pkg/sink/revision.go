package sink

import (
	"fmt"
	"math"
)

// CheckRevision refuses, permanently, a revision that the signed 64-bit
// integer columns of SQL, BSON and BigQuery cannot hold. Revisions are
// JetStream sequence numbers and never get there; database sinks call it at
// the start of a write so that Revision64 never changes a value they store.
func CheckRevision(rev uint64) error {
	if rev > math.MaxInt64 {
		return Permanent(fmt.Errorf("revision %d does not fit a signed 64-bit integer", rev))
	}
	return nil
}

// Revision64 returns rev as a signed 64-bit integer, clamped at
// math.MaxInt64 (see CheckRevision).
func Revision64(rev uint64) int64 {
	if rev > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(rev)
}
