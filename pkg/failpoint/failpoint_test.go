package failpoint

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

func TestParse(t *testing.T) {
	got := parse("a=exit; b=stop@3;bad;c=explode;d=exit@0;e=exit@x")
	if len(got) != 2 {
		t.Fatalf("parsed %d points, want 2 (a, b): %v", len(got), got)
	}
	if p := got["a"]; p == nil || p.action != "exit" || p.at != 1 {
		t.Errorf("a = %+v, want exit at 1", p)
	}
	if p := got["b"]; p == nil || p.action != "stop" || p.at != 3 {
		t.Errorf("b = %+v, want stop at 3", p)
	}
	if parse("") != nil {
		t.Error("an empty value armed points")
	}
}

// TestHitKillsTheProcess runs this test binary again with a point armed at
// its second hit: the child must die of SIGKILL after reporting the point,
// and only at that hit.
func TestHitKillsTheProcess(t *testing.T) {
	if os.Getenv("FAILPOINT_CHILD") == "1" {
		Hit("test.point")
		fmt.Println("survived first hit")
		Hit("other.point")
		Hit("test.point")
		fmt.Println("survived second hit")
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHitKillsTheProcess$", "-test.v") //nolint:gosec // G702: the test binary runs itself
	cmd.Env = append(os.Environ(), "FAILPOINT_CHILD=1", Env+"=test.point=exit@2")
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	ee, ok := err.(*exec.ExitError)
	if !ok {
		t.Fatalf("child ended with %v, want a kill; stdout:\n%s", err, out.String())
	}
	ws := ee.Sys().(syscall.WaitStatus)
	if !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("child status %v, want killed by SIGKILL", ws)
	}
	if !strings.Contains(out.String(), "survived first hit") || strings.Contains(out.String(), "survived second hit") {
		t.Errorf("child output %q: want it to survive the first hit only", out.String())
	}
	if !strings.Contains(errOut.String(), "kollect failpoint test.point exit") {
		t.Errorf("child stderr %q does not name the point", errOut.String())
	}
}

func TestUnarmedIsInert(t *testing.T) {
	if Armed() {
		t.Fatalf("the test process runs with %s set", Env)
	}
	Hit("anything") // must return
}
