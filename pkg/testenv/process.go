package testenv

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"kollect.dev/kollect/pkg/childproc"
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

// process is a peer server running as a child in its own process group,
// its output appended to a log file (pkg/childproc, which deploy/demo's
// services use too).
type process = childproc.Process

// startProcess starts cmd with its output appended to logPath; Stop sends
// stopSig to the leader (SIGTERM when zero) and kills the group after
// stopTimeout.
func startProcess(name, logPath string, stopSig syscall.Signal, cmd *exec.Cmd) (*process, error) {
	p, err := childproc.Start(name, logPath, stopSig, cmd)
	if err != nil {
		return nil, err
	}
	p.Grace = stopTimeout
	return p, nil
}

// waitReady polls ready until it succeeds, p exits or readyTimeout passes.
func waitReady(p *process, ready func() error) error {
	return p.WaitReady(readyTimeout, pollInterval, ready)
}

// logTail returns the last 40 lines (at most 8 KiB) of the log file at path.
func logTail(name, path string) string { return childproc.Tail(name, path, 40) }

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
