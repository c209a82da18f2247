package shard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"github.com/nats-io/nats.go/jetstream"

	"kollect.dev/kollect/pkg/bus"
)

// Config is one replica's place in a sharded role.
type Config struct {
	// KV is the bucket of the leases (bus.BucketLeases).
	KV jetstream.KeyValue
	// Role prefixes every key, e.g. "collector".
	Role string
	// Identity names this replica; unique among the role's replicas.
	Identity string
	// Shards is the shard count; every replica of the role must use the
	// same.
	Shards int
	// TTL is how long a member key or a lease lasts without renewal; both
	// are renewed every TTL/3.
	TTL time.Duration
	Log logr.Logger
}

// Work runs one shard until ctx ends; it must stop writing for the shard by
// the time it returns. An error while ctx is live ends Group.Run.
type Work func(ctx context.Context, shard int) error

// Group is one replica's membership.
type Group struct {
	cfg       Config
	now       func() time.Time
	view      *view
	memberKey string
	memberAt  time.Time
	failed    chan error

	mu   sync.Mutex
	held map[int]*claim
}

type claim struct {
	key       string
	rev       uint64
	expires   time.Time
	renewed   time.Time
	cancel    context.CancelFunc
	done      chan struct{}
	releasing bool
	// lost: another replica took the lease; the work is stopping.
	lost bool
}

// New returns the membership of cfg.Identity in cfg.Role.
func New(cfg Config) (*Group, error) {
	switch {
	case cfg.KV == nil:
		return nil, errors.New("shard: no leases bucket")
	case cfg.Shards < 1:
		return nil, fmt.Errorf("shard: %d shards: must be at least 1", cfg.Shards)
	case cfg.TTL <= 0:
		return nil, fmt.Errorf("shard: lease TTL %v: must be positive", cfg.TTL)
	case cfg.Identity == "" || cfg.Role == "":
		return nil, errors.New("shard: a role and an identity are required")
	}
	return &Group{
		cfg: cfg, now: time.Now, view: newView(cfg.Role, cfg.Shards),
		memberKey: cfg.Role + ".members." + bus.EncodeToken(cfg.Identity),
		failed:    make(chan error, 1), held: map[int]*claim{},
	}, nil
}

// Held returns the shards this replica works on now, in order.
func (g *Group) Held() []int {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]int, 0, len(g.held))
	for i, c := range g.held {
		if !c.releasing {
			out = append(out, i)
		}
	}
	slices.Sort(out)
	return out
}

// Run takes part in the role until ctx ends, running work for each shard
// while it holds the shard's lease. On return every shard's work has
// stopped and its lease and the member key are given back. It returns
// work's first error, nil when ctx ends.
func (g *Group) Run(ctx context.Context, work Work) error {
	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	go g.view.watch(wctx, g.cfg.KV, g.cfg.Role+".>", g.cfg.TTL/3, g.cfg.Log)
	defer g.leave()
	tick := time.NewTicker(g.cfg.TTL / 6)
	defer tick.Stop()
	for {
		g.step(ctx, work)
		select {
		case <-ctx.Done():
			return nil
		case err := <-g.failed:
			return err
		case <-tick.C:
		case <-g.view.wake:
		}
	}
}

// step renews what is due, then moves toward this replica's share.
func (g *Group) step(ctx context.Context, work Work) {
	now := g.now()
	if now.Sub(g.memberAt) >= g.cfg.TTL/3 {
		g.putMember(ctx, now)
	}
	g.renew(ctx, now)
	g.finishReleases(ctx)
	st := g.view.state(now)
	if !st.ready {
		return
	}
	st.members[g.cfg.Identity] = g.cfg.Shards // the watch may lag our own key
	for id, n := range st.members {
		if n != g.cfg.Shards {
			g.cfg.Log.Info("a live replica uses another shard count; taking no shard until it is gone",
				"member", id, "itsShards", n, "shards", g.cfg.Shards)
			g.release(g.Held())
			return
		}
	}
	g.balance(ctx, now, st, work)
}

func (g *Group) balance(ctx context.Context, now time.Time, st state, work Work) {
	members := make([]string, 0, len(st.members))
	for id := range st.members {
		members = append(members, id)
	}
	holder := make([]string, g.cfg.Shards)
	for i, e := range st.leases {
		if i < len(holder) && now.Before(e.rec.Expires) {
			holder[i] = e.rec.Holder
		}
	}
	g.mu.Lock()
	for i, c := range g.held { // ours, whatever the watch shows yet
		if i < len(holder) && !c.lost {
			holder[i] = g.cfg.Identity
		}
	}
	g.mu.Unlock()
	target := Target(g.cfg.Shards, members, holder)
	var give []int
	for _, i := range g.Held() {
		if target[i] != g.cfg.Identity {
			give = append(give, i)
		}
	}
	g.release(give)
	for i, owner := range target {
		if owner != g.cfg.Identity || holder[i] != "" {
			continue // another's, or still held (by us, or by one giving it back)
		}
		if g.acquire(ctx, now, i, st.leases[i]) {
			g.start(ctx, i, work)
		}
	}
}

func (g *Group) leaseKey(i int) string {
	return g.cfg.Role + ".shards." + strconv.Itoa(g.cfg.Shards) + "." + strconv.Itoa(i)
}

func (g *Group) value(now time.Time) []byte {
	b, _ := json.Marshal(record{Holder: g.cfg.Identity, Shards: g.cfg.Shards, Expires: now.Add(g.cfg.TTL)})
	return b
}

func (g *Group) putMember(ctx context.Context, now time.Time) {
	if _, err := g.cfg.KV.Put(ctx, g.memberKey, g.value(now)); err != nil {
		g.cfg.Log.V(1).Info("renewing membership failed", "error", err.Error())
		return
	}
	g.memberAt = now
}

// acquire takes lease i, absent or expired as seen in seen.
func (g *Group) acquire(ctx context.Context, now time.Time, i int, seen entry) bool {
	key := g.leaseKey(i)
	var rev uint64
	var err error
	if seen.rev == 0 {
		rev, err = g.cfg.KV.Create(ctx, key, g.value(now))
	} else {
		rev, err = g.cfg.KV.Update(ctx, key, g.value(now), seen.rev)
	}
	if err != nil {
		return false // taken meanwhile, or NATS is away: the next step sees
	}
	g.mu.Lock()
	g.held[i] = &claim{key: key, rev: rev, expires: now.Add(g.cfg.TTL), renewed: now}
	g.mu.Unlock()
	g.cfg.Log.Info("took shard", "shard", i, "shards", g.cfg.Shards)
	return true
}
