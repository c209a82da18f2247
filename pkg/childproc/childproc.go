package childproc

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// DefaultGrace is how long Stop waits for the leader before killing the
// group, unless Grace is set.
const DefaultGrace = 10 * time.Second

// ErrExited is wrapped by Stop when the process had exited before it was
// asked to.
var ErrExited = errors.New("exited by itself")

// Process is a child process running in its own process group.
type Process struct {
	// Name names the process in messages.
	Name string
	// Cmd is the started command.
	Cmd *exec.Cmd
	// LogPath is the file its output is appended to.
	LogPath string
	// Grace is how long Stop waits before killing the group (DefaultGrace
	// when zero). Set it before calling Stop.
	Grace time.Duration

	stopSig syscall.Signal
	done    chan struct{}
	waitErr error // valid once done is closed

	stopOnce sync.Once
	stopErr  error
	forced   bool
}

// Start starts cmd with its output appended to logPath. The child gets its
// own process group and is killed if this process dies. Stop sends stopSig
// to the leader (SIGTERM when zero).
func Start(name, logPath string, stopSig syscall.Signal, cmd *exec.Cmd) (*Process, error) {
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644) //nolint:gosec // G302: a log of the caller's own child
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
		_ = f.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	if stopSig == 0 {
		stopSig = syscall.SIGTERM
	}
	p := &Process{Name: name, Cmd: cmd, LogPath: logPath, stopSig: stopSig, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		_ = f.Close() // the group's other members hold their own descriptors
		close(p.done)
	}()
	return p, nil
}

// Pid is the leader's process id (the group's id).
func (p *Process) Pid() int { return p.Cmd.Process.Pid }

// Done is closed when the leader has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// Err is the leader's exit error (nil for status 0), once Done is closed.
func (p *Process) Err() error {
	<-p.done
	return p.waitErr
}

// WaitReady calls ready every interval until it succeeds, the process exits
// or timeout passes. On failure it stops the process and returns the log
// tail.
func (p *Process) WaitReady(timeout, interval time.Duration, ready func() error) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		err := ready()
		if err == nil {
			return nil
		}
		select {
		case <-p.done:
			_ = p.Stop() // reaps the group
			return fmt.Errorf("%s exited before it was ready: %v\n%s", p.Name, p.waitErr, p.Tail(40))
		case <-deadline.C:
			_ = p.Stop()
			return fmt.Errorf("%s not ready within %s: %w\n%s", p.Name, timeout, err, p.Tail(40))
		case <-tick.C:
		}
	}
}

// Stop signals the leader, kills the whole group if the leader does not
// exit within the grace period, and reports (wrapping ErrExited) an exit
// that happened before it was asked to. Later calls return the first call's
// result.
func (p *Process) Stop() error {
	p.stopOnce.Do(func() { p.stopErr = p.terminate() })
	return p.stopErr
}

// Forced reports whether Stop had to kill the group after the grace period.
func (p *Process) Forced() bool { return p.forced }

func (p *Process) terminate() error {
	pid := p.Pid()
	select {
	case <-p.done:
		_ = syscall.Kill(-pid, syscall.SIGKILL) // leftovers of the group, if any
		return fmt.Errorf("%s %w: %v\n%s", p.Name, ErrExited, p.waitErr, p.Tail(40))
	default:
	}
	_ = syscall.Kill(pid, p.stopSig)
	grace := p.Grace
	if grace == 0 {
		grace = DefaultGrace
	}
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-p.done:
	case <-timer.C:
		p.forced = true
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		<-p.done
	}
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("kill %s process group: %w", p.Name, err)
	}
	return nil
}

// Kill kills the process group with SIGKILL, as a crash or an OOM kill
// would, and waits for the leader; later Stop calls do nothing.
func (p *Process) Kill() error {
	var err error
	p.stopOnce.Do(func() {
		if kerr := syscall.Kill(-p.Pid(), syscall.SIGKILL); kerr != nil && !errors.Is(kerr, syscall.ESRCH) {
			err = fmt.Errorf("kill %s: %w", p.Name, kerr)
		}
		<-p.done
	})
	return err
}

// Tail returns the last n lines of the log, headed with its name and path.
func (p *Process) Tail(n int) string { return Tail(p.Name, p.LogPath, n) }

// Tail returns the last n lines (at most 8 KiB) of the log file at path,
// headed with name and path, for error messages.
func Tail(name, path string, n int) string {
	f, err := os.Open(path) //nolint:gosec // G304: the caller's own log file
	if err != nil {
		return fmt.Sprintf("(%s log unreadable: %v)", name, err)
	}
	defer func() { _ = f.Close() }()
	const maxBytes = 8 << 10
	if st, err := f.Stat(); err == nil && st.Size() > maxBytes {
		_, _ = f.Seek(-maxBytes, io.SeekEnd)
	}
	b, _ := io.ReadAll(f)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return fmt.Sprintf("--- %s log (%s), last lines ---\n%s", name, path, strings.Join(lines, "\n"))
}
