package objectstore_test

import (
	"fmt"
	"testing"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/snapshot"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore"
)

// benchEnvelope is a stamped snapshot of n pods with a string, an integer,
// a float and a boolean attribute, and a map.
func benchEnvelope(b *testing.B, n int) busv1.Envelope {
	rows := make([]busv1.Row, n)
	for i := range rows {
		rows[i] = busv1.Row{TargetNamespace: "team-a", TargetName: "pods", Namespace: fmt.Sprintf("ns-%03d", i%100),
			Name: fmt.Sprintf("pod-%05d", i), UID: fmt.Sprintf("0f8e%04x-1c2d-4e5f-8a9b-%012x", i%65536, i),
			Version: "v1", Kind: "Pod", Attributes: map[string]any{
				"image": fmt.Sprintf("registry.example.com/app-%d:1.%d", i%40, i%7), "restarts": float64(i % 13),
				"cpu": float64(i%8) / 4, "ready": i%5 != 0,
				"labels": map[string]any{"app": fmt.Sprintf("app-%d", i%40)}}}
	}
	env, err := snapshot.Envelope(busv1.NamespacedName{Namespace: "team-a", Name: "pods"}, 1, 1, rows)
	if err != nil {
		b.Fatal(err)
	}
	return env.Stamp("bench", time.Date(2026, 12, 7, 21, 0, 0, 0, time.UTC))
}

// BenchmarkEncodeParquet10k encodes a 10k-row snapshot with four hot
// attributes, their column types inferred from the values or given by
// their declared Profile types.
func BenchmarkEncodeParquet10k(b *testing.B) {
	l := objectstore.Layout{Format: "parquet", HotAttributes: []string{"image", "restarts", "cpu", "ready"}}
	for _, declared := range []bool{false, true} {
		name := "inferred"
		env := benchEnvelope(b, 10_000)
		if declared {
			name = "declared"
			env.AttributeTypes = busv1.AttributeTypes{"image": "string", "restarts": "int", "cpu": "float", "ready": "bool"}
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var size int
			for b.Loop() {
				obj, err := l.Encode(&env, nil)
				if err != nil {
					b.Fatal(err)
				}
				size = len(obj.Body)
			}
			b.ReportMetric(float64(size), "object-bytes")
		})
	}
}
