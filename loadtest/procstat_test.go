package loadtest

import (
	"os"
	"testing"
)

func TestReadProcReportsThisProcess(t *testing.T) {
	s, err := readProc(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if s.RSS <= 0 || s.HWM < s.RSS || s.PPid != os.Getppid() || s.Comm == "" {
		t.Errorf("readProc(self) = %+v; want RSS > 0, HWM >= RSS, PPid %d and a command", s, os.Getppid())
	}
}
