package sink

import (
	"errors"
	"net/http"
	"strconv"
	"time"
)

// retryAfterError carries how long the sink's server asked to be left alone.
type retryAfterError struct {
	err   error
	after time.Duration
}

func (e *retryAfterError) Error() string { return e.err.Error() }
func (e *retryAfterError) Unwrap() error { return e.err }

// RetryAfter marks a transient err with the wait the server asked for (an
// HTTP 429 or 503 answer's Retry-After): the runtime waits at least that
// long, up to its maximum retry delay, before the next attempt.
// RetryAfter(nil, d) is nil; d <= 0 leaves err as it is.
func RetryAfter(err error, d time.Duration) error {
	if err == nil || d <= 0 {
		return err
	}
	return &retryAfterError{err: err, after: d}
}

// RetryAfterOf returns the wait carried by err or any error it wraps, zero
// when none.
func RetryAfterOf(err error) time.Duration {
	var r *retryAfterError
	if errors.As(err, &r) {
		return r.after
	}
	return 0
}

// ParseRetryAfter reads the wait a server asks for from its answer's headers:
// Retry-After in seconds or as an HTTP date (RFC 9110), else GitLab's and
// the IETF draft's RateLimit-Reset (a Unix time from GitLab, seconds from
// the draft: a value larger than a day is a time). Zero when none is given
// or it lies in the past.
func ParseRetryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("Retry-After"); v != "" {
		if s, err := strconv.ParseInt(v, 10, 64); err == nil {
			return max(time.Duration(s)*time.Second, 0)
		}
		if t, err := http.ParseTime(v); err == nil {
			return max(t.Sub(now), 0)
		}
	}
	if v := h.Get("RateLimit-Reset"); v != "" {
		if s, err := strconv.ParseInt(v, 10, 64); err == nil {
			if s > 86400 {
				return max(time.Unix(s, 0).Sub(now), 0)
			}
			return max(time.Duration(s)*time.Second, 0)
		}
	}
	return 0
}
