package loadtest

import (
	"os"
	"testing"
)

// TestFaultsShort is the short fault-injection run of `make test`: 1k
// objects, every crash point, kill -9 and peer fault once, each followed by
// the checks of `make faults` (sinks equal the cluster, revisions never
// backwards, no duplicate commit, no table emptied, no dead letter, no
// service exiting by itself).
func TestFaultsShort(t *testing.T) {
	c := ShortFaultConfig()
	c.BinDir = t.TempDir()
	c.Log = testLog{t}
	if os.Getenv("KOLLECT_FAULTS_ONLY") != "" {
		c.Only = []string{os.Getenv("KOLLECT_FAULTS_ONLY")}
	}
	rep, err := RunFaults(t.Context(), c)
	if err != nil {
		t.Fatalf("fault suite could not run: %v", err)
	}
	if len(rep.Outcomes) == 0 {
		t.Fatal("no fault ran")
	}
	for _, o := range rep.Failed() {
		t.Errorf("%s (%s): %s", o.Fault, o.Kind, o.summary())
	}
}

type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(string(p))
	return len(p), nil
}
