package postgres_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"testing"
	"time"

	"kollect.dev/kollect/pkg/snapshot"

	"kollect.dev/kollect/pkg/sink/sinktest"

	"github.com/jackc/pgx/v5"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/services/databaseexporter/internal/postgres"
)

const benchRows = 100_000

// benchItems returns n rows in canonical order with attributes of a typical
// Deployment profile.
func benchItems(n int) []busv1.Row {
	rows := make([]busv1.Row, n)
	for i := range rows {
		ns := fmt.Sprintf("team-%03d", i%100)
		rows[i] = busv1.Row{TargetNamespace: "platform", TargetName: "deployments", Namespace: ns,
			Name: fmt.Sprintf("app-%06d", i), UID: fmt.Sprintf("8c5e1f7a-0000-4000-8000-%012d", i),
			Group: "apps", Version: "v1", Kind: "Deployment", Attributes: map[string]any{
				"image":    fmt.Sprintf("registry.example.com/%s/app:v1.%d.0", ns, i%20),
				"replicas": float64(i % 5),
				"labels":   map[string]any{"app": "web", "team": ns, "tier": "frontend"},
				"ready":    true,
			}}
	}
	return rows
}

// benchSnap is a snapshot of items at revision; the checksum is a stand-in
// (the sink compares it, never recomputes it).
func benchSnap(revision uint64, items []busv1.Row) sink.Snapshot {
	return sink.Snapshot{Envelope: busv1.Envelope{SchemaVersion: "kollect.dev/v1alpha1", Checksum: fmt.Sprintf("checksum-%d", revision),
		Revision: revision, Generation: 1, Cluster: "bench", Inventory: web, ItemCount: len(items),
		ExportedAt: time.Now().UTC(), Items: items}}
}

// benchSink opens a sink on a new database with a meter of its CPU as the
// sink's tracer; the meter measures between its start and stop.
func benchSink(b *testing.B) (*postgres.Sink, *cpuMeter, *pgx.Conn) {
	dsn := newDatabase(b)
	c := connect(b, dsn)
	m := &cpuMeter{conn: c}
	k, err := openWith(postgres.Backend{Egress: egress.Policy{AllowPrivate: true}, Tracer: m}, dsn,
		spec("public", "inventory", v1alpha1.ProvisionEnsure))
	if err != nil {
		b.Fatalf("open sink: %v", err)
	}
	b.Cleanup(func() { _ = k.Close(context.Background()) })
	return k, m, c
}

func BenchmarkFullExportIntoEmptyTable(b *testing.B) {
	k, m, c := benchSink(b)
	items := benchItems(benchRows)
	write(b, k, benchSnap(1, items[:1])) // provision outside the measurement
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		exec(b, c, `TRUNCATE inventory, inventory_state`)
		b.StartTimer()
		m.start(b)
		write(b, k, benchSnap(uint64(i+2), items))
		m.stop(b)
	}
	b.ReportMetric(float64(benchRows*b.N)/b.Elapsed().Seconds(), "rows/s")
	m.report(b, benchRows)
}

// BenchmarkStreamedFullExportIntoEmptyTable is the full write the runtime
// makes: header-only, the rows streamed as canonical JSON (as from the
// bus's chunks; here encoded beforehand, so that the client CPU measured is
// the sink's).
func BenchmarkStreamedFullExportIntoEmptyTable(b *testing.B) {
	k, m, c := benchSink(b)
	items := benchItems(benchRows)
	write(b, k, benchSnap(1, items[:1]))
	raws := make([]json.RawMessage, len(items))
	for i := range items {
		raw, err := snapshot.Canonical(&items[i])
		if err != nil {
			b.Fatal(err)
		}
		raws[i] = raw
	}
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		exec(b, c, `TRUNCATE inventory, inventory_state`)
		b.StartTimer()
		m.start(b)
		s := sinktest.Streamed(benchSnap(uint64(i+2), items))
		s.Stream = func(context.Context) iter.Seq2[json.RawMessage, error] {
			return func(yield func(json.RawMessage, error) bool) {
				for _, r := range raws {
					if !yield(r, nil) {
						return
					}
				}
			}
		}
		write(b, k, s)
		m.stop(b)
	}
	b.ReportMetric(float64(benchRows*b.N)/b.Elapsed().Seconds(), "rows/s")
	m.report(b, benchRows)
}

func BenchmarkFullReExportWithOneChangedRow(b *testing.B) {
	k, m, _ := benchSink(b)
	items := benchItems(benchRows)
	write(b, k, benchSnap(1, items))
	b.ResetTimer()
	for i := range b.N {
		items[i%benchRows].Attributes["replicas"] = float64(100 + i)
		m.start(b)
		write(b, k, benchSnap(uint64(i+2), items))
		m.stop(b)
	}
	b.ReportMetric(float64(benchRows*b.N)/b.Elapsed().Seconds(), "rows/s")
	m.report(b, benchRows)
}

func BenchmarkOneRowDeltaAt100kRows(b *testing.B) {
	k, m, _ := benchSink(b)
	items := benchItems(benchRows)
	write(b, k, benchSnap(1, items))
	b.ResetTimer()
	for i := range b.N {
		m.start(b)
		rev := uint64(i + 2)
		items[i%benchRows].Attributes["replicas"] = float64(100 + i)
		s := benchSnap(rev, items)
		s.Delta = &busv1.Delta{BaseRevision: rev - 1, BaseChecksum: fmt.Sprintf("checksum-%d", rev-1), Upserts: []busv1.Row{items[i%benchRows]}}
		if err := k.WriteDelta(context.Background(), s); err != nil {
			b.Fatalf("write delta: %v", err)
		}
		m.stop(b)
	}
	m.report(b, 0)
}
