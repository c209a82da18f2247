package server

import (
	"context"
	"fmt"
	"math"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// gate bounds the requests that read rows (rows, diff, timeline, revision
// counts) running at once in the process: each holds a few chunks of rows,
// so together they hold at most slots times that. A request finding every
// slot taken waits up to wait for one, then is refused with 429 Too Many
// Requests and a Retry-After, which client-go and kubectl honour.
type gate struct {
	slots chan struct{}
	wait  time.Duration
}

func newGate(slots int, wait time.Duration) *gate {
	return &gate{slots: make(chan struct{}, slots), wait: wait}
}

// enter takes a slot and returns its release; the error is 429 when none
// freed within the wait.
func (g *gate) enter(ctx context.Context) (func(), error) {
	release := func() { <-g.slots }
	select {
	case g.slots <- struct{}{}:
		return release, nil
	default:
	}
	t := time.NewTimer(g.wait)
	defer t.Stop()
	select {
	case g.slots <- struct{}{}:
		return release, nil
	case <-t.C:
	case <-ctx.Done():
	}
	retry := max(int(math.Ceil(g.wait.Seconds())), 1)
	return nil, apierrors.NewTooManyRequests(fmt.Sprintf("the query service is answering %d requests that read rows, its limit "+
		"(--max-concurrent-reads); none finished within %s: retry in %ds", cap(g.slots), g.wait, retry), retry)
}
