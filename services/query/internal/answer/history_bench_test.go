package answer_test

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/services/query/internal/answer"
	"kollect.dev/kollect/services/query/querytest"
)

var (
	benchRevisions = flag.Int("history.revisions", 1000, "revisions the history benchmarks publish")
	benchRows      = flag.Int("history.rows", 10000, "rows of the inventory the history benchmarks publish")
	benchClients   = flag.Int("history.clients", 20, "concurrent requests of BenchmarkConcurrentHistoryMemory")
)

// benchStart is the time of the bench history's first revision.
var benchStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// benchBus returns a bus in a child process holding the bench history of
// team-a/workloads (publishBenchHistory).
func benchBus(b *testing.B) (jetstream.JetStream, busv1.NamespacedName) {
	b.Helper()
	ctx := context.Background()
	js := startChildNATS(b)
	opts := bus.DefaultOptions()
	opts.SnapshotHistory, opts.SnapshotMaxAge = int64(*benchRevisions)+1, 0
	if err := bus.Provision(ctx, js, opts); err != nil {
		b.Fatal(err)
	}
	inv := busv1.NamespacedName{Namespace: "team-a", Name: "workloads"}
	publishBenchHistory(ctx, b, js, inv, *benchRows, *benchRevisions, benchStart)
	return js, inv
}

