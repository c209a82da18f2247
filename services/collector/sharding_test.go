package collector_test

import (
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	appsv1 "k8s.io/api/apps/v1"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/shard"
	"kollect.dev/kollect/services/collector"
)

// sharded runs the collector as one replica of several: shards leased on the
// bus as id.
func sharded(id, metricsAddr string, shards int) func(*collector.Config) {
	return func(c *collector.Config) {
		c.Leader.Enabled = true
		c.Leader.Identity = id
		c.Leader.LeaseDuration = 3 * time.Second
		c.Shards = shards
		c.Metrics.BindAddress, c.Metrics.Secure = metricsAddr, false
	}
}

// oneTargetPerShard returns a Target of ns in each of shards, placed as the
// collector places them.
func oneTargetPerShard(t *testing.T, ns string, shards int) []busv1.TargetConfig {
	t.Helper()
	out := make([]busv1.TargetConfig, shards)
	found := 0
	for k := 0; found < shards; k++ {
		name := "t" + strconv.Itoa(k)
		if i := shard.Of(ns+"/"+name, shards); out[i].Name == "" {
			out[i] = targetConfig(t, ns, name, 1, imageProfile(ns), in(ns))
			found++
		}
	}
	return out
}

// rowWrites counts the row writes (puts and deletes) published to the
// rows bucket from now on, by key, whether the stream keeps them or not;
// markers are left out.
func (e *env) rowWrites() func() map[string]int {
	e.t.Helper()
	var mu sync.Mutex
	seen := map[string]int{}
	prefix := "$KV." + bus.BucketRows + "."
	sub, err := e.nats.Conn.Subscribe(prefix+">", func(m *nats.Msg) {
		if key := strings.TrimPrefix(m.Subject, prefix); !bus.IsMarkerKey(key) {
			mu.Lock()
			seen[key]++
			mu.Unlock()
		}
	})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { _ = sub.Unsubscribe() })
	return func() map[string]int {
		mu.Lock()
		defer mu.Unlock()
		return maps.Clone(seen)
	}
}

// rowsOf returns the rows of every Target in cfgs for the deployments.
func rowsOf(t *testing.T, cfgs []busv1.TargetConfig, ds ...*appsv1.Deployment) []busv1.Row {
	var out []busv1.Row
	for _, cfg := range cfgs {
		for _, d := range ds {
			out = append(out, images(t, cfg, d))
		}
	}
	return out
}

func TestReplicasShareTheTargetsAndHandThemOverWithoutLosingOrDuplicatingRows(t *testing.T) {
	const ns, shards = "shards", 4
	e := newEnv(t)
	namespace(t, ns, nil)
	cfgs := oneTargetPerShard(t, ns, shards)
	d1, d2 := deployment(ns, "one", "one:1", 1, nil), deployment(ns, "two", "two:1", 1, nil)
	create(t, d1)
	create(t, d2)
	for _, cfg := range cfgs {
		e.put(cfg)
	}
	writes := e.rowWrites()
	addrA, addrB := freeAddr(t), freeAddr(t)
	a := e.start(sharded("replica-a", addrA, shards))
	e.start(sharded("replica-b", addrB, shards))

	e.waitRows("the two replicas collect every Target", rowsOf(t, cfgs, d1, d2)...)
	for _, addr := range []string{addrA, addrB} {
		scrape(t, addr, "kollect_collector_shards_held 2\n", "kollect_collector_targets 2\n",
			"kollect_collector_rows 4\n", "kollect_collector_leader 1\n")
	}
	e.waitMarkers("every shard's marker", shards)
	initial := writes()
	for key, n := range initial {
		if n != 1 {
			t.Errorf("row %s was written %d times, want once", key, n)
		}
	}
	before, seq := e.revisions(), e.rowsSeq()
	gone := e.shardHeldBy(t, "replica-a", shards)

	a.stop(t)
	// While replica-b takes replica-a's shards: an object and a Target of
	// one of those shards are deleted, an object is created.
	remove(t, d2)
	e.remove(cfgs[gone])
	d3 := deployment(ns, "three", "three:1", 1, nil)
	create(t, d3)
	kept := slices.Delete(slices.Clone(cfgs), gone, gone+1)
	e.waitRows("the replica left collects every Target, without the deleted object and Target", rowsOf(t, kept, d1, d3)...)
	scrape(t, addrB, "kollect_collector_shards_held 4\n", "kollect_collector_targets 3\n", "kollect_collector_rows 6\n")
	after := writes()
	for _, cfg := range kept {
		for d, want := range map[*appsv1.Deployment]int{d1: 0, d2: 1, d3: 1} {
			key := bus.RowKey(images(t, cfg, d).Key())
			if got := after[key] - initial[key]; got != want {
				t.Errorf("during the handover row %s was written %d times, want %d", key, got, want)
			}
		}
		if key := bus.RowKey(images(t, cfg, d1).Key()); e.revisions()[key] != before[key] {
			t.Errorf("the unchanged row %s was rewritten", key)
		}
	}
	if t.Failed() {
		t.Log("messages after the handover:\n" + e.rowMessagesAfter(seq))
	}
}

