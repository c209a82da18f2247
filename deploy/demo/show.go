package demo

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// collected is the number of sample Deployments the Target selects.
const collected = 3

// watcher waits for and prints what the sinks hold.
type watcher struct {
	p       *Peers
	exits   <-chan error
	timeout time.Duration
	out     io.Writer
}

// head is the Git branch's newest commit.
type head struct {
	count int
	sha   string
}

// git runs git in the demo's bare repository.
func (w *watcher) git(args ...string) (string, error) {
	out, err := exec.Command("git", append([]string{"-C", w.p.Repo}, args...)...).CombinedOutput()
	return string(out), err
}

// wait polls cond every 200ms until it reports done, a service exits or the
// timeout passes.
func (w *watcher) wait(ctx context.Context, what string, cond func() (bool, error)) error {
	return Poll(ctx, w.exits, PollOptions{What: what, Interval: 200 * time.Millisecond, Timeout: w.timeout,
		Logs: w.p.Dir + "/logs"}, cond)
}

// PollOptions describe one wait of Poll.
type PollOptions struct {
	// What is waited for, for the timeout's error ("Git commit holding x").
	What string
	// Interval between two calls of the condition, and Timeout of the wait.
	Interval, Timeout time.Duration
	// Logs is the folder of the service logs, named in the timeout's error.
	Logs string
}

// Poll calls cond every o.Interval until it reports done, a service
// exits (its exit error arrives on exits) or o.Timeout passes. The demo and
// the load test wait on their running services with it.
func Poll(ctx context.Context, exits <-chan error, o PollOptions, cond func() (bool, error)) error {
	deadline := time.After(o.Timeout)
	tick := time.NewTicker(o.Interval)
	defer tick.Stop()
	for {
		ok, err := cond()
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-exits:
			return err
		case <-deadline:
			return fmt.Errorf("no %s within %v (last error: %v); see the service logs in %s", o.What, o.Timeout, err, o.Logs)
		case <-tick.C:
		}
	}
}

// commit waits for a commit after the first `after` whose file named file
// (in any folder) contains want.
func (w *watcher) commit(ctx context.Context, after int, file, want string) (head, error) {
	var h head
	err := w.wait(ctx, "Git commit holding "+want, func() (bool, error) {
		n, err := w.git("rev-list", "--count", "main")
		if err != nil {
			return false, nil //nolint:nilerr // no branch yet: keep waiting
		}
		h.count, _ = strconv.Atoi(strings.TrimSpace(n))
		if h.count <= after {
			return false, nil
		}
		files, err := w.git("ls-tree", "-r", "--name-only", "main")
		if err != nil {
			return false, err
		}
		if n := strings.Count(files, "/deployment/"); n < collected {
			return false, nil // the first commit may hold fewer rows than collected in the end
		}
		for _, f := range strings.Fields(files) {
			if strings.HasSuffix(f, "/"+file) {
				body, err := w.git("show", "main:"+f)
				if err == nil && strings.Contains(body, want) {
					sha, _ := w.git("rev-parse", "--short", "main")
					h.sha = strings.TrimSpace(sha)
					return true, nil
				}
			}
		}
		return false, nil
	})
	return h, err
}

func (w *watcher) showTree(ctx context.Context, h head) error {
	files, err := w.git("ls-tree", "-r", "--name-only", "main")
	if err != nil {
		return err
	}
	fmt.Fprintf(w.out, "\n== the Git repository at %s (commit %s)\n%s", w.p.RepoURL, h.sha, files)
	for _, f := range strings.Fields(files) {
		if strings.HasSuffix(f, "/web.yaml") {
			body, _ := w.git("show", "main:"+f)
			fmt.Fprintf(w.out, "\n== %s\n%s", f, body)
		}
	}
	return nil
}

func (w *watcher) showCommit(ctx context.Context, h head) error {
	log, err := w.git("log", "-1", "--stat", "--format=commit %h%n%an <%ae>%n%n%B", "main")
	if err != nil {
		return err
	}
	fmt.Fprintf(w.out, "\n== the new commit\n%s", log)
	return nil
}

// query is the SQL the demo prints: one row per Deployment.
const query = `SELECT resource_namespace, resource_name, attributes->>'images' AS images, attributes->>'owner' AS owner, revision
FROM public.inventory WHERE cluster = 'demo' ORDER BY resource_namespace, resource_name`

// showRows waits until the table holds want and prints the query's rows.
func (w *watcher) showRows(ctx context.Context, want string) error {
	var rows [][]string
	err := w.wait(ctx, "PostgreSQL row holding "+want, func() (bool, error) {
		var err error
		rows, err = w.rows(ctx)
		return err == nil && len(rows) == collected && strings.Contains(fmt.Sprint(rows), want), err
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(w.out, "\n== psql: %s\n", strings.Join(strings.Fields(query), " "))
	for _, r := range rows {
		fmt.Fprintln(w.out, strings.Join(r, " | "))
	}
	return nil
}

func (w *watcher) rows(ctx context.Context) ([][]string, error) {
	conn, err := pgx.Connect(ctx, w.p.DSN)
	if err != nil {
		return nil, err
	}
	defer func() { _ = conn.Close(ctx) }()
	rs, err := conn.Query(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out [][]string
	for rs.Next() {
		var ns, name, images, owner string
		var rev int64
		if err := rs.Scan(&ns, &name, &images, &owner, &rev); err != nil {
			return nil, err
		}
		out = append(out, []string{ns, name, images, owner, strconv.FormatInt(rev, 10)})
	}
	return out, rs.Err()
}
