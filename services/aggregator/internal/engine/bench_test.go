package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"syscall"
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
func loadBench(b *testing.B) *bed { return loadRows(b, benchInventories, benchRowsPerInv) }

// loadRows writes perInv rows into each of invs namespaces, one inventory
// each.
func loadRows(b *testing.B, invs, perInv int) *bed {
	bd := newBed(b, nil)
	for inv := range invs {
		bd.putInventory(nsInventory(fmt.Sprintf("ns-%03d", inv), "inv"))
	}
	for inv := range invs {
		for i := range perInv {
			r := benchRow(inv, i, 0)
			v, err := json.Marshal(busv1.RowEntry{Row: r, TargetGeneration: 1})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := bd.js.PublishAsync("$KV."+bus.BucketRows+"."+bus.RowKey(r.Key()), v); err != nil {
				b.Fatal(err)
			}
			if i%1000 == 999 { // a loaded machine stalls a longer backlog
				<-bd.js.PublishAsyncComplete()
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

// BenchmarkOneRowChangeIn100kRowInventory measures, with 100,000 rows in one
// inventory and no settle window, the time from a row write to its event
// arriving at a subscriber, and the CPU the process (aggregator and the
// embedded NATS server) spends per change.
func BenchmarkOneRowChangeIn100kRowInventory(b *testing.B) {
	const rows = 100_000
	bd := loadRows(b, 1, rows)
	start := time.Now()
	e := bd.start(Options{Settle: 0})
	waitFor(b, "the rebuild", func() bool { return e.started.Load() && e.settled.Load() >= 1 && e.events.Load() >= 1 })
	rebuild := time.Since(start)
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	sub, err := bd.js.Conn().SubscribeSync(bus.SnapshotSubjects)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = sub.Unsubscribe() }()
	want := bus.SnapshotSubject(key("ns-000", "inv"))
	lat := make([]time.Duration, 0, b.N)
	cpu0 := processCPU(b)
	bytes0 := streamBytes(b, bd)
	b.ResetTimer()
	for i := range b.N {
		t0 := time.Now()
		bd.putRow(benchRow(0, (i*7919)%rows, i+1))
		if err := nextOn(sub, want); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	cpu := processCPU(b) - cpu0
	perChange := float64(streamBytes(b, bd)-bytes0) / float64(b.N)
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(cpu.Seconds()*1000/float64(b.N), "cpu-ms/change")
	b.ReportMetric(perChange, "busB/change")
	b.ReportMetric(rebuild.Seconds(), "rebuild-s")
	b.ReportMetric(float64(after.HeapAlloc)/rows, "heapB/row")
}

// streamBytes is what every stream of the bus stores, in bytes. Measured
// around changes that evict nothing (garbage collection off, histories
// below their limits, a changed row replacing its previous value), its
// growth is what JetStream accepted for them, less the replaced rows.
func streamBytes(b *testing.B, bd *bed) int64 {
	var n int64
	for s := range bd.js.ListStreams(context.Background()).Info() {
		n += int64(s.State.Bytes)
	}
	return n
}

// processCPU is the CPU time (user and system) this process used so far.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
