package server

import (
	"fmt"
	"net/url"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Limits bound what one request reads and returns, and how many requests
// read rows at once.
type Limits struct {
	// Revisions is the most revisions or dead letters (lists) or timeline
	// entries a page holds, and the default page size of each.
	Revisions int
	// DeadLetterScan is the most dead letters one list request reads from
	// the bus: past it, the page ends early (fewer items than its limit,
	// with a continue token), so that a caller who may read few of the
	// stream's dead letters never makes one request read the whole stream.
	DeadLetterScan int
	// Rows is the most rows or row changes a page holds; DefaultRows is the
	// page size when the request names none.
	Rows, DefaultRows int
	// DiffRows is the most rows a diff compares: the rows of the chunks its
	// two revisions do not share.
	DiffRows int
	// TimelineSpan is the longest time a timeline request covers.
	TimelineSpan time.Duration
	// ConcurrentReads is the most requests reading rows at once (rows, diff,
	// timeline, revision lists and gets, which count changes); Wait is how
	// long one more waits for a slot before it is refused with 429.
	ConcurrentReads int
	Wait            time.Duration
}

// DefaultLimits are the limits of the chart's defaults.
func DefaultLimits() Limits {
	return Limits{Revisions: 500, DeadLetterScan: 1000, Rows: 5000, DefaultRows: 500, DiffRows: 200_000, TimelineSpan: 31 * 24 * time.Hour,
		ConcurrentReads: 8, Wait: 2 * time.Second}
}

// pageSize returns a list's page size: the request's limit capped at max
// (a list may return fewer items than its limit, and kubectl asks for 500
// whatever the server's cap), def when it has none.
func pageSize(limit int64, def, max int) int {
	if limit <= 0 || limit > int64(max) {
		if limit <= 0 {
			return min(def, max)
		}
		return max
	}
	return int(limit)
}

// pageLimit returns the page size of a rows, diff or timeline request: its
// limit parameter, def when none; a limit over max, which flag sets, is
// refused naming both.
func pageLimit(q url.Values, def, max int, what, flag string) (int, error) {
	v := q.Get("limit")
	if v == "" {
		return min(def, max), nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, apierrors.NewBadRequest(fmt.Sprintf("limit: %q is not a non-negative number", v))
	}
	if n > int64(max) {
		return 0, apierrors.NewBadRequest(fmt.Sprintf("limit: %d is over the most %s one page holds (%d, the query service's %s): "+
			"ask for at most %d and follow the continue token", n, what, max, flag, max))
	}
	if n == 0 {
		return min(def, max), nil
	}
	return int(n), nil
}
