package demo

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"kollect.dev/kollect/pkg/testenv"
)

// Options tune a demo run.
type Options struct {
	// BinDir holds the service binaries; they are built there first unless
	// NoBuild.
	BinDir  string
	NoBuild bool
	// Once returns after showing the change instead of waiting for ctx.
	Once bool
	// Timeout bounds each wait for the services (default 2 minutes).
	Timeout time.Duration
	// MemoryLimits are the services' --memory-limit by binary name; nil
	// gives each the chart's default container limit (ChartMemoryLimits).
	MemoryLimits map[string]string
}

// Run builds and starts everything, shows the exported inventory and a
// change, then waits for ctx (unless Once) and stops everything it started.
func Run(ctx context.Context, out io.Writer, o Options) error {
	if o.Timeout == 0 {
		o.Timeout = 2 * time.Minute
	}
	step := func(msg string) { fmt.Fprintf(out, "[demo] %s\n", msg) }
	root, err := testenv.RepoRoot()
	if err != nil {
		return err
	}
	if o.BinDir == "" {
		o.BinDir = filepath.Join(root, "bin")
	}
	if !o.NoBuild {
		if err := Build(ctx, root, o.BinDir, step); err != nil {
			return err
		}
		if err := buildBinary(ctx, root, o.BinDir, Query, step); err != nil {
			return err
		}
	}
	p, err := StartPeers(step)
	if err != nil {
		return err
	}
	defer p.Stop()
	logDir := filepath.Join(p.Dir, "logs")
	step("starting " + fmt.Sprint(Services) + " as processes (logs in " + logDir + ")")
	if o.MemoryLimits == nil {
		if o.MemoryLimits, err = ChartMemoryLimits(root); err != nil {
			return err
		}
	}
	ss, exits, err := StartServicesWith(o.BinDir, logDir, p, ServiceOptions{MemoryLimits: o.MemoryLimits})
	defer func() {
		if err := StopServices(ss, 15*time.Second); err != nil {
			step(err.Error())
		}
	}()
	if err != nil {
		return err
	}
	w := &watcher{p: p, exits: exits, timeout: o.Timeout, out: out}
	step("creating namespaces, Deployments, the example Profile and Target, a Git and a PostgreSQL sink and an inventory")
	if err := seed(ctx, p.Kube.Client, root, p); err != nil {
		return err
	}
	first, err := w.commit(ctx, 0, "web.yaml", "nginx:1.27")
	if err != nil {
		return err
	}
	if err := w.showTree(ctx, first); err != nil {
		return err
	}
	if err := w.showRows(ctx, "nginx:1.27"); err != nil {
		return err
	}
	step("changing the image of team-a/web to nginx:1.28")
	changed := time.Now()
	if err := setImage(ctx, p.Kube.Client, "team-a", "web", "nginx:1.28"); err != nil {
		return err
	}
	next, err := w.commit(ctx, first.count, "web.yaml", "nginx:1.28")
	if err != nil {
		return err
	}
	inGit := time.Since(changed)
	if err := w.showCommit(ctx, next); err != nil {
		return err
	}
	if err := w.showRows(ctx, "nginx:1.28"); err != nil {
		return err
	}
	step(fmt.Sprintf("the change reached Git in %.1fs and PostgreSQL in %.1fs", inGit.Seconds(), time.Since(changed).Seconds()))
	step("starting the query service and registering query.kollect.dev with the API server")
	qs, queryExits, err := StartQuery(ctx, o.BinDir, logDir, p, o.Timeout)
	if qs != nil {
		defer func() {
			if err := StopServices([]*Service{qs}, 15*time.Second); err != nil {
				step(err.Error())
			}
		}()
	}
	if err != nil {
		return err
	}
	step("the inventory's history, read through the Kubernetes API with the demo's kubeconfig")
	if err := w.showHistory(ctx, "team-a/workloads", 2); err != nil {
		return err
	}
	if o.Once {
		return nil
	}
	step("everything is running; press Ctrl-C to stop")
	select {
	case <-ctx.Done():
	case err = <-exits:
	case err = <-queryExits:
	}
	if ctx.Err() != nil {
		// Ctrl-C: a process that ended with it is part of stopping, not a
		// failure (make demo exits 0).
		return nil
	}
	return err
}
