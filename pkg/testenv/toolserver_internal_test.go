package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestAMissingToolNamesMakeTools(t *testing.T) {
	_, err := startTool("", toolSpec{tool: "bin/no-such-tool", name: "none", pattern: "kollect-none-"})
	if err == nil || !strings.Contains(err.Error(), "make tools") {
		t.Fatalf("err = %v, want one telling to run `make tools`", err)
	}
}

func TestAProcessThatDiesIsReportedWithItsLog(t *testing.T) {
	dir := t.TempDir()
	p, err := startProcess("sh", filepath.Join(dir, "sh.log"), 0, shell(`echo "cannot bind"; exit 3`))
	if err != nil {
		t.Fatal(err)
	}
	err = p.waitReady(tcpReady("127.0.0.1:1"))
	if err == nil || !strings.Contains(err.Error(), "exited before it was ready") || !strings.Contains(err.Error(), "cannot bind") {
		t.Fatalf("err = %v, want the early exit and the log line", err)
	}
}

func TestStopLeavesNoProcessOfTheGroup(t *testing.T) {
	// The pid file appears by rename once written: the shell creates a
	// redirection's file before it writes to it.
	for _, tc := range []struct {
		name   string
		script string
	}{
		{name: "a leader that exits on SIGTERM leaves no grandchild", script: `sleep 300 & echo $! > pid.tmp && mv pid.tmp pid; wait`},
		{name: "a leader that ignores SIGTERM is killed with its group", script: `trap "" TERM; sleep 300 & echo $! > pid.tmp && mv pid.tmp pid; wait`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cmd := shell(tc.script)
			cmd.Dir = dir
			p, err := startProcess("sh", filepath.Join(dir, "sh.log"), 0, cmd)
			if err != nil {
				t.Fatal(err)
			}
			p.grace = 200 * time.Millisecond
			pidFile := filepath.Join(dir, "pid")
			if err := p.waitReady(func() error { _, err := os.Stat(pidFile); return err }); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(pidFile)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.stop(); err != nil {
				t.Fatalf("stop: %v", err)
			}
			waitDead(t, strings.TrimSpace(string(b)))
		})
	}
}

func shell(script string) *exec.Cmd { return exec.Command("sh", "-c", script) }

// waitDead fails unless the process pid is gone or a zombie within 5s;
// killed orphans are reaped by init, not by us.
func waitDead(t *testing.T, pid string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil {
			return
		}
		if f := strings.Fields(string(b)); len(f) > 2 && f[2] == "Z" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %s of the group outlived Stop: %s", pid, b)
		}
		time.Sleep(pollInterval)
	}
}
