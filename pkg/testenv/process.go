package testenv

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

const (
	// readyTimeout bounds how long a peer may take to accept connections.
	readyTimeout = 30 * time.Second
	// stopTimeout bounds a graceful stop before the process group is killed.
	stopTimeout = 10 * time.Second
	// pollInterval is the only pause testenv takes: between readiness probes.
	pollInterval = 20 * time.Millisecond
)

// FreePort returns a loopback TCP port that was free a moment ago. Another
// process may take it before the caller binds it; on a test machine that is
// rare enough to accept.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// process is a peer server running as a child in its own process group, its
// output appended to a log file.
type process struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	log     *os.File
	stopSig syscall.Signal
	grace   time.Duration // how long stop waits before killing the group
	done    chan struct{}
	waitErr error // valid once done is closed

	stopOnce sync.Once
	stopErr  error
}

// startProcess starts cmd with its output appended to logPath. The child gets
// its own process group and is killed if the test binary dies. Stop sends
// stopSig to the leader (SIGTERM when zero).
func startProcess(name, logPath string, stopSig syscall.Signal, cmd *exec.Cmd) (*process, error) {
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open %s log: %w", name, err)
	}
	cmd.Stdout, cmd.Stderr = f, f
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	if stopSig == 0 {
		stopSig = syscall.SIGTERM
	}
	p := &process{name: name, cmd: cmd, logPath: logPath, log: f, stopSig: stopSig, grace: stopTimeout, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// waitReady polls ready until it succeeds, the process exits or readyTimeout
// passes. On failure it stops the process and returns the log tail.
func (p *process) waitReady(ready func() error) error {
	deadline := time.NewTimer(readyTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for {
		err := ready()
		if err == nil {
			return nil
		}
		select {
		case <-p.done:
			_ = p.stop() // closes the log and reaps the group
			return fmt.Errorf("%s exited before it was ready: %v\n%s", p.name, p.waitErr, p.tail())
		case <-deadline.C:
			_ = p.stop()
			return fmt.Errorf("%s not ready within %s: %w\n%s", p.name, readyTimeout, err, p.tail())
		case <-tick.C:
		}
	}
}

// stop signals the leader, kills the whole group if it does not exit within
// the grace period (stopTimeout), and reports an exit that happened before it was asked to.
// Later calls return the first call's result.
func (p *process) stop() error {
	p.stopOnce.Do(func() { p.stopErr = p.terminate() })
	return p.stopErr
}

func (p *process) terminate() error {
	defer p.log.Close()
	pid := p.cmd.Process.Pid
	select {
	case <-p.done:
		_ = syscall.Kill(-pid, syscall.SIGKILL) // leftovers of the group, if any
		return fmt.Errorf("%s had exited by itself: %v\n%s", p.name, p.waitErr, p.tail())
	default:
	}
	_ = syscall.Kill(pid, p.stopSig)
	timer := time.NewTimer(p.grace)
	defer timer.Stop()
	select {
	case <-p.done:
	case <-timer.C:
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		<-p.done
	}
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("kill %s process group: %w", p.name, err)
	}
	return nil
}

// kill kills the process group with SIGKILL, as a crash or an OOM kill
// would, and waits for the leader; later stop calls do nothing.
func (p *process) kill() error {
	var err error
	p.stopOnce.Do(func() {
		defer p.log.Close()
		if kerr := syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL); kerr != nil && !errors.Is(kerr, syscall.ESRCH) {
			err = fmt.Errorf("kill %s: %w", p.name, kerr)
		}
		<-p.done
	})
	return err
}

// tail returns the last lines of the log, for error messages.
func (p *process) tail() string { return logTail(p.name, p.logPath) }

// logTail returns the last 40 lines (at most 8 KiB) of the log file at path.
func logTail(name, path string) string {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Sprintf("(%s log unreadable: %v)", name, err)
	}
	defer f.Close()
	const max = 8 << 10
	if st, err := f.Stat(); err == nil && st.Size() > max {
		_, _ = f.Seek(-max, io.SeekEnd)
	}
	b, _ := io.ReadAll(f)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > 40 {
		lines = lines[len(lines)-40:]
	}
	return fmt.Sprintf("--- %s log (%s), last lines ---\n%s", name, path, strings.Join(lines, "\n"))
}

// tcpReady reports whether addr accepts TCP connections.
func tcpReady(addr string) func() error {
	return func() error {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return err
		}
		return c.Close()
	}
}

// httpReady reports whether url answers HTTP at all; any status will do,
// because unauthenticated probes of an S3 server get 403.
func httpReady(url string) func() error {
	client := &http.Client{Timeout: 2 * time.Second}
	return func() error {
		resp, err := client.Get(url)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.Body.Close()
	}
}

// stopOnCleanup registers stop with t, printing the peer's log tail first when
// the test failed.
func stopOnCleanup(t testing.TB, name string, stop func() error, tail func() string) {
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s", tail())
		}
		if err := stop(); err != nil {
			t.Errorf("stop %s: %v", name, err)
		}
	})
}

// peerDir returns dir, creating it, or a new temporary folder when dir is
// empty; owned reports whether the caller should remove it when done.
func peerDir(dir, pattern string) (path string, owned bool, err error) {
	if dir != "" {
		return dir, false, os.MkdirAll(dir, 0o755)
	}
	path, err = os.MkdirTemp("", pattern)
	return path, err == nil, err
}
