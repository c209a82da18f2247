package e2e

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// process is one component running as a host process, its output in logs/<name>.log.
type process struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{} // closed when the process has exited
	err  error         // its exit, once done is closed
}

// start runs bin with args, env added to a minimal environment.
func (c *Cluster) start(name, bin string, args []string, env ...string) (*process, error) {
	logDir := filepath.Join(c.cfg.Dir, "logs")
	if err := os.MkdirAll(logDir, 0o755); err != nil { //nolint:gosec // G301: logs for the person running the e2e cluster
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &process{name: name, log: filepath.Join(logDir, name+".log"), done: make(chan struct{})}
	f, err := os.Create(p.log)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p.cmd = exec.Command(bin, args...) //nolint:gosec // G204: the cluster's own binaries
	p.cmd.Env = append([]string{"PATH=" + c.toolPath("cluster") + ":/usr/sbin:/usr/bin:/sbin:/bin", "HOME=" + c.cfg.Dir}, env...)
	p.cmd.Stdout, p.cmd.Stderr = f, f
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := p.cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	go func() { p.err = p.cmd.Wait(); f.Close(); close(p.done) }()
	c.procs = append(c.procs, p)
	c.logf("started %s (pid %d), log %s", name, p.cmd.Process.Pid, p.log)
	return p, nil
}

// exited says whether the process has ended, and how.
func (p *process) exited() error {
	select {
	case <-p.done:
		return fmt.Errorf("%s exited: %v (log %s)", p.name, p.err, p.log)
	default:
		return nil
	}
}

// stop sends SIGTERM and, after grace, SIGKILL to the process group.
func (p *process) stop(grace time.Duration) error {
	if p.exited() != nil {
		return nil //nolint:nilerr // the process has ended already: nothing to stop
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-p.done:
		return nil
	case <-time.After(grace):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
		return fmt.Errorf("%s did not stop within %v of SIGTERM", p.name, grace)
	}
}

// waitFor polls ready every 250ms until it returns nil, p exits or within passes.
func waitFor(p *process, within time.Duration, what string, ready func() error) error {
	deadline := time.Now().Add(within)
	for {
		err := ready()
		if err == nil {
			return nil
		}
		if p != nil {
			if perr := p.exited(); perr != nil {
				return errors.Join(fmt.Errorf("%s: %w", what, perr), err)
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: not within %v: %w", what, within, err)
		}
		time.Sleep(250 * time.Millisecond) // polling a condition with a deadline
	}
}
