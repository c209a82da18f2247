package exporter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"
	busv1 "kollect.dev/kollect/api/bus/v1"
)

// errClaimed is the transient error of a binding that another replica is
// writing (or that another replica claimed first): the worker waits and
// re-reads the export state, which then usually says the event is done.
var errClaimed = errors.New("binding is being written by another exporter replica")

// errClaimLost is the error of a write whose claim this replica lost while
// it ran: a renewal found the state changed by another replica, or did not
// succeed before the claim expired (a replica cut off from the bus). The
// write's context is cancelled at once and nothing is recorded, so that
// the replica never finishes an older write after another replica's newer
// one; the worker then waits and re-reads the state like errClaimed.
var errClaimLost = errors.New("claim on the binding lost while writing")

// claim is this replica's hold on one binding's export state while it
// writes: the state carries an ExportClaim renewed every third of the TTL
// until the write ends. The write runs under ctx, which is cancelled with
// errClaimLost as its cause when a renewal loses the compare-and-set, and
// a fence margin before the claim expires when no renewal succeeded.
type claim struct {
	rt   *runtime
	key  string
	base busv1.ExportState // the state without the claim

	ctx    context.Context // the write's context
	cancel context.CancelCauseFunc

	mu    sync.Mutex
	rev   uint64      // KV revision of the last claim write
	fence *time.Timer // cancels ctx before the claim expires unless renewed
	stop  chan struct{}
	done  chan struct{}
}

// fenceMargin is how long before its expiry a claim that could not be
// renewed stops the write: the tolerated clock skew between replicas.
func fenceMargin(ttl time.Duration) time.Duration { return ttl / 6 }

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
	expires, rev, err := c.put(ctx, ev.Revision, stRev)
	if err != nil {
		return nil, err
	}
	c.rev = rev
	c.ctx, c.cancel = context.WithCancelCause(ctx)
	c.fence = time.AfterFunc(c.fenceIn(expires), func() {
		c.cancel(fmt.Errorf("%w: not renewed before it expired at %s", errClaimLost, expires.Format(time.RFC3339Nano)))
	})
	go c.renew(ctx, ev.Revision)
	return c, nil
}

// fenceIn is the delay until the write must stop for a claim expiring at
// expires.
func (c *claim) fenceIn(expires time.Time) time.Duration {
	return max(time.Until(expires)-fenceMargin(c.rt.cfg.ClaimTTL), 0)
}

// put writes base plus a claim on revision with compare-and-set on rev and
// returns the claim's expiry and the KV revision written.
func (c *claim) put(ctx context.Context, revision, rev uint64) (time.Time, uint64, error) {
	st := c.base
	expires := time.Now().Add(c.rt.cfg.ClaimTTL).UTC()
	st.Claim = &busv1.ExportClaim{Owner: c.rt.id, Revision: revision, Expires: expires}
	var err error
	switch {
	case rev == 0:
		var b []byte
		if b, err = json.Marshal(st); err != nil {
			return expires, 0, fmt.Errorf("encode export state %s: %w", c.key, err)
		}
		rev, err = c.rt.state.Create(ctx, c.key, b)
	case c.rev == 0:
		// The first claim, on the state read: any change since loses.
		var b []byte
		if b, err = json.Marshal(st); err != nil {
			return expires, 0, fmt.Errorf("encode export state %s: %w", c.key, err)
		}
		rev, err = c.rt.state.Update(ctx, c.key, b, rev)
	default:
		// A renewal keeps the hold another writer set meanwhile.
		rev, st, err = c.rt.updateOwn(ctx, c.key, st, rev)
		c.base.Hold = st.Hold
	}
	if err != nil {
		if ctx.Err() != nil {
			return expires, 0, ctx.Err()
		}
		return expires, 0, fmt.Errorf("%w: claim export state %s: %w", errClaimed, c.key, err)
	}
	return expires, rev, nil
}

// renew extends the claim until end is called. A renewal that loses the
// compare-and-set (another replica took the binding over) cancels the
// write at once; one that fails otherwise (the bus unreachable) is tried
// again at the next tick, and the fence cancels the write before the claim
// expires if none succeeds. Each renewal is bounded by a third of the TTL.
func (c *claim) renew(ctx context.Context, revision uint64) {
	defer close(c.done)
	ttl := c.rt.cfg.ClaimTTL
	t := time.NewTicker(ttl / 3)
	defer t.Stop()
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-c.stop:
			return
		case <-t.C:
		}
		pctx, cancel := context.WithTimeout(c.ctx, ttl/3)
		c.mu.Lock()
		expires, rev, err := c.put(pctx, revision, c.rev)
		if err == nil && c.ctx.Err() == nil {
			c.rev = rev
			c.fence.Reset(c.fenceIn(expires))
		}
		c.mu.Unlock()
		cancel()
		if err != nil && casConflict(err) {
			c.cancel(fmt.Errorf("%w: the export state %s was changed by another writer: %w", errClaimLost, c.key, err))
			return
		}
	}
}

// end stops renewing and returns the KV revision of the claim, on which
// the caller records the new state, or an errClaimLost error when the
// claim was lost during the write: then nothing may be recorded.
func (c *claim) end() (uint64, error) {
	select {
	case <-c.stop:
	default:
		close(c.stop)
	}
	<-c.done
	c.fence.Stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	if cause := context.Cause(c.ctx); errors.Is(cause, errClaimLost) {
		return 0, cause
	}
	c.cancel(nil)
	return c.rev, nil
}

// release ends the claim after a failed write, restoring the state without
// it (best effort: an unreleased claim expires). A lost claim is left
// alone, it is another replica's state now: release returns end's error.
func (c *claim) release(ctx context.Context) error {
	rev, err := c.end()
	if err != nil {
		return err
	}
	_, _, _ = c.rt.updateOwn(context.WithoutCancel(ctx), c.key, c.base, rev)
	return nil
}

// recordTimeout bounds recording the export state after a write.
const recordTimeout = 10 * time.Second

// recordContext is the context that records a write's export state once the
// sink holds it: detached from ctx, so that a replica stopped in between
// still records the write and drops its claim, rather than leave the next
// replica to wait the claim's TTL out and write the revision again.
func recordContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
}

// casConflict reports whether err is a lost compare-and-set on a KV key:
// a Create of an existing key, or an Update on another revision (which
// replicated buckets report with another error code than single ones).
func casConflict(err error) bool {
	return errors.Is(err, jetstream.ErrKeyExists) || errors.Is(err, jetstream.ErrKeyRevisionMismatch)
}

// replicaID names this runtime in claims: host name plus a random suffix,
// unique per process start.
func replicaID() string {
	host, _ := os.Hostname()
	return host + "-" + nuid.Next() // the whole NUID: its prefix is shared by a process
}
