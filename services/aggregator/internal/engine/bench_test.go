package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
)

const (
	benchInventories = 100
	benchRowsPerInv  = 1000
)

func benchRow(inv, i, v int) busv1.Row {
	ns := fmt.Sprintf("ns-%03d", inv)
	return busv1.Row{TargetNamespace: ns, TargetName: "deploys", Namespace: ns, Name: fmt.Sprintf("app-%04d", i),
		UID: fmt.Sprintf("%03d-%06d", inv, i), Group: "apps", Version: "v1", Kind: "Deployment",
		Attributes: map[string]any{"image": fmt.Sprintf("registry.example.com/team/app-%d:1.%d", i, v),
			"replicas": float64(3), "labels": map[string]any{"app": fmt.Sprintf("app-%d", i), "tier": "web"}}}
}

// loadBench writes 100,000 rows across 100 namespaces, one inventory each,
// with asynchronous KV publishes.
func loadBench(b *testing.B) *bed {
	bd := newBed(b, nil)
	for inv := range benchInventories {
		bd.putInventory(nsInventory(fmt.Sprintf("ns-%03d", inv), "inv"))
	}
	for inv := range benchInventories {
		for i := range benchRowsPerInv {
			r := benchRow(inv, i, 0)
			v, err := json.Marshal(busv1.RowEntry{Row: r, TargetGeneration: 1})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := bd.js.PublishAsync("$KV."+bus.BucketRows+"."+bus.RowKey(r.Key()), v); err != nil {
				b.Fatal(err)
			}
		}
		<-bd.js.PublishAsyncComplete()
	}
	return bd
}

// BenchmarkRebuild100kRows measures a full rebuild of 100 inventories from
// 100,000 rows on the bus: watch, index, snapshot and compare with the last
// published event (the first iteration also publishes the 100 snapshots).
func BenchmarkRebuild100kRows(b *testing.B) {
	bd := loadBench(b)
	var perRow float64
	b.ResetTimer()
	for range b.N {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		e, stop := bd.startStoppable(Options{Settle: 0})
		waitFor(b, "the rebuild", func() bool { return e.started.Load() && e.settled.Load() >= benchInventories })
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&after)
		perRow = float64(after.HeapAlloc-before.HeapAlloc) / float64(benchInventories*benchRowsPerInv)
		stop()
		b.StartTimer()
	}
	b.ReportMetric(perRow, "heapB/row")
}

// BenchmarkOneRowChangeLatency measures, with 100,000 rows in 100
// inventories and no settle window, the time from a row write to the
// inventory's snapshot event arriving at a subscriber.
func BenchmarkOneRowChangeLatency(b *testing.B) {
	bd := loadBench(b)
	e := bd.start(Options{Settle: 0})
	waitFor(b, "the rebuild", func() bool { return e.started.Load() && e.settled.Load() >= benchInventories })
	sub, err := bd.js.Conn().SubscribeSync(bus.SnapshotSubjects)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = sub.Unsubscribe() }()
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		inv := i % benchInventories
		want := bus.SnapshotSubject(key(fmt.Sprintf("ns-%03d", inv), "inv"))
		start := time.Now()
		bd.putRow(benchRow(inv, i%benchRowsPerInv, i+1))
		if err := nextOn(sub, want); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

func nextOn(sub *nats.Subscription, subject string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		m, err := sub.NextMsgWithContext(ctx)
		if err != nil {
			return fmt.Errorf("wait for %s: %w", subject, err)
		}
		if m.Subject == subject {
			return nil
		}
	}
}
