package loadtest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// changes makes the single-object changes and waits for both sinks to show
// them (at most ChangeWait after the last write).
func (r *run) changes(ctx context.Context, pg *pgSink, git *gitSink) error {
	r.s.mark("changes")
	r.step("making %d single-object changes at %.0f/s", r.c.Changes, r.c.ChangeRate)
	t := newTracker(pg, git)
	pctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { t.pollPG(pctx) })
	wg.Go(func() { t.pollGit(pctx) })
	start := time.Now()
	changes, err := makeChanges(ctx, r.mut, r.objs, r.c.Changes, r.c.ChangeRate, t)
	r.res.ChangesSecs = time.Since(start).Seconds()
	if err == nil {
		deadline := time.Now().Add(r.c.ChangeWait)
		err = r.waitFor(ctx, "change in both sinks", 100*time.Millisecond, func() (bool, error) {
			p, g := t.pending()
			return p+g == 0 || time.Now().After(deadline), nil
		})
	}
	stop()
	wg.Wait()
	r.res.Changes = changes
	var pgs, gits []float64
	for _, c := range changes {
		pgs, gits = append(pgs, c.PG), append(gits, c.Git)
	}
	r.res.Postgres, r.res.Git = summarize(pgs), summarize(gits)
	r.step("change to PostgreSQL p50 %.2fs p95 %.2fs p99 %.2fs (%d missing); to Git p50 %.2fs p95 %.2fs p99 %.2fs (%d missing)",
		r.res.Postgres.P50, r.res.Postgres.P95, r.res.Postgres.P99, r.res.Postgres.Missing,
		r.res.Git.P50, r.res.Git.P95, r.res.Git.P99, r.res.Git.Missing)
	return err
}

// deletes deletes the last c.Deletes objects at once and waits until both
// sinks dropped them.
func (r *run) deletes(ctx context.Context, pg *pgSink, git *gitSink) error {
	r.s.mark("deletes")
	n := min(r.c.Deletes, len(r.objs))
	gone := r.objs[len(r.objs)-n:]
	r.step("deleting %d objects", n)
	start := time.Now()
	sem := make(chan struct{}, r.c.Workers)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for _, o := range gone {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if err := r.mut.delete(ctx, o); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	r.res.Delete.Count = n
	var pgErr, gitErr error
	wg.Go(func() {
		pgErr = r.waitFor(ctx, "deleted rows gone", 100*time.Millisecond, func() (bool, error) {
			left, err := pg.present(ctx, gone)
			return err == nil && left == 0, err
		})
		r.res.Delete.PostgresSeconds = time.Since(start).Seconds()
	})
	wg.Go(func() {
		gitErr = r.waitFor(ctx, "deleted files gone", 100*time.Millisecond, func() (bool, error) {
			if _, err := git.refresh(); err != nil {
				return false, err
			}
			for _, o := range gone {
				if body, _ := git.file(filePath(o)); body != "" {
					return false, nil
				}
			}
			return true, nil
		})
		r.res.Delete.GitSeconds = time.Since(start).Seconds()
	})
	wg.Wait()
	r.step("delete propagation: PostgreSQL %.2fs, Git %.2fs", r.res.Delete.PostgresSeconds, r.res.Delete.GitSeconds)
	if pgErr != nil || gitErr != nil {
		return fmt.Errorf("delete propagation: postgres: %v; git: %v", pgErr, gitErr)
	}
	return nil
}

// keptMetrics are the prefixes of the metrics scrapeMetrics keeps.
var keptMetrics = []string{"kollect_", "process_", "go_memstats_heap_inuse", "go_gc_gomemlimit", "go_gc_duration_seconds",
	"rest_client_requests_total"}

// scrapeMetrics saves the services' kollect_* and process_* metrics next to
// the report.
func (r *run) scrapeMetrics() {
	var b strings.Builder
	for name, port := range r.metrics {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/metrics", port))
		if err != nil {
			fmt.Fprintf(&b, "# %s: %v\n", name, err)
			continue
		}
		fmt.Fprintf(&b, "### %s (127.0.0.1:%d)\n", name, port)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			l := sc.Text()
			if slices.ContainsFunc(keptMetrics, func(p string) bool { return strings.HasPrefix(l, p) }) {
				fmt.Fprintln(&b, l)
			}
		}
		_ = resp.Body.Close()
	}
	path := filepath.Join(r.c.OutDir, r.base()+"-metrics.txt")
	if err := os.MkdirAll(r.c.OutDir, 0o755); err != nil {
		r.step("writing metrics: %v", err)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		r.step("writing metrics: %v", err)
	}
}

func pgVersion(ctx context.Context, pg *pgSink) (string, error) {
	var v string
	err := pg.pool.QueryRow(ctx, "SHOW server_version").Scan(&v)
	return "PostgreSQL " + v, err
}

// averageSize returns the mean JSON size of a sample of the load objects.
func averageSize(tier string, kinds []string) int {
	var total int
	for i := range 100 {
		var v any = configMap("ns", i, tier)
		switch kindOf(i, kinds) {
		case "Deployment":
			v = deployment("ns", i, tier)
		case WidgetKind:
			v = widget("ns", i, tier)
		}
		b, _ := json.Marshal(v)
		total += len(b)
	}
	return total / 100
}
