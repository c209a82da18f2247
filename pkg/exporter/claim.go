package exporter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/nats-io/nuid"
	busv1 "kollect.dev/kollect/api/bus/v1"
)

// errClaimed is the transient error of a binding that another replica is
// writing (or that another replica claimed first): the worker waits and
// re-reads the export state, which then usually says the event is done.
var errClaimed = errors.New("binding is being written by another exporter replica")

// claim is this replica's hold on one binding's export state while it
// writes: the state carries an ExportClaim renewed every third of the TTL
// until the write ends.
type claim struct {
	rt   *runtime
	key  string
	base busv1.ExportState // the state without the claim

	mu   sync.Mutex
	rev  uint64 // KV revision of the last claim write
	stop chan struct{}
	done chan struct{}
}

// acquire claims the binding for ev on top of the state st read at KV
// revision stRev (0: absent). It fails with errClaimed when another
// replica's live claim is there or another write got in first.
func (rt *runtime) acquire(ctx context.Context, w *worker, key string, st *busv1.ExportState, stRev uint64, ev *busv1.SnapshotEvent) (*claim, error) {
	now := time.Now()
	if st != nil && st.Claim != nil && st.Claim.Owner != rt.id && now.Before(st.Claim.Expires) {
		return nil, fmt.Errorf("%w (%s, revision %d)", errClaimed, st.Claim.Owner, st.Claim.Revision)
	}
	base := busv1.ExportState{Inventory: w.inv, Sink: w.ref}
	if st != nil {
		base = *st
		base.Claim = nil
	}
	c := &claim{rt: rt, key: key, base: base, stop: make(chan struct{}), done: make(chan struct{})}
	rev, err := c.put(ctx, ev.Revision, stRev)
	if err != nil {
		return nil, err
	}
	c.rev = rev
	go c.renew(ctx, ev.Revision)
	return c, nil
}

// put writes base plus a claim on revision with compare-and-set on rev.
func (c *claim) put(ctx context.Context, revision, rev uint64) (uint64, error) {
	st := c.base
	st.Claim = &busv1.ExportClaim{Owner: c.rt.id, Revision: revision, Expires: time.Now().Add(c.rt.cfg.ClaimTTL).UTC()}
	b, err := json.Marshal(st)
	if err != nil {
		return 0, fmt.Errorf("encode export state %s: %w", c.key, err)
	}
	if rev == 0 {
		rev, err = c.rt.state.Create(ctx, c.key, b)
	} else {
		rev, err = c.rt.state.Update(ctx, c.key, b, rev)
	}
	if err != nil {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		return 0, fmt.Errorf("%w: claim export state %s: %v", errClaimed, c.key, err)
	}
	return rev, nil
}

// renew extends the claim until end is called; a failed renewal (the claim
// was lost) stops renewing, and the final compare-and-set tells.
func (c *claim) renew(ctx context.Context, revision uint64) {
	defer close(c.done)
	t := time.NewTicker(c.rt.cfg.ClaimTTL / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.stop:
			return
		case <-t.C:
			c.mu.Lock()
			rev, err := c.put(ctx, revision, c.rev)
			if err == nil {
				c.rev = rev
			}
			c.mu.Unlock()
			if err != nil {
				return
			}
		}
	}
}

// end stops renewing and returns the KV revision of the claim, on which
// the caller records the new state.
func (c *claim) end() uint64 {
	close(c.stop)
	<-c.done
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rev
}

// release ends the claim after a failed write, restoring the state without
// it (best effort: an unreleased claim expires).
func (c *claim) release(ctx context.Context) {
	rev := c.end()
	b, err := json.Marshal(c.base)
	if err == nil {
		_, _ = c.rt.state.Update(context.WithoutCancel(ctx), c.key, b, rev)
	}
}

// replicaID names this runtime in claims: host name plus a random suffix,
// unique per process start.
func replicaID() string {
	host, _ := os.Hostname()
	return host + "-" + nuid.Next() // the whole NUID: its prefix is shared by a process
}
