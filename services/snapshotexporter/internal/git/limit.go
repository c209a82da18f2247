package git

import (
	"errors"
	"fmt"
	"io"
	"net/http"

	"kollect.dev/kollect/pkg/sink"
)

// DefaultMaxFetchBytes is the most bytes one answer of an http(s) Git
// remote may carry when Backend.MaxFetchBytes is zero: the depth-1 pack of
// a branch tip (every file of the tip, compressed), the reference listing,
// a push's report. A fetch unpacks into memory without a cache folder, so
// the cap bounds what one remote can make the shared exporter hold.
const DefaultMaxFetchBytes = 1 << 30

// ErrAnswerTooLarge is wrapped by the error of a Git request whose answer
// went over the read limit.
var ErrAnswerTooLarge = errors.New("git answer over the read limit")

// tooLargeText is in the message of every such error: go-git does not
// always keep the error chain of a failed read.
const tooLargeText = "larger than the read limit"

// limitTransport caps the body of every answer rt returns at max bytes.
type limitTransport struct {
	rt  http.RoundTripper
	max int64
}

// RoundTrip implements http.RoundTripper.
func (l limitTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := l.rt.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	if resp.ContentLength > l.max {
		_ = resp.Body.Close()
		return nil, tooLarge(req.URL.Host, l.max)
	}
	resp.Body = &limitedBody{rc: resp.Body, max: l.max, host: req.URL.Host}
	return resp, nil
}

// CloseIdleConnections closes the idle connections of the transport it
// wraps.
func (l limitTransport) CloseIdleConnections() { closeIdle(l.rt) }

// limitedBody fails a read past max bytes.
type limitedBody struct {
	rc   io.ReadCloser
	max  int64
	read int64
	host string
}

func (b *limitedBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.read += int64(n)
	if b.read > b.max {
		return n - int(b.read-b.max), tooLarge(b.host, b.max)
	}
	return n, err
}

func (b *limitedBody) Close() error { return b.rc.Close() }

func tooLarge(host string, limit int64) error {
	return sink.Permanent(fmt.Errorf("an answer of git remote %s is %s of %d bytes (the exporter's Git read cap): %w",
		host, tooLargeText, limit, ErrAnswerTooLarge))
}

// maxFetch is b's answer cap.
func (b *Backend) maxFetch() int64 {
	if b.MaxFetchBytes > 0 {
		return b.MaxFetchBytes
	}
	return DefaultMaxFetchBytes
}
