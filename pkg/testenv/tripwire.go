//go:build linux

package testenv

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
)

// Tripwire creates a named pipe holding content and returns its path and a
// function reporting whether anything opened it for reading. A reader gets
// content; opening it is the event, so a test can tell that a file path a
// tenant supplied was never opened, without timing.
func Tripwire(t testing.TB, content string) (path string, opened func() bool) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "tripwire")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatalf("create a named pipe: %v", err)
	}
	var hit atomic.Bool
	done := make(chan struct{})
	released := atomic.Bool{}
	go func() {
		defer close(done)
		f, err := os.OpenFile(path, os.O_WRONLY, 0) // blocks until a reader opens the pipe
		if err != nil {
			return
		}
		if !released.Load() {
			hit.Store(true)
		}
		_, _ = f.WriteString(content)
		_ = f.Close()
	}()
	t.Cleanup(func() {
		// Open the read end ourselves so that the writer returns.
		released.Store(true)
		r, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		<-done
		if err == nil {
			_ = r.Close()
		}
	})
	return path, hit.Load
}
