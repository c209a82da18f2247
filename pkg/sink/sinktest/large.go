package sinktest

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/history"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/snapshot"
	"kollect.dev/kollect/pkg/testenv"
)

// LargeRows is the row count of the smaller of the two snapshots
// StreamedWriteHeap writes (the larger has four times as many):
// KOLLECT_STREAM_ROWS when set (e.g. 250000 for a million-row run), else
// 25,000.
func LargeRows() int {
	if n, err := strconv.Atoi(os.Getenv("KOLLECT_STREAM_ROWS")); err == nil && n > 0 {
		return n
	}
	return 25_000
}

// LargeRow returns row i of a generated snapshot: a small Deployment-like
// row; rows of increasing i are in canonical order.
func LargeRow(i int, tag string) busv1.Row {
	return busv1.Row{TargetNamespace: "team-a", TargetName: "pods", Namespace: "team-a", Name: fmt.Sprintf("pod-%08d", i),
		UID: fmt.Sprintf("uid-%08d", i), Version: "v1", Kind: "Pod", Attributes: map[string]any{
			"image": "registry.example.com/team-a/app:" + tag, "replicas": float64(i % 5), "ready": i%3 == 0,
			"labels": map[string]any{"app": "web", "tier": "frontend"}}}
}

// Published is a generated snapshot stored on an embedded bus as the
// aggregator stores it (chunks and a manifest), and the header-only,
// streamed sink.Snapshot the exporter runtime hands a sink.RowStreamer.
type Published struct {
	Snapshot sink.Snapshot
	Loader   *history.Loader
}

// Bus is JetStream run as its own process (as in production, so that its
// caches are not counted in the test's heap) with the bus provisioned and
// a history writer, for Publish.
type Bus struct {
	js jetstream.JetStream
	w  *history.Writer
}

// StartBus builds and starts nats-server, and provisions the bus.
func StartBus(t testing.TB) *Bus {
	t.Helper()
	nc, err := nats.Connect(testenv.StartNATSProcess(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := bus.Provision(ctx, js, bus.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	w, err := history.NewWriter(ctx, js)
	if err != nil {
		t.Fatal(err)
	}
	return &Bus{js: js, w: w}
}

// Publish stores a snapshot of rows LargeRow(0..n-1, tag) of inv at
// revision, generated as it is chunked (the test never holds it), and
// returns it as the runtime would hand it to a RowStreamer.
func (b *Bus) Publish(t testing.TB, inv busv1.NamespacedName, revision uint64, n int, tag string) Published {
	t.Helper()
	ctx := context.Background()
	src := func(yield func(string, []byte) error) error {
		for i := range n {
			r := LargeRow(i, tag)
			raw, err := snapshot.Canonical(&r)
			if err != nil {
				return err
			}
			if err := yield(snapshot.SortKey(&r), raw); err != nil {
				return err
			}
		}
		return nil
	}
	ref, m, _, err := b.w.WriteManifest(ctx, inv, src)
	if err != nil {
		t.Fatalf("store the snapshot: %v", err)
	}
	ev := &busv1.SnapshotEvent{Inventory: inv, Revision: revision, Generation: 1, Checksum: m.Checksum, ItemCount: n, ManifestRef: ref}
	l := history.NewLoader(b.js, 0)
	now := time.Now().UTC()
	head := busv1.Envelope{SchemaVersion: busv1.SchemaVersion, Checksum: ev.Checksum, Revision: revision, Generation: 1,
		Inventory: inv, ItemCount: n}
	return Published{Loader: l, Snapshot: sink.Snapshot{
		Envelope: head.Stamp(Cluster, now),
		Load: func(ctx context.Context) (busv1.Envelope, error) {
			env, err := l.Envelope(ctx, ev)
			if err != nil {
				return busv1.Envelope{}, err
			}
			return env.Stamp(Cluster, now), nil
		},
		Stream: func(ctx context.Context) iter.Seq2[json.RawMessage, error] { return l.Rows(ctx, ev) },
	}}
}

// HeapPeak runs f and returns how far the heap's live and unswept objects
// rose above what they were before it (after a collection), sampled every
// millisecond: the memory a write needs, garbage the collector has not yet
// reclaimed included.
func HeapPeak(f func()) uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	base := read()
	var (
		peak = base
		wg   sync.WaitGroup
		stop = make(chan struct{})
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				peak = max(peak, read())
			}
		}
	}()
	f()
	close(stop)
	wg.Wait()
	return max(peak, read()) - base
}

// StreamedWriteHeap writes two generated snapshots through w, one of n
// rows and then one of 4n (LargeRows), streamed from an embedded bus, and
// fails the test when the heap the larger write needs grows with the
// inventory: more than the smaller's plus slack, or more than bound. check
// verifies what the sink holds after each write.
func StreamedWriteHeap(t *testing.T, inv busv1.NamespacedName, bound uint64, w func(sink.Snapshot) error, check func(s sink.Snapshot)) {
	t.Helper()
	StreamedWriteHeapOf(t, inv, LargeRows(), bound, w, check)
}

// StreamedWriteHeapOf is StreamedWriteHeap with n rows for the smaller
// snapshot, for sinks whose peer is too slow for LargeRows.
func StreamedWriteHeapOf(t *testing.T, inv busv1.NamespacedName, n int, bound uint64, w func(sink.Snapshot) error, check func(s sink.Snapshot)) {
	t.Helper()
	const slack = 16 << 20
	b := StartBus(t)
	var peaks [2]uint64
	for i, size := range []int{n, 4 * n} {
		s := b.Publish(t, inv, uint64(i+1), size, strconv.Itoa(i))
		var err error
		peaks[i] = HeapPeak(func() { err = w(s.Snapshot) })
		if err != nil {
			t.Fatalf("write %d rows: %v", size, err)
		}
		check(s.Snapshot)
		if hits := s.Loader.ChunkHits.Load(); hits != 0 {
			t.Errorf("the write read %d chunks from the cache: a streamed write must not fill it", hits)
		}
		t.Logf("a streamed full write of %d rows raised the heap by %.1f MiB (chunk cache: %d hits, %d misses)",
			size, float64(peaks[i])/(1<<20), s.Loader.ChunkHits.Load(), s.Loader.ChunkMisses.Load())
	}
	if peaks[1] > peaks[0]+slack || peaks[1] > bound {
		t.Errorf("the heap a full write needs grows with the inventory: %.1f MiB for %d rows, %.1f MiB for %d (bound %.0f MiB)",
			float64(peaks[0])/(1<<20), n, float64(peaks[1])/(1<<20), 4*n, float64(bound)/(1<<20))
	}
}
