package engine

import (
	"sync"
	"time"

	"github.com/go-logr/logr"
)

// errorLog logs retried work failures at most once per interval, with the
// number of failures it did not log, so that a bus outage does not log one
// line per object.
type errorLog struct {
	logger   logr.Logger
	interval time.Duration

	mu         sync.Mutex
	last       time.Time
	suppressed int
}

func newErrorLog(l logr.Logger) *errorLog {
	return &errorLog{logger: l, interval: 5 * time.Second}
}

func (l *errorLog) log(err error) {
	l.mu.Lock()
	now := time.Now()
	if now.Sub(l.last) < l.interval {
		l.suppressed++
		l.mu.Unlock()
		return
	}
	n := l.suppressed
	l.last, l.suppressed = now, 0
	l.mu.Unlock()
	l.logger.Error(err, "collecting failed; retrying", "alsoFailedSinceLastLine", n)
}
