package loadtest

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"kollect.dev/kollect/deploy/demo"
	"kollect.dev/kollect/pkg/childproc"
	"kollect.dev/kollect/pkg/testenv"
)

// system starts the services and runs the sync, change and delete phases.
func (r *run) system(ctx context.Context) error {
	pg, err := newPGSink(ctx, r.p.DSN)
	if err != nil {
		return err
	}
	defer pg.close()
	if v, err := pgVersion(ctx, pg); err == nil {
		r.res.Versions["postgres"] = v
	}
	git := &gitSink{dir: r.p.Repo}
	extra := map[string][]string{}
	for _, name := range demo.Services {
		port, err := testenv.FreePort()
		if err != nil {
			return err
		}
		r.metrics[name] = port
		extra[name] = []string{"--metrics-bind-address=127.0.0.1:" + strconv.Itoa(port)}
	}
	extra["control"] = append(extra["control"], "--bus-replicas="+strconv.Itoa(busReplicas(len(r.bus.Nodes))))
	resources := accessResources() + "\n---\n" + collectResources(r.c.Tier) + "\n---\n" + sinkResources(r.p.DSN, r.p.RepoURL)
	if r.sim != nil {
		extra["collector"] = append(extra["collector"], "--source-kubeconfig="+r.sourceKubeconfig)
		resources += "\n---\n" + simAccess() + "\n---\n" + simResources(r.c.Tier)
	}
	for role, n := range r.replicaCounts() {
		extra[role] = append(extra[role], replicaFlags(role, 0, n)...)
	}
	r.s.mark("initial sync")
	r.step("starting the services and applying the Profiles, Targets, inventory and sinks")
	start := time.Now()
	ss, exits, err := demo.StartServicesWith(r.c.BinDir, r.logDir(), r.svc,
		demo.ServiceOptions{Extra: extra, MemoryLimits: r.res.Settings.MemoryLimits})
	var extras []*childproc.Process
	defer func() {
		r.res.Replicas = r.replicas()
		stopReplicas(extras)
		r.scrapeMetrics()
		r.s.sample(context.Background()) // last peaks before the processes exit
		if err := demo.StopServices(ss, 20*time.Second); err != nil {
			r.step("%v", err)
		}
	}()
	if err != nil {
		return err
	}
	all := make(chan error, 16)
	go func() {
		for err := range exits {
			all <- err
		}
	}()
	r.exits = all
	if extras, err = r.extraReplicas(extra, all); err != nil {
		return err
	}
	for _, s := range ss {
		r.s.watch(s.Name, s.Cmd.Process.Pid)
	}
	if err := apply(ctx, r.p.Kube.Client, resources); err != nil {
		return err
	}
	if err := r.initialSync(ctx, start, pg, git); err != nil {
		r.keepLogs()
		return err
	}
	r.snapshotBytes()
	if err := r.idle(ctx); err != nil {
		r.keepLogs()
		return err
	}
	if err := r.changes(ctx, pg, git); err != nil {
		r.keepLogs()
		return err
	}
	if err := r.deletes(ctx, pg, git); err != nil {
		r.keepLogs()
		return err
	}
	r.s.mark("end")
	return nil
}

// snapshotBytes records the inventories' snapshot sizes the aggregators
// report after the initial sync.
func (r *run) snapshotBytes() {
	for i := range r.replicaCounts()["aggregator"] {
		if m, err := scrape(r.metrics[replicaName("aggregator", i)]); err == nil {
			r.res.BusWrites.SnapshotBytes += m["kollect_aggregator_snapshot_bytes"]
		}
	}
}

// idle lets the services run untouched for c.Idle, so that the report can
// tell the CPU they use doing nothing from what the changes cost.
func (r *run) idle(ctx context.Context) error {
	if r.c.Idle <= 0 {
		return nil
	}
	r.s.mark("idle")
	r.step("measuring the services' idle CPU for %v", r.c.Idle)
	select {
	case <-ctx.Done():
		return ctx.Err()
	case err := <-r.exits:
		return err
	case <-time.After(r.c.Idle):
		return nil
	}
}

// waitFor polls cond every interval until it holds, a service exits or the
// timeout passes.
func (r *run) waitFor(ctx context.Context, what string, interval time.Duration, cond func() (bool, error)) error {
	return demo.Poll(ctx, r.exits, demo.PollOptions{What: what, Interval: interval, Timeout: r.c.Timeout, Logs: r.logDir()}, cond)
}

// initialSync waits until both sinks hold every object.
func (r *run) initialSync(ctx context.Context, start time.Time, pg *pgSink, git *gitSink) error {
	var wg sync.WaitGroup
	var pgErr, gitErr error
	last := time.Now()
	wg.Go(func() {
		pgErr = r.waitFor(ctx, "complete PostgreSQL table", 250*time.Millisecond, func() (bool, error) {
			n, err := pg.count(ctx)
			r.res.InitialSync.Rows = n
			if time.Since(last) > 10*time.Second {
				last = time.Now()
				r.step("initial sync: %d rows, %d files", n, r.res.InitialSync.Files)
			}
			return n >= len(r.objs), err
		})
		r.res.InitialSync.PostgresSeconds = time.Since(start).Seconds()
	})
	wg.Go(func() {
		gitErr = r.waitFor(ctx, "complete Git tree", 250*time.Millisecond, func() (bool, error) {
			if _, err := git.refresh(); err != nil {
				return false, err
			}
			st, err := git.state()
			r.res.InitialSync.Files = len(st.Files)
			return len(st.Files) >= len(r.objs), err
		})
		r.res.InitialSync.GitSeconds = time.Since(start).Seconds()
	})
	wg.Wait()
	if pgErr != nil || gitErr != nil {
		return fmt.Errorf("initial sync: postgres: %v; git: %v", pgErr, gitErr)
	}
	r.step("initial sync: PostgreSQL %.1fs, Git %.1fs", r.res.InitialSync.PostgresSeconds, r.res.InitialSync.GitSeconds)
	st, err := git.state()
	if err != nil {
		return err
	}
	for _, o := range r.objs[:2] {
		if !slices.Contains(st.Files, filePath(o)) {
			return fmt.Errorf("the Git sink has no %s (first files: %v)", filePath(o), st.Files[:min(3, len(st.Files))])
		}
	}
	return nil
}
