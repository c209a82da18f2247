package loadtest

import (
	"context"
	"net/url"
	"os"
	"strings"
	"syscall"
	"time"

	"kollect.dev/kollect/pkg/bus"
)

// inject strikes f and returns whether it took effect and when.
func (r *faultRun) inject(ctx context.Context, f fault) (bool, time.Time) {
	delay := time.Duration(float64(r.c.Workload) * (0.2 + 0.6*r.rng.Float64()))
	switch f.kind {
	case kindPoint:
		inst, ok := r.sup.waitAnyKilled(f.insts, r.c.Workload+30*time.Second)
		if ok {
			if err := r.sup.start(inst, ""); err != nil {
				r.logf("restart %s: %v", inst, err)
			}
		}
		return ok, time.Now()
	case kindKill:
		sleepCtx(ctx, delay)
		r.sup.kill(f.insts[0])
		at := time.Now()
		if err := r.sup.start(f.insts[0], ""); err != nil {
			r.logf("restart %s: %v", f.insts[0], err)
		}
		return true, at
	case kindKillLeader:
		sleepCtx(ctx, delay)
		inst := r.leaderOf(ctx, f.insts)
		if inst == "" {
			r.logf("no leader among %v", f.insts)
			return false, time.Now()
		}
		r.sup.kill(inst)
		at := time.Now()
		if err := r.sup.start(inst, ""); err != nil {
			r.logf("restart %s: %v", inst, err)
		}
		return true, at
	case kindScale:
		sleepCtx(ctx, delay/2)
		at := time.Now()
		for _, inst := range f.insts {
			if err := r.sup.start(inst, ""); err != nil {
				r.logf("add %s: %v", inst, err)
				return false, at
			}
		}
		sleepCtx(ctx, r.c.Workload/3)
		for _, inst := range f.insts {
			r.sup.stop(inst, 20*time.Second)
		}
		return true, at
	case kindStop:
		sleepCtx(ctx, delay)
		leader := r.leaseHolder(ctx, "", aggregators)
		if leader == "" {
			return false, time.Now()
		}
		at := time.Now()
		_ = r.sup.signal(leader, syscall.SIGSTOP)
		sleepCtx(ctx, 3*3*time.Second) // three lease TTLs: the standby leads meanwhile
		_ = r.sup.signal(leader, syscall.SIGCONT)
		return true, at
	case kindNATSKill, kindNATSWipe:
		sleepCtx(ctx, delay)
		at := time.Now()
		for _, n := range r.bus.Nodes {
			_ = n.Kill()
			if f.kind == kindNATSWipe {
				_ = os.RemoveAll(n.StoreDir)
			}
		}
		for _, n := range r.bus.Nodes {
			if err := n.Start(); err != nil {
				r.logf("restart %s: %v", n.Name, err)
			}
		}
		return true, at
	case kindNATSNodeKill:
		sleepCtx(ctx, delay)
		n := r.bus.Nodes[r.rng.IntN(len(r.bus.Nodes))]
		at := time.Now()
		_ = n.Kill()
		// Down for a while changes flow, so that its replicas fall behind
		// and must catch up.
		sleepCtx(ctx, r.c.Workload/4)
		if err := n.Start(); err != nil {
			r.logf("restart %s: %v", n.Name, err)
		}
		return true, at
	case kindAPIKill:
		sleepCtx(ctx, delay)
		at := time.Now()
		u, err := url.Parse(r.kube.Config.Host)
		if err != nil || killByCmdline("kube-apiserver", "--secure-port="+u.Port()) == 0 {
			r.logf("kill kube-apiserver: not found (%v)", err)
			return false, at
		}
		api := r.kube.Env.ControlPlane.APIServer
		_ = api.Stop() // reaps the killed process
		if err := api.Start(); err != nil {
			r.logf("restart kube-apiserver: %v", err)
		}
		return true, at
	case kindPGKill:
		sleepCtx(ctx, delay)
		at := time.Now()
		_ = r.pg.Kill()
		// The backends notice the postmaster's death on their own; until
		// they exit, its shared memory is in use and a new server refuses
		// to start.
		var err error
		for range 40 {
			if err = r.pg.StartServer(); err == nil {
				break
			}
			sleepCtx(ctx, 250*time.Millisecond)
		}
		if err != nil {
			r.logf("restart PostgreSQL: %v", err)
		}
		return true, at
	}
	return false, time.Now()
}

// leaderOf names an instance of insts that holds a lease of its service
// on the bus: a collector replica holding shards (every replica works on
// its share), the aggregator holding its lease.
func (r *faultRun) leaderOf(ctx context.Context, insts []string) string {
	prefix := ""
	if binaryOf(insts[0]) == "collector" {
		prefix = "collector.shards."
	}
	return r.leaseHolder(ctx, prefix, insts)
}

// leaseHolder names the instance of insts named by a lease whose key
// starts with prefix, "" for none.
func (r *faultRun) leaseHolder(ctx context.Context, prefix string, insts []string) string {
	kv, err := r.js.KeyValue(ctx, bus.BucketLeases)
	if err != nil {
		return ""
	}
	keys, err := kv.ListKeys(ctx)
	if err != nil {
		return ""
	}
	for k := range keys.Keys() {
		if !strings.HasPrefix(k, prefix) {
			continue
		}
		e, err := kv.Get(ctx, k)
		if err != nil {
			continue
		}
		for _, inst := range insts {
			if strings.Contains(string(e.Value()), `"`+inst+`"`) {
				return inst
			}
		}
	}
	return ""
}
