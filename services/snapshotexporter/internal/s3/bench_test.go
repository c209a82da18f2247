package s3

import (
	"context"
	"fmt"
	"testing"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/snapshot"
)

// benchRows returns n rows with a string and an integer hot attribute
// among others.
func benchRows(n int) []busv1.Row {
	rows := make([]busv1.Row, n)
	for i := range rows {
		rows[i] = busv1.Row{TargetNamespace: "team-a", TargetName: "pods", Namespace: fmt.Sprintf("ns-%03d", i%100),
			Name: fmt.Sprintf("pod-%05d", i), UID: fmt.Sprintf("0f8e%04x-1c2d-4e5f-8a9b-%012x", i%65536, i),
			Version: "v1", Kind: "Pod", Attributes: map[string]any{
				"image": fmt.Sprintf("registry.example.com/app-%d:1.%d", i%40, i%7), "restarts": float64(i % 13),
				"node": fmt.Sprintf("node-%02d", i%30), "labels": map[string]any{"app": fmt.Sprintf("app-%d", i%40)}}}
	}
	return rows
}

func BenchmarkWrite10k(b *testing.B) {
	p := startPeer(b)
	rows := benchRows(10_000)
	for _, format := range []string{"parquet", "json"} {
		b.Run(format, func(b *testing.B) {
			bucket := newBucketName()
			spec := p.spec(bucket, "bench", format, "none")
			if format == "parquet" {
				spec.ObjectStore = &v1alpha1.ObjectStoreSink{HotAttributes: []string{"image", "restarts"}}
			}
			s := p.newSink(b, spec)
			env, err := snapshot.Envelope(busv1.NamespacedName{Namespace: "team-a", Name: "pods"}, 1, 1, rows)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				env.Revision = uint64(i + 1)
				if err := s.Write(context.Background(), sink.Snapshot{Envelope: env.Stamp("bench", time.Now())}); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(len(rows)*b.N)/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(float64(objectSize(b, p, bucket, "bench/")), "object-bytes")
		})
	}
}

// objectSize returns the size of the largest object under prefix.
func objectSize(b *testing.B, p *peer, bucket, prefix string) int64 {
	var size int64
	for _, key := range p.list(b, bucket, prefix) {
		if n := *p.head(b, bucket, key).ContentLength; n > size {
			size = n
		}
	}
	return size
}