// BenchmarkHistory publishes -history.revisions revisions of a
// -history.rows-row inventory, each changing one row, the way the
// aggregator stores them (chunks, manifests, deltas), and reports the bus
// storage they use (stream-bytes, object-bytes, both per revision) and
// the latency of the questions the history API answers, each with a cold
// cache: the first page of the diff between the first and the last
// revision, every row at a time (--at, page by page), a page of revisions
// with their change counts, and one object's timeline.
func BenchmarkHistory(b *testing.B) {
	ctx := context.Background()
	js, inv := benchBus(b)
	stream, objects, err := querytest.StorageBytes(ctx, js)
	if err != nil {
		b.Fatal(err)
	}
	report := func(b *testing.B) {
		b.ReportMetric(float64(stream), "stream-bytes")
		b.ReportMetric(float64(objects), "object-bytes")
		b.ReportMetric(float64(stream+objects)/float64(*benchRevisions), "bytes/revision")
	}
	for _, q := range benchQuestions(inv) {
		b.Run(q.name, func(b *testing.B) {
			defer report(b) // after the loop: b.Loop's timer reset drops metrics reported before
			for b.Loop() {
				if err := q.ask(ctx, answer.NewReader(js, 0)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// question is one request of the history API, as the server answers it.
type question struct {
	name string
	ask  func(ctx context.Context, h *answer.Reader) error
}

// benchQuestions are the history API's questions about the bench history,
// each as one request reads it: the revisions' index, then what the page
// shows.
func benchQuestions(inv busv1.NamespacedName) []question {
	revisions := func(ctx context.Context, h *answer.Reader) ([]answer.Revision, error) {
		revs, err := h.Revisions(ctx, inv, "")
		if err == nil && len(revs) != *benchRevisions {
			err = fmt.Errorf("%d revisions kept, published %d", len(revs), *benchRevisions)
		}
		return revs, err
	}
	return []question{
		{"diff", func(ctx context.Context, h *answer.Reader) error {
			revs, err := revisions(ctx, h)
			if err != nil {
				return err
			}
			first, err := h.Event(ctx, inv, revs[0].Entry)
			if err != nil {
				return err
			}
			last, err := h.Event(ctx, inv, revs[len(revs)-1].Entry)
			if err != nil {
				return err
			}
			if _, err := h.DiffRows(ctx, first, last); err != nil {
				return err
			}
			page, total, err := h.Diff(ctx, first, last, 0, 500)
			if err == nil && (len(page) == 0 || total < len(page)) && len(revs) > 1 {
				err = fmt.Errorf("a page of %d changes of %d", len(page), total)
			}
			return err
		}},
		{"at", func(ctx context.Context, h *answer.Reader) error {
			revs, err := revisions(ctx, h)
			if err != nil {
				return err
			}
			i, err := answer.Select(revs, answer.Selector{At: benchStart.Add(time.Duration(len(revs)/2)*time.Hour + time.Minute)})
			if err != nil {
				return err
			}
			ev, err := h.Event(ctx, inv, revs[i].Entry)
			if err != nil {
				return err
			}
			n := 0
			for offset := 0; offset < ev.ItemCount; offset += 5000 {
				rows, err := h.RowsPage(ctx, ev, offset, 5000)
				if err != nil {
					return err
				}
				n += len(rows)
			}
			if n != *benchRows {
				return fmt.Errorf("%d rows, want %d", n, *benchRows)
			}
			return nil
		}},
		{"revisions", func(ctx context.Context, h *answer.Reader) error {
			revs, err := revisions(ctx, h)
			if err != nil {
				return err
			}
			for i := max(len(revs)-500, 0); i < len(revs); i++ { // the latest page
				if err := h.Count(ctx, inv, revs, i); err != nil {
					return err
				}
			}
			return nil
		}},
		{"timeline", func(ctx context.Context, h *answer.Reader) error {
			revs, err := revisions(ctx, h)
			if err != nil {
				return err
			}
			o := answer.Object{Kind: "Deployment", Namespace: "team-a", Name: benchRow(benchChanged(1, *benchRows), 0).Name}
			from := max(len(revs)-31*24, 0) // the default window: 31 days of hourly revisions
			_, _, err = h.Timeline(ctx, inv, revs, from, len(revs), o, 500)
			return err
		}},
	}
}

// BenchmarkConcurrentHistoryMemory asks -history.clients questions at once
// (as many of each of benchQuestions, a rows page instead of every row)
// of one Reader, as the query service does, over the bench history
// (1,000 revisions of 10,000 rows by default), with the bus in another
// process, and reports the peak of this process's heap in use
// (runtime.MemStats.HeapInuse, sampled every 2ms: live objects and garbage
// not yet collected), the peak of the live heap (as of each collection)
// and the bytes allocated per round. The bound is 128 MiB: a higher peak fails the
// benchmark. Nothing about time is asserted.
func BenchmarkConcurrentHistoryMemory(b *testing.B) {
	ctx := context.Background()
	js, inv := benchBus(b)
	qs := benchQuestions(inv)
	qs[1] = question{"rows page", func(ctx context.Context, h *answer.Reader) error {
		revs, err := h.Revisions(ctx, inv, "")
		if err != nil {
			return err
		}
		i := len(revs) / 3
		if err := h.Count(ctx, inv, revs, i); err != nil {
			return err
		}
		ev, err := h.Event(ctx, inv, revs[i].Entry)
		if err != nil {
			return err
		}
		rows, err := h.RowsPage(ctx, ev, ev.ItemCount/2, 500)
		if err == nil && len(rows) != min(500, ev.ItemCount-ev.ItemCount/2) {
			err = fmt.Errorf("a page of %d rows", len(rows))
		}
		return err
	}}
	h := answer.NewReader(js, 0) // one per process, with the default chunk cache
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	peak := base.HeapInuse
	var peakLive uint64
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	stop, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		var m runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				runtime.ReadMemStats(&m)
				peak = max(peak, m.HeapInuse)
				metrics.Read(live)
				peakLive = max(peakLive, live[0].Value.Uint64())
			}
		}
	}()
	for b.Loop() {
		var wg sync.WaitGroup
		errs := make(chan error, *benchClients)
		for c := range *benchClients {
			wg.Go(func() {
				if err := qs[c%len(qs)].ask(ctx, h); err != nil {
					errs <- fmt.Errorf("%s: %w", qs[c%len(qs)].name, err)
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			b.Fatal(err)
		}
	}
	close(stop)
	<-sampled
	var end runtime.MemStats
	runtime.ReadMemStats(&end)
	const mib = 1 << 20
	b.ReportMetric(float64(peak)/mib, "peak-heap-inuse-MiB")
	b.ReportMetric(float64(base.HeapInuse)/mib, "idle-heap-inuse-MiB")
	b.ReportMetric(float64(peakLive)/mib, "peak-live-heap-MiB")
	b.ReportMetric(float64(end.TotalAlloc-base.TotalAlloc)/float64(b.N)/mib, "alloc-MiB/round")
	if peak > 128*mib {
		b.Errorf("peak heap in use %.0f MiB, over the 128 MiB bound", float64(peak)/mib)
	}
}