// shardHeldBy returns a shard of n whose lease id holds.
func (e *env) shardHeldBy(t *testing.T, id string, n int) int {
	t.Helper()
	leases, err := e.nats.JS.KeyValue(e.ctx, bus.BucketLeases)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		ent, err := leases.Get(e.ctx, bus.ShardRole(busv1.ServiceCollector)+".shards."+strconv.Itoa(n)+"."+strconv.Itoa(i))
		if err != nil {
			continue
		}
		var rec struct {
			Holder string `json:"holder"`
		}
		if json.Unmarshal(ent.Value(), &rec) == nil && rec.Holder == id {
			return i
		}
	}
	t.Fatalf("%s holds none of %d shards", id, n)
	return 0
}

// TestATargetDeletedWhileItsShardIsUnheldLeavesNoRows: a replica sees a
// Target deleted while no replica holds the Target's shard (a member that
// holds nothing keeps it free); the replica that takes the shard later
// purges the rows the Target left.
func TestATargetDeletedWhileItsShardIsUnheldLeavesNoRows(t *testing.T) {
	const ns, shards = "shard-gone", 2
	e := newEnv(t)
	namespace(t, ns, nil)
	cfgs := oneTargetPerShard(t, ns, shards)
	d1 := deployment(ns, "one", "one:1", 1, nil)
	create(t, d1)
	for _, cfg := range cfgs {
		e.put(cfg)
	}
	a := e.start(sharded("replica-a", freeAddr(t), shards))
	e.waitRows("the rows of both Targets", rowsOf(t, cfgs, d1)...)
	a.stop(t)

	leases, err := e.nats.JS.KeyValue(e.ctx, bus.BucketLeases)
	if err != nil {
		t.Fatal(err)
	}
	phantom := bus.ShardRole(busv1.ServiceCollector) + ".members.phantom"
	rec, _ := json.Marshal(map[string]any{"holder": "phantom", "shards": shards, "expires": time.Now().Add(time.Hour)})
	if _, err := leases.Put(e.ctx, phantom, rec); err != nil {
		t.Fatal(err)
	}
	addr, logs := freeAddr(t), &lines{}
	e.start(sharded("replica-b", addr, shards), func(c *collector.Config) { c.Log = logs.logger(t) })
	scrape(t, addr, "kollect_collector_shards_held 1\n")
	free := 1 - e.shardHeldBy(t, "replica-b", shards)
	eventually(t, 30*time.Second, "replica-b loaded the Targets", func() error {
		if logs.count(`"targets loaded"`) == 0 {
			return errors.New("not yet")
		}
		return nil
	})
	e.remove(cfgs[free])
	eventually(t, 30*time.Second, "replica-b saw the Target of the free shard deleted", func() error {
		if logs.count(`"target deleted; the holder of its shard purges its rows" "target"="`+cfgs[free].Name+`"`) == 0 {
			return errors.New("not yet")
		}
		return nil
	})
	if err := leases.Delete(e.ctx, phantom); err != nil {
		t.Fatal(err)
	}
	scrape(t, addr, "kollect_collector_shards_held 2\n")
	kept := slices.Delete(slices.Clone(cfgs), free, free+1)
	e.waitRows("only the rows of the Target still configured", rowsOf(t, kept, d1)...)
}
