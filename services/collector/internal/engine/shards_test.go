package engine

import (
	"context"
	"strconv"
	"testing"

	"github.com/go-logr/logr"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/services/collector/internal/metrics"
)

// targetsInShards returns a Target name of ns in each of n shards.
func targetsInShards(ns string, n int) []string {
	out := make([]string, n)
	for k, found := 0, 0; found < n; k++ {
		name := "t" + strconv.Itoa(k)
		if i := ShardOf(ns, name, n); out[i] == "" {
			out[i] = name
			found++
		}
	}
	return out
}

func TestAnEngineWorksOnlyOnTheTargetsOfTheShardsItHolds(t *testing.T) {
	f := &fixture{t: t, inf: newMemInformers("team-a"), rows: newMemRows()}
	f.e = New(Config{Informers: f.inf, Rows: f.rows, Metrics: metrics.New(), Status: &marks{}, Workers: 2, Shards: 2,
		Log: logr.Discard()})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.e.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("engine: %v", err)
		}
	})
	names := targetsInShards("team-a", 2)
	f.inf.add(deployments, deployment("team-a", "web"))
	f.inf.sync(deployments)
	if err := f.e.Reset(ctx, []busv1.TargetConfig{config(t, "team-a", names[0], false), config(t, "team-a", names[1], false)}, true); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.inf.requirement(deployments); ok {
		t.Error("the kind is watched while no shard is held")
	}

	if err := f.e.Acquire(ctx, 0); err != nil {
		t.Fatal(err)
	}
	f.rowsAre("team-a", names[0], "web")
	if got := f.e.OwnedTargets(); got != 1 {
		t.Errorf("OwnedTargets = %d, want 1", got)
	}
	if err := f.e.Release(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.inf.requirement(deployments); ok {
		t.Error("the kind is still watched after its only held Target's shard was given back")
	}
	api := deployment("team-a", "api")
	f.inf.add(deployments, api)
	f.e.ObjectChanged(deployments, "team-a/api", api.GetUID())

	if err := f.e.Acquire(ctx, 1); err != nil {
		t.Fatal(err)
	}
	f.rowsAre("team-a", names[1], "api", "web")
	// Shard 0's Target got no row for the object added after it was given
	// back: the next holder writes it.
	f.rowsAre("team-a", names[0], "web")
	if held := f.e.Held(); len(held) != 1 || held[0] != 1 {
		t.Errorf("Held = %v, want [1]", held)
	}
}
