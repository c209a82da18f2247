package shard

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// start runs work for shard i, held.
func (g *Group) start(ctx context.Context, i int, work Work) {
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	g.mu.Lock()
	c := g.held[i]
	c.cancel, c.done = cancel, done
	g.mu.Unlock()
	go func() {
		defer close(done)
		err := work(sctx, i)
		if sctx.Err() != nil {
			return
		}
		if err == nil {
			err = errors.New("returned while the shard was held")
		}
		select {
		case g.failed <- fmt.Errorf("shard %d: %w", i, err):
		default:
		}
	}()
}

// renew extends every held lease whose renewal is due; a lease refused
// (another replica took it) or not renewed before it would expire stops
// its work at once.
func (g *Group) renew(ctx context.Context, now time.Time) {
	g.mu.Lock()
	due := map[int]*claim{}
	for i, c := range g.held {
		if !c.lost && now.Sub(c.renewed) >= g.cfg.TTL/3 {
			due[i] = c
		}
	}
	g.mu.Unlock()
	for i, c := range due {
		rev, err := g.cfg.KV.Update(ctx, c.key, g.value(now), c.rev)
		switch {
		case err == nil:
			g.mu.Lock()
			c.rev, c.expires, c.renewed = rev, now.Add(g.cfg.TTL), now
			g.mu.Unlock()
		case errors.Is(err, jetstream.ErrKeyRevisionMismatch) || errors.Is(err, jetstream.ErrKeyNotFound) ||
			!now.Before(c.expires.Add(-g.cfg.TTL/3)):
			g.cfg.Log.Info("lost shard", "shard", i, "error", err.Error())
			g.mu.Lock()
			c.lost, c.releasing = true, true // not ours: wait for the work to stop, delete nothing
			g.mu.Unlock()
			c.cancel()
		}
	}
}

// release gives back shards: their work is cancelled now and their leases
// are deleted once it has stopped (finishReleases), renewed meanwhile.
func (g *Group) release(shards []int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, i := range shards {
		c := g.held[i]
		c.releasing = true
		c.cancel()
		g.cfg.Log.Info("giving back shard", "shard", i, "shards", g.cfg.Shards)
	}
}

// finishReleases deletes the leases of released shards whose work has
// stopped.
func (g *Group) finishReleases(ctx context.Context) {
	g.mu.Lock()
	var ended []int
	for i, c := range g.held {
		if c.releasing && stopped(c) {
			ended = append(ended, i)
		}
	}
	g.mu.Unlock()
	for _, i := range ended {
		g.mu.Lock()
		c := g.held[i]
		g.mu.Unlock()
		if !c.lost { // a lost lease is another replica's now
			if err := g.cfg.KV.Delete(ctx, c.key, jetstream.LastRevision(c.rev)); err != nil && ctx.Err() == nil {
				g.cfg.Log.V(1).Info("giving back a lease failed; it expires instead", "shard", i, "error", err.Error())
			}
		}
		g.mu.Lock()
		delete(g.held, i)
		g.mu.Unlock()
	}
}

func stopped(c *claim) bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// leave stops every shard's work, then gives back its lease and the member
// key, so the other replicas take the shards at once instead of after the
// TTL.
func (g *Group) leave() {
	g.mu.Lock()
	claims := make([]*claim, 0, len(g.held))
	for _, c := range g.held {
		c.cancel()
		claims = append(claims, c)
	}
	g.held = map[int]*claim{}
	g.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), g.cfg.TTL/3)
	defer cancel()
	for _, c := range claims {
		<-c.done
		_ = g.cfg.KV.Delete(ctx, c.key, jetstream.LastRevision(c.rev))
	}
	_ = g.cfg.KV.Delete(ctx, g.memberKey)
}
