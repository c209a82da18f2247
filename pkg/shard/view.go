package shard

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"github.com/nats-io/nats.go/jetstream"
)

// record is the value of a member key and of a shard lease.
type record struct {
	// Holder is the lease holder, or the member.
	Holder string `json:"holder"`
	// Shards is the shard count the member uses.
	Shards int `json:"shards,omitempty"`
	// Expires is when the key stops counting unless renewed.
	Expires time.Time `json:"expires"`
}

type entry struct {
	rec record
	rev uint64
}

// view is the role's keys as last seen on a watch of "<role>.>".
type view struct {
	mu      sync.Mutex
	keys    map[string]entry
	ready   bool
	wake    chan struct{}
	members string // "<role>.members."
	shards  string // "<role>.shards.<n>."
}

func newView(role string, n int) *view {
	return &view{
		keys: map[string]entry{}, wake: make(chan struct{}, 1),
		members: role + ".members.", shards: role + ".shards." + strconv.Itoa(n) + ".",
	}
}

// watch follows the role's keys until ctx ends, watching again after the
// watch fails (NATS restarting).
func (v *view) watch(ctx context.Context, kv jetstream.KeyValue, pattern string, retry time.Duration, log logr.Logger) {
	for ctx.Err() == nil {
		w, err := kv.Watch(ctx, pattern)
		if err != nil {
			log.V(1).Info("watching shard leases failed; retrying", "error", err.Error())
			select {
			case <-ctx.Done():
				return
			case <-time.After(retry):
			}
			continue
		}
		v.follow(ctx, w)
		_ = w.Stop()
	}
}

func (v *view) follow(ctx context.Context, w jetstream.KeyWatcher) {
	fresh := map[string]entry{}
	initial := true
	for {
		select {
		case <-ctx.Done():
			return
		case e, ok := <-w.Updates():
			if !ok {
				return
			}
			if e == nil { // the initial values are in
				v.replace(fresh)
				initial = false
				continue
			}
			if initial {
				if e.Operation() == jetstream.KeyValuePut {
					fresh[e.Key()] = decode(e)
				}
				continue
			}
			v.apply(e)
		}
	}
}

func decode(e jetstream.KeyValueEntry) entry {
	var r record
	_ = json.Unmarshal(e.Value(), &r) // a garbled value counts as expired
	return entry{rec: r, rev: e.Revision()}
}

func (v *view) replace(keys map[string]entry) {
	v.mu.Lock()
	v.keys, v.ready = keys, true
	v.mu.Unlock()
	v.poke()
}

func (v *view) apply(e jetstream.KeyValueEntry) {
	v.mu.Lock()
	if e.Operation() == jetstream.KeyValuePut {
		v.keys[e.Key()] = decode(e)
	} else {
		delete(v.keys, e.Key())
	}
	v.mu.Unlock()
	v.poke()
}

func (v *view) poke() {
	select {
	case v.wake <- struct{}{}:
	default:
	}
}

// state is what one step decides on.
type state struct {
	ready bool
	// members are the live members and the shard count each uses.
	members map[string]int
	// holding counts the live leases of each holder.
	holding map[string]int
	// leases are the shards' lease keys as seen, live or not.
	leases map[int]entry
}

func (v *view) state(now time.Time) state {
	v.mu.Lock()
	defer v.mu.Unlock()
	s := state{ready: v.ready, members: map[string]int{}, holding: map[string]int{}, leases: map[int]entry{}}
	for k, e := range v.keys {
		switch {
		case strings.HasPrefix(k, v.members):
			if now.Before(e.rec.Expires) {
				s.members[e.rec.Holder] = e.rec.Shards
			}
		case strings.HasPrefix(k, v.shards):
			i, err := strconv.Atoi(strings.TrimPrefix(k, v.shards))
			if err != nil {
				continue
			}
			s.leases[i] = e
			if now.Before(e.rec.Expires) {
				s.holding[e.rec.Holder]++
			}
		}
	}
	return s
}
