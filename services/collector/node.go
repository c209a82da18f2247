package collector

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-logr/logr"

	"kollect.dev/kollect/services/collector/internal/engine"
)

// stuckAfter is how long giving up a shard may take before /healthz fails:
// it waits for at most the writes awaiting their ack, so a replica that
// takes longer is wedged and a restart frees the shard.
const stuckAfter = time.Minute

// node is one replica's share of the Targets: the shards it holds (leased
// through pkg/shard, or every shard without leases) and the term that works
// on them. Terms come and go (a bus reset starts a new one) while the
// shards stay held; each term's engine is given every held shard.
type node struct {
	log          logr.Logger
	flushTimeout time.Duration
	// active is told whether the node holds any shard.
	active func(bool)

	mu     sync.Mutex
	held   map[int]bool
	eng    *engine.Engine // the running term's; nil between terms
	marked map[int]bool   // held shards whose rows-synced marker this term wrote
	epoch  uint64         // bumped whenever the term is given a shard

	leavingMu sync.Mutex        // not mu: healthz must answer while a release holds mu
	leaving   map[int]time.Time // shards being given up, since when
}

func newNode(log logr.Logger, flushTimeout time.Duration, active func(bool)) *node {
	return &node{log: log, flushTimeout: flushTimeout, active: active, held: map[int]bool{}, marked: map[int]bool{},
		leaving: map[int]time.Time{}}
}

// work is the shard.Work of a shard: the running term works on shard i
// until ctx ends; when work returns no row of the shard is written any
// more, nor awaits its ack.
func (n *node) work(ctx context.Context, i int) error {
	_, err := retry(ctx, n.log, fmt.Sprintf("take shard %d", i), func() (struct{}, error) {
		n.mu.Lock()
		defer n.mu.Unlock()
		n.held[i] = true
		n.epoch++
		n.active(true)
		if n.eng == nil {
			return struct{}{}, nil // the next term takes it
		}
		return struct{}{}, n.eng.Acquire(ctx, i)
	})
	if err == nil {
		<-ctx.Done()
	}
	n.setLeaving(i, true) // before waiting for mu: a wedged term fails healthz too
	defer n.setLeaving(i, false)
	n.mu.Lock()
	defer n.mu.Unlock()
	delete(n.held, i)
	delete(n.marked, i)
	n.active(len(n.held) > 0)
	if n.eng == nil {
		return nil
	}
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), n.flushTimeout)
	defer cancel()
	if err := n.eng.Release(fctx, i); err != nil {
		// Writes still unacknowledged were sent before the shard was
		// given up; the next holder loads what they left.
		n.log.Error(err, "giving up a shard", "shard", i)
	}
	return nil
}

// attach gives a new term's engine every held shard; detach ends the term's
// part once its workers stopped.
func (n *node) attach(ctx context.Context, eng *engine.Engine) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.eng, n.marked = eng, map[int]bool{}
	n.epoch++
	for i := range n.held {
		if err := eng.Acquire(ctx, i); err != nil {
			return err
		}
	}
	return nil
}

func (n *node) detach() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.eng, n.marked = nil, map[int]bool{}
}

// unmarked returns the held shards whose marker the term has not written,
// and the epoch they belong to.
func (n *node) unmarked() ([]int, uint64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []int
	for i := range n.held {
		if !n.marked[i] {
			out = append(out, i)
		}
	}
	return out, n.epoch
}

// setMarked records the markers of shards written, unless the term was
// given a shard since epoch (its sync is not done).
func (n *node) setMarked(shards []int, epoch uint64, write func(i int) error) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.epoch != epoch {
		return errStale
	}
	for _, i := range shards {
		if !n.held[i] {
			continue
		}
		if err := write(i); err != nil {
			return err
		}
		n.marked[i] = true
	}
	return nil
}

// errStale: the term was given a shard while its markers were due.
var errStale = errors.New("a shard was taken meanwhile")

// heldCount returns the number of shards held.
func (n *node) heldCount() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.held)
}

func (n *node) setLeaving(i int, leaving bool) {
	n.leavingMu.Lock()
	defer n.leavingMu.Unlock()
	if leaving {
		n.leaving[i] = time.Now()
	} else {
		delete(n.leaving, i)
	}
}

// healthy fails while giving up a shard has taken longer than stuckAfter.
func (n *node) healthy() error {
	n.leavingMu.Lock()
	defer n.leavingMu.Unlock()
	for i, since := range n.leaving {
		if d := time.Since(since); d > stuckAfter {
			return fmt.Errorf("giving up shard %d has taken %v", i, d.Round(time.Second))
		}
	}
	return nil
}
