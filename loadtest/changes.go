package loadtest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Change is one single-object change and when each sink showed it.
type Change struct {
	Object Object    `json:"object"`
	Value  string    `json:"value"`
	Start  time.Time `json:"start"`
	// PG and Git are seconds from the API write to the sink; -1 when the
	// sink never showed it within the wait.
	PG  float64 `json:"pg"`
	Git float64 `json:"git"`
}

// tracker polls both sinks for pending changes.
type tracker struct {
	pg  *pgSink
	git *gitSink

	mu         sync.Mutex
	pgPending  map[string]*Change // by uid
	gitPending map[string]*Change
}

func newTracker(pg *pgSink, git *gitSink) *tracker {
	return &tracker{pg: pg, git: git, pgPending: map[string]*Change{}, gitPending: map[string]*Change{}}
}

func (t *tracker) add(c *Change) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pgPending[c.Object.UID], t.gitPending[c.Object.UID] = c, c
}

func (t *tracker) pending() (pg, git int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.pgPending), len(t.gitPending)
}

// pollPG checks the pending changes against the table every 50ms.
func (t *tracker) pollPG(ctx context.Context) {
	every(ctx, 50*time.Millisecond, func() {
		t.mu.Lock()
		var objs []Object
		for _, c := range t.pgPending {
			objs = append(objs, c.Object)
		}
		t.mu.Unlock()
		if len(objs) == 0 {
			return
		}
		seqs, err := t.pg.seqs(ctx, objs)
		now := time.Now()
		if err != nil {
			return
		}
		t.mu.Lock()
		defer t.mu.Unlock()
		for uid, c := range t.pgPending {
			if seqs[uid] == c.Value {
				c.PG = now.Sub(c.Start).Seconds()
				delete(t.pgPending, uid)
			}
		}
	})
}

// pollGit checks the pending changes against each new commit every 50ms.
func (t *tracker) pollGit(ctx context.Context) {
	every(ctx, 50*time.Millisecond, func() {
		moved, err := t.git.refresh()
		now := time.Now()
		if err != nil || !moved {
			return
		}
		t.mu.Lock()
		defer t.mu.Unlock()
		for uid, c := range t.gitPending {
			if body, err := t.git.file(filePath(c.Object)); err == nil && strings.Contains(body, c.Value) {
				c.Git = now.Sub(c.Start).Seconds()
				delete(t.gitPending, uid)
			}
		}
	})
}

// every runs f every d until ctx ends.
func every(ctx context.Context, d time.Duration, f func()) {
	tick := time.NewTicker(d)
	defer tick.Stop()
	for {
		f()
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// makeChanges writes n single-object changes at rate per second, each to a
// different object while there are enough, and tracks them; it returns
// after the last write.
func makeChanges(ctx context.Context, m mutator, objs []Object, n int, rate float64, t *tracker) ([]*Change, error) {
	out := make([]*Change, n)
	nonce := time.Now().Unix() % 100000
	tick := time.NewTicker(time.Duration(float64(time.Second) / rate))
	defer tick.Stop()
	sem := make(chan struct{}, 16)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for k := range n {
		o := objs[(k*7919)%len(objs)]
		c := &Change{Object: o, Value: fmt.Sprintf("chg-%d-%06d", nonce, k), PG: -1, Git: -1}
		out[k] = c
		select {
		case <-ctx.Done():
			return out, ctx.Err()
		case <-tick.C:
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			c.Start = time.Now()
			t.add(c)
			if err := m.setSeq(ctx, c.Object, c.Value); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	return out, <-errs
}
