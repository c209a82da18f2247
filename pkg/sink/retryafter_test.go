package sink_test

import (
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"kollect.dev/kollect/pkg/sink"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	for name, tc := range map[string]struct {
		header map[string]string
		want   time.Duration
	}{
		"seconds":                               {map[string]string{"Retry-After": "30"}, 30 * time.Second},
		"an HTTP date":                          {map[string]string{"Retry-After": now.Add(90 * time.Second).Format(http.TimeFormat)}, 90 * time.Second},
		"a date in the past is no wait":         {map[string]string{"Retry-After": now.Add(-time.Minute).Format(http.TimeFormat)}, 0},
		"GitLab's RateLimit-Reset, Unix time":   {map[string]string{"RateLimit-Reset": fmt.Sprint(now.Add(45 * time.Second).Unix())}, 45 * time.Second},
		"the draft's RateLimit-Reset, seconds":  {map[string]string{"RateLimit-Reset": "12"}, 12 * time.Second},
		"Retry-After wins over RateLimit-Reset": {map[string]string{"Retry-After": "5", "RateLimit-Reset": "60"}, 5 * time.Second},
		"garbage is no wait":                    {map[string]string{"Retry-After": "soon"}, 0},
		"negative seconds are no wait":          {map[string]string{"Retry-After": "-3"}, 0},
		"no header":                             {nil, 0},
	} {
		t.Run(name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tc.header {
				h.Set(k, v)
			}
			if got := sink.ParseRetryAfter(h, now); got != tc.want {
				t.Errorf("ParseRetryAfter(%v) = %v, want %v", tc.header, got, tc.want)
			}
		})
	}
}

func TestRetryAfterIsCarriedThroughWrapping(t *testing.T) {
	base := errors.New("429 Too Many Requests")
	err := fmt.Errorf("write snapshot: %w", sink.RetryAfter(base, time.Minute))
	if got := sink.RetryAfterOf(err); got != time.Minute {
		t.Errorf("RetryAfterOf = %v, want 1m", got)
	}
	if !errors.Is(err, base) || err.Error() != "write snapshot: 429 Too Many Requests" {
		t.Errorf("the wrapped error changed: %v", err)
	}
	if sink.RetryAfter(nil, time.Minute) != nil || sink.RetryAfter(base, 0) != base || sink.RetryAfterOf(base) != 0 {
		t.Error("nil, a zero wait or an unmarked error must stay as they are")
	}
}
