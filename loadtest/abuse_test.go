package loadtest

import (
	"testing"
)

// TestAbuseShort is the abuse suite of `make test` (issue #33): with the
// chart's defaults, one tenant floods (1ms intervals, 20 bindings per
// inventory, near-1 MiB inventories, 1000 revisions for 90 days asked, 10
// replays) while another keeps changing; the bus grows by at most 50 MiB
// in 90 s, every change of the second tenant reaches its sink within 10 s,
// no service restarts or passes 512 MiB, refusals are in status and
// finished replays never run again.
func TestAbuseShort(t *testing.T) {
	c := DefaultAbuseConfig()
	c.BinDir = t.TempDir()
	c.Log = testLog{t}
	rep, err := RunAbuse(t.Context(), c)
	if err != nil {
		t.Fatalf("abuse suite could not run: %v", err)
	}
	l := rep.sortedLatencies()
	if len(l) < 10 {
		t.Fatalf("only %d changes of the steady tenant were measured", len(l))
	}
	t.Logf("growth %.1f MiB; steady tenant: %d changes, median %v, max %v; peak RSS (MiB) %v; replayed events %d",
		float64(rep.Growth)/(1<<20), len(l), l[len(l)/2], l[len(l)-1], rep.PeakRSS, rep.ReplayEventsAtRestart)
	for _, f := range rep.Failures {
		t.Error(f)
	}
}
