package bigquery

import (
	"fmt"
	"io"
	"net/http"
)

// maxAnswerBytes bounds the body of one API answer. The sink reads job
// statuses, errors and small query results (its state row); an endpoint
// (spec.endpoint names any server) that answers without end fails the
// request instead of filling the memory of the exporter every tenant
// shares.
const maxAnswerBytes = 64 << 20

// boundedBodies is a transport whose response bodies fail past max bytes.
type boundedBodies struct {
	next http.RoundTripper
	max  int64
}

func (b boundedBodies) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := b.next.RoundTrip(r)
	if err == nil && resp.Body != nil {
		resp.Body = &boundedBody{rc: resp.Body, left: b.max, max: b.max}
	}
	return resp, err
}

// boundedBody reads at most max bytes of rc and fails when there are more.
type boundedBody struct {
	rc        io.ReadCloser
	left, max int64
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if b.left <= 0 {
		// One byte more tells a body of exactly max from a longer one.
		var one [1]byte
		n, err := b.rc.Read(one[:])
		if n > 0 {
			return 0, fmt.Errorf("bigquery answer over %d bytes", b.max)
		}
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *boundedBody) Close() error { return b.rc.Close() }
