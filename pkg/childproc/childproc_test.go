package childproc_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kollect.dev/kollect/pkg/childproc"
	"kollect.dev/kollect/pkg/testenv"
)

func TestStopReportsAnExitThatCameFirst(t *testing.T) {
	dir := t.TempDir()
	p, err := childproc.Start("sh", filepath.Join(dir, "sh.log"), 0, shell(`echo "bye"; exit 4`))
	if err != nil {
		t.Fatal(err)
	}
	<-p.Done()
	if err := p.Stop(); !errors.Is(err, childproc.ErrExited) || !strings.Contains(err.Error(), "bye") {
		t.Fatalf("Stop after the exit: %v, want ErrExited with the log", err)
	}
	var ee *exec.ExitError
	if !errors.As(p.Err(), &ee) || ee.ExitCode() != 4 {
		t.Fatalf("Err() = %v, want exit status 4", p.Err())
	}
}

func TestAProcessThatDiesIsReportedWithItsLog(t *testing.T) {
	dir := t.TempDir()
	p, err := childproc.Start("sh", filepath.Join(dir, "sh.log"), 0, shell(`echo "cannot bind"; exit 3`))
	if err != nil {
		t.Fatal(err)
	}
	err = p.WaitReady(5*time.Second, 20*time.Millisecond, func() error { return errors.New("never ready") })
	if err == nil || !strings.Contains(err.Error(), "exited before it was ready") || !strings.Contains(err.Error(), "cannot bind") {
		t.Fatalf("err = %v, want the early exit and the log line", err)
	}
}

// TestStopLeavesNoProcessOfTheGroup: Stop ends the grandchildren too,
// whether the leader exits on the signal or ignores it.
func TestStopLeavesNoProcessOfTheGroup(t *testing.T) {
	// The pid file appears by rename once written: the shell creates a
	// redirection's file before it writes to it.
	for _, tc := range []struct {
		name   string
		script string
		forced bool
	}{
		{name: "a leader that exits on SIGTERM leaves no grandchild", script: `sleep 300 & echo $! > pid.tmp && mv pid.tmp pid; wait`},
		{name: "a leader that ignores SIGTERM is killed with its group", script: `trap "" TERM; sleep 300 & echo $! > pid.tmp && mv pid.tmp pid; wait`, forced: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cmd := shell(tc.script)
			cmd.Dir = dir
			p, err := childproc.Start("sh", filepath.Join(dir, "sh.log"), 0, cmd)
			if err != nil {
				t.Fatal(err)
			}
			p.Grace = 200 * time.Millisecond
			pidFile := filepath.Join(dir, "pid")
			if err := p.WaitReady(30*time.Second, 20*time.Millisecond, func() error { _, err := os.Stat(pidFile); return err }); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(pidFile)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Stop(); err != nil {
				t.Fatalf("stop: %v", err)
			}
			waitDead(t, strings.TrimSpace(string(b)))
			if p.Forced() != tc.forced {
				t.Errorf("Forced() = %v, want %v", p.Forced(), tc.forced)
			}
		})
	}
}

func shell(script string) *exec.Cmd { return exec.Command("sh", "-c", script) }

// waitDead fails unless the process pid is gone or a zombie within 5s;
// killed orphans are reaped by init, not by us.
func waitDead(t *testing.T, pid string) {
	t.Helper()
	testenv.Eventually(t, 5*time.Second, "process "+pid+" of the group gone after Stop", func() error {
		b, err := os.ReadFile("/proc/" + pid + "/stat")
		if f := strings.Fields(string(b)); err == nil && (len(f) <= 2 || f[2] != "Z") {
			return fmt.Errorf("it outlived Stop: %s", b)
		}
		return nil // gone, or a zombie
	})
}
