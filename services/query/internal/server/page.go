package server

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"kollect.dev/kollect/services/query/internal/answer"
)

// Limits bound what one request returns, whatever the caller asks: a
// caller pages with limit and continue.
type Limits struct {
	// Revisions is the most revisions (list) or timeline entries a page
	// holds, and the default page size of both.
	Revisions int
	// Rows is the most rows or row changes a page holds; DefaultRows is the
	// page size when the request names none.
	Rows, DefaultRows int
}

// DefaultLimits are the limits of the chart's defaults.
func DefaultLimits() Limits { return Limits{Revisions: 500, Rows: 5000, DefaultRows: 1000} }

// pageSize returns the request's limit capped at max, def when it has none.
func pageSize(limit int64, def, max int) int {
	if limit <= 0 || limit > int64(max) {
		if limit <= 0 {
			return min(def, max)
		}
		return max
	}
	return int(limit)
}

// cursor is the state of a paged read: where the next page starts, and
// what it reads, so that a later page reads the same revisions whatever
// was published meanwhile.
type cursor struct {
	// Inventory is the inventory a list page ended in.
	Inventory string `json:"i,omitempty"`
	// From and To are the revisions read (To only for diff).
	From uint64 `json:"f,omitempty"`
	To   uint64 `json:"t,omitempty"`
	// Offset is the index of the next row, change or revision.
	Offset int `json:"o"`
}

func (c cursor) encode() string {
	b, _ := json.Marshal(c) //nolint:errchkjson // plain struct of numbers
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(s string) (cursor, error) {
	var c cursor
	if s == "" {
		return c, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err != nil || c.Offset < 0 {
		return c, apierrors.NewBadRequest("continue: not a token this server issued")
	}
	return c, nil
}

// selector parses a revision selector from query parameters prefix (the
// revision number) and prefixAt (an RFC 3339 time): `revision`/`at`,
// `from`/`fromAt`... A value of from or to that is not a number is read as a
// time, so that `from=2026-01-02T00:00:00Z` works too.
func selector(q url.Values, name, atName string) (answer.Selector, error) {
	var s answer.Selector
	if v := q.Get(name); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err == nil && n > 0 {
			s.Revision = n
			return s, nil
		}
		t, terr := time.Parse(time.RFC3339Nano, v)
		if terr != nil {
			return s, apierrors.NewBadRequest(fmt.Sprintf("%s: %q is neither a revision (a positive number) nor an RFC 3339 time", name, v))
		}
		s.At = t
	}
	if v := q.Get(atName); v != "" {
		if s.Revision > 0 || !s.At.IsZero() {
			return s, apierrors.NewBadRequest(fmt.Sprintf("%s and %s: set one, not both", name, atName))
		}
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return s, apierrors.NewBadRequest(fmt.Sprintf("%s: %q is not an RFC 3339 time", atName, v))
		}
		s.At = t
	}
	return s, nil
}

// limitParam parses the limit query parameter.
func limitParam(q url.Values) (int64, error) {
	v := q.Get("limit")
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, apierrors.NewBadRequest(fmt.Sprintf("limit: %q is not a non-negative number", v))
	}
	return n, nil
}
