package loadtest

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/deploy/demo"
	"kollect.dev/kollect/pkg/childproc"
	"kollect.dev/kollect/pkg/testenv"

	"github.com/go-git/go-git/v5/plumbing"
)

// system starts the services and runs the sync, change and delete phases.
func (r *run) system(ctx context.Context) error {
	if err := r.raisePGConnections(ctx); err != nil {
		return err
	}
	pg, err := newPGSink(ctx, r.p.DSN)
	if err != nil {
		return err
	}
	defer pg.close()
	if v, err := pgVersion(ctx, pg); err == nil {
		r.res.Versions["postgres"] = v
	}
	git := &gitSink{dir: r.p.Repo, perNamespace: true}
	extra := map[string][]string{}
	for _, name := range demo.Services {
		port, err := testenv.FreePort()
		if err != nil {
			return err
		}
		r.metrics[name] = port
		// The load test scrapes 127.0.0.1 itself, over plain HTTP: the explicit opt-out.
		extra[name] = []string{"--metrics-bind-address=127.0.0.1:" + strconv.Itoa(port), "--metrics-secure=false"}
		pp, err := r.pprofFlag(name)
		if err != nil {
			return err
		}
		extra[name] = append(extra[name], pp...)
	}
	extra["control"] = append(extra["control"], "--bus-replicas="+strconv.Itoa(busReplicas(len(r.bus.Nodes))))
	resources := shapeResources(r.c.Namespaces, r.c.Tier, r.c.Kinds, r.p.DSN, r.p.RepoURL)
	if r.sim != nil {
		extra["collector"] = append(extra["collector"], "--source-kubeconfig="+r.sourceKubeconfig)
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
		r.scrapeMetrics()
		// The last peaks before any process stops: the survivors of a
		// teardown take every shard, which is not the run's load.
		r.s.freeze(context.Background())
		stopReplicas(extras)
		if err := demo.StopServices(ss, 20*time.Second); err != nil {
			r.step("%v", err)
		}
		r.s.thaw()
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
	r.profileSync(ctx)
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

// initialSync waits until every inventory holds its rows in PostgreSQL and
// every namespaced inventory its files in Git.
func (r *run) initialSync(ctx context.Context, start time.Time, pg *pgSink, git *gitSink) error {
	want := expectedRows(r.objs)
	var wg sync.WaitGroup
	var pgErr, gitErr error
	last := time.Now()
	wg.Go(func() {
		pgErr = r.waitFor(ctx, "complete PostgreSQL table", r.syncPoll(), func() (bool, error) {
			got, err := pg.counts(ctx)
			r.res.InitialSync.Rows = sum(got)
			if time.Since(last) > 10*time.Second {
				last = time.Now()
				r.step("initial sync: %d of %d rows, %d files", r.res.InitialSync.Rows, sum(want), r.res.InitialSync.Files)
			}
			return complete(got, want), err
		})
		r.res.InitialSync.PostgresSeconds = time.Since(start).Seconds()
	})
	wg.Go(func() {
		gitErr = r.waitFor(ctx, "complete Git tree", r.syncPoll(), func() (bool, error) {
			err := r.gitCount(git)
			r.res.InitialSync.Files = r.gitFileCount()
			return r.res.InitialSync.Files >= len(r.objs), err
		})
		r.res.InitialSync.GitSeconds = time.Since(start).Seconds()
	})
	wg.Wait()
	if pgErr != nil || gitErr != nil {
		return fmt.Errorf("initial sync: postgres: %v; git: %v", pgErr, gitErr)
	}
	r.step("initial sync: PostgreSQL %.1fs, Git %.1fs", r.res.InitialSync.PostgresSeconds, r.res.InitialSync.GitSeconds)
	files, err := r.gitFiles(git)
	if err != nil {
		return err
	}
	for _, o := range r.objs[:min(len(r.objs), 2*len(r.c.Kinds))] {
		if _, ok := files[filePath(o)]; !ok {
			return fmt.Errorf("the Git sink has no %s", filePath(o))
		}
	}
	return nil
}

// syncPoll is how often the initial sync's pollers look: every 250 ms up to
// 100k objects, then less often (2 s at 1M) so that counting a million rows
// does not take the CPU the services are measured on.
func (r *run) syncPoll() time.Duration {
	return time.Duration(max(1, min(8, r.c.Objects/100000))) * 250 * time.Millisecond
}

// gitFiles refreshes the repository and returns the files every namespaced
// inventory's state lists; an inventory not exported yet lists none. A
// namespace's state is read again only when its branch moved, so that
// polling a million files costs the poller (and the machine the services
// share) little.
func (r *run) gitFiles(git *gitSink) (map[string]bool, error) {
	if err := r.gitCount(git); err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, c := range r.gitStates {
		for _, f := range c.files {
			out[f] = true
		}
	}
	return out, nil
}

// gitCount refreshes the repository and r.gitStates, returning nothing but
// an error; the files are counted by gitFileCount.
func (r *run) gitCount(git *gitSink) error {
	if _, err := git.refresh(); err != nil {
		return err
	}
	if r.gitStates == nil {
		r.gitStates = map[string]gitState{}
	}
	for i := range r.c.Namespaces {
		inv := busv1.NamespacedName{Namespace: namespaceName(i), Name: InventoryName}
		head := git.heads[git.branchOf(inv.Namespace)]
		if c, ok := r.gitStates[inv.Namespace]; ok && c.head == head {
			continue
		}
		st, err := git.stateOf(inv)
		if err != nil {
			return err
		}
		r.gitStates[inv.Namespace] = gitState{head: head, files: st.Files}
	}
	return nil
}

// gitFileCount is the number of files the last gitCount saw.
func (r *run) gitFileCount() int {
	n := 0
	for _, c := range r.gitStates {
		n += len(c.files)
	}
	return n
}

// gitState is what a namespace's inventory state listed at its branch head.
type gitState struct {
	head  plumbing.Hash
	files []string
}

// complete reports whether every inventory holds at least its expected
// rows.
func complete(got, want map[busv1.NamespacedName]int) bool {
	for inv, n := range want {
		if got[inv] < n {
			return false
		}
	}
	return true
}

func sum(m map[busv1.NamespacedName]int) int {
	var n int
	for _, v := range m {
		n += v
	}
	return n
}
