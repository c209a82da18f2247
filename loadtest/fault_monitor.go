package loadtest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"syscall"
	"time"
)

// monitor samples the sinks through a run: a revision that goes backwards
// or a table emptied is a defect even when the end state is right.
type monitor struct {
	pg  *pgSink
	git *gitSink

	mu                      sync.Mutex
	pgSeen, gitSeen         highest
	pgBack, gitBack, pgZero int
}

// highest is the highest revision a sink showed; a sample below it is a
// regression, counted once until the sink is back at or above it.
type highest struct {
	rev uint64
	low bool
}

func (h *highest) regressed(rev uint64) int {
	if rev >= h.rev {
		h.rev, h.low = rev, false
		return 0
	}
	if h.low {
		return 0
	}
	h.low = true
	return 1
}

// monitorWindow is what one run's samples found.
type monitorWindow struct {
	pgBack, gitBack int
	pgEmpty         bool
}

func newMonitor(pg *pgSink, git *gitSink) *monitor {
	// The monitor reads Git through its own handle: the run's checks move
	// theirs.
	return &monitor{pg: pg, git: &gitSink{dir: git.dir}}
}

// run samples every 200ms until ctx ends.
func (m *monitor) run(ctx context.Context) {
	every(ctx, 200*time.Millisecond, func() { m.sample(ctx) })
}

func (m *monitor) sample(ctx context.Context) {
	n, err := m.pg.count(ctx)
	st, serr := m.pg.state(ctx)
	m.mu.Lock()
	if err == nil && n == 0 {
		m.pgZero++
	}
	if serr == nil && st.Revision > 0 {
		m.pgBack += m.pgSeen.regressed(st.Revision)
	}
	m.mu.Unlock()
	if moved, err := m.git.refresh(); err == nil && moved {
		if gst, err := m.git.state(); err == nil && gst.Revision > 0 {
			m.mu.Lock()
			m.gitBack += m.gitSeen.regressed(gst.Revision)
			m.mu.Unlock()
		}
	}
}

// reset starts a run's window; the highest revisions seen carry over, so a
// regression below an earlier run's revision counts too.
func (m *monitor) reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pgBack, m.gitBack, m.pgZero = 0, 0, 0
}

// window returns what the samples since reset found.
func (m *monitor) window() monitorWindow {
	m.mu.Lock()
	defer m.mu.Unlock()
	return monitorWindow{pgBack: m.pgBack, gitBack: m.gitBack, pgEmpty: m.pgZero > 0}
}

// workload changes, deletes and creates load objects at the configured rate
// until ctx ends: most writes change one object's seq annotation to a value
// never used before, one in ten deletes an object, one in ten creates one.
func (r *faultRun) workload(ctx context.Context, run int) {
	tick := time.NewTicker(time.Duration(float64(time.Second) / r.c.ChangeRate))
	defer tick.Stop()
	lc := Config{Tier: faultTier, Namespaces: r.c.Namespaces}
	rng := rand.New(rand.NewPCG(r.c.Seed, uint64(run))) //nolint:gosec // G404: repeatable test moments, not secrets; inject uses r.rng meanwhile
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		switch p := rng.IntN(10); {
		case p == 0 && len(r.live) > 1:
			r.deleteOne(ctx, rng)
		case p == 1:
			if o, err := createObject(ctx, kubeMutator{cs: r.cs}, r.next, lc); err == nil {
				r.live = append(r.live, o)
			}
			r.next++
		default:
			if len(r.live) == 0 {
				continue
			}
			r.seq++
			_ = setSeq(ctx, r.cs, r.live[rng.IntN(len(r.live))], fmt.Sprintf("r%dc%d", run, r.seq))
		}
	}
}

// deleteSome deletes n random live objects.
func (r *faultRun) deleteSome(ctx context.Context, n int) {
	for range n {
		r.deleteOne(ctx, r.rng)
	}
}

// deleteOne deletes a random live object.
func (r *faultRun) deleteOne(ctx context.Context, rng *rand.Rand) {
	if len(r.live) == 0 {
		return
	}
	i := rng.IntN(len(r.live))
	o := r.live[i]
	r.live[i] = r.live[len(r.live)-1]
	r.live = r.live[:len(r.live)-1]
	_ = deleteObject(ctx, r.cs, o)
}

// waitAnyKilled waits up to d for one of insts to die of SIGKILL and names it.
func (s *supervisor) waitAnyKilled(insts []string, d time.Duration) (string, bool) {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		for _, inst := range insts {
			p := s.get(inst)
			if p == nil {
				continue
			}
			select {
			case <-p.done:
				if p.status.Signaled() && p.status.Signal() == syscall.SIGKILL {
					return inst, true
				}
			default:
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return "", false
}
