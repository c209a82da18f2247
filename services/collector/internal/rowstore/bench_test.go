package rowstore

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/testenv"
)

// benchRows is how many rows BenchmarkPut writes per iteration: the initial
// sync of the 100k load test.
const benchRows = 100_000

// loadRow is the row of load object i as the load test's Deployment
// Profile extracts it (loadtest/resources.go).
func loadRow(iteration, i int) busv1.Row {
	images := []any{fmt.Sprintf("registry.example.com/team-%02d/svc-%04d:1.%d.%d", i%23, i/4, i%9, i%13)}
	if i%3 == 0 {
		images = append(images, "envoyproxy/envoy:v1.30.1")
	}
	return busv1.Row{TargetNamespace: "kollect-load", TargetName: "deployments",
		Namespace: fmt.Sprintf("load-%04d", i/100), Name: fmt.Sprintf("app-%06d", i),
		UID: fmt.Sprintf("%08x-0000-4000-8000-%012x", iteration, i), Group: "apps", Version: "v1", Kind: "Deployment",
		Attributes: map[string]any{"seq": "0", "images": images, "replicas": int64(1 + i%3),
			"team": fmt.Sprintf("team-%02d", i%23), "owner": fmt.Sprintf("owner-%03d@example.com", i%211)}}
}

// BenchmarkPut measures the collector's side of an initial sync: 100k new
// rows put by four workers (the default) through the default window, until
// the bus acknowledged every one. Run it with -benchtime 1x.
func BenchmarkPut(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := testenv.StartNATS(b)
	if err := bus.Provision(ctx, n.JS, bus.DefaultOptions()); err != nil {
		b.Fatal(err)
	}
	kv, err := n.JS.KeyValue(ctx, bus.BucketRows)
	if err != nil {
		b.Fatal(err)
	}
	pub, err := NewPublisher(n.Conn, DefaultWindow, DefaultAckTimeout)
	if err != nil {
		b.Fatal(err)
	}
	s, err := Open(ctx, kv, pub, Options{All: true})
	if err != nil {
		b.Fatal(err)
	}
	var total time.Duration
	iteration := 0
	for b.Loop() {
		start := time.Now()
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Go(func() {
				for i := w; i < benchRows; i += 4 {
					if _, err := s.Put(ctx, loadRow(iteration, i), 1, nil); err != nil {
						b.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		if err := s.Flush(ctx); err != nil {
			b.Fatal(err)
		}
		total += time.Since(start)
		iteration++
	}
	if got := s.Len(); got != benchRows*iteration {
		b.Fatalf("%d rows, want %d", got, benchRows*iteration)
	}
	b.ReportMetric(float64(benchRows*iteration)/total.Seconds(), "rows/s")
	b.ReportMetric(total.Seconds()/float64(iteration), "s/100k-rows")
}
