package server

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kollect.dev/kollect/services/query/internal/answer"
)

// cursor is the state of a paged read: where the next page starts, and
// what it reads, so that a later page reads the same revisions whatever
// was published meanwhile.
type cursor struct {
	// Inventory is the inventory a list page ended in.
	Inventory string `json:"i,omitempty"`
	// From is the last revision a list page holds.
	From uint64 `json:"f,omitempty"`
	// Seq and ToSeq are the stream sequences of the revisions read (rows:
	// Seq; diff: from Seq to ToSeq; timeline: the last read and the last of
	// the window), so that a later page reads the same events or none.
	Seq   uint64 `json:"s,omitempty"`
	ToSeq uint64 `json:"ts,omitempty"`
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

// bySeq returns the index in revs of the revision a continue token read,
// stored at seq; 410 Gone when the history no longer keeps it.
func bySeq(revs []answer.Revision, seq uint64) (int, error) {
	for i := range revs {
		if revs[i].Entry.Sequence == seq {
			return i, nil
		}
	}
	return 0, apierrors.NewResourceExpired("continue: the revision this token reads is no longer kept " +
		"(trimmed by retention, or its inventory was deleted): start again without continue")
}

// listMeta returns the metadata of a page of n items from offset out of
// total, with a continue token (c at the next offset) when more remain.
func listMeta(offset, n, total int, c cursor) metav1.ListMeta {
	var lm metav1.ListMeta
	if end := offset + n; end < total && n > 0 {
		c.Offset = end
		lm.Continue = c.encode()
		rest := int64(total - end)
		lm.RemainingItemCount = &rest
	}
	return lm
}
