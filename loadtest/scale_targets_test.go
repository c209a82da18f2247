package loadtest

import "testing"

func TestScaleTargetsJudgeEveryKollectProcessAndTheTierLimits(t *testing.T) {
	res := &Result{
		InitialSync: InitialSync{PostgresSeconds: 120},
		Postgres:    Latency{P99: 0.8},
		Git:         Latency{P99: 1.5},
		Processes: []Process{
			{Name: "collector-2", PeakRSSMiB: 900},
			{Name: "snapshotexporter", PeakRSSMiB: 350},
			{Name: "nats-0", PeakRSSMiB: 5000}, // a peer: not judged
		},
		BusWrites: BusWrites{PerChangeBytes: 20000, InitialSyncRatio: 1.4},
	}
	got := map[string]TargetCheck{}
	for _, c := range scaleTargets(1000000, res) {
		got[c.Name] = c
	}
	want := map[string]bool{
		"initial sync to PostgreSQL":                     true,
		"change-to-PostgreSQL p99":                       true,
		"change-to-Git p99":                              true,
		"peak RSS of every Kollect process (highest)":    true,
		"peak RSS of every exporter (highest)":           false,
		"bus bytes written per one-object change":        false,
		"bus bytes in the initial sync ÷ snapshot bytes": true,
	}
	for name, met := range want {
		c, ok := got[name]
		if !ok {
			t.Fatalf("no target %q in %v", name, got)
		}
		if c.Met != met {
			t.Errorf("%s: met %v (got %v of %v), want %v", name, c.Met, c.Got, c.Target, met)
		}
	}
	if c := got["peak RSS of every Kollect process (highest)"]; c.Got != 900 {
		t.Errorf("highest Kollect RSS %v, want 900 (the NATS node is a peer)", c.Got)
	}
	// At 100k the same figures miss the tighter limits.
	for _, c := range scaleTargets(100000, res) {
		if c.Name == "initial sync to PostgreSQL" && c.Met {
			t.Errorf("120 s met the 100k sync limit of %v s", c.Target)
		}
		if c.Name == "peak RSS of every exporter (highest)" {
			t.Errorf("the exporter limit is a 1M target only")
		}
	}
}
