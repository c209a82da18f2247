package index

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/snapshot"
)

// benchRow is a row shaped like the load test's Deployments (~350 bytes).
func benchRow(b *testing.B, i, v int) *Row {
	r := busv1.Row{TargetNamespace: "load", TargetName: "deployments", Namespace: fmt.Sprintf("load-%04d", i%1000),
		Name: fmt.Sprintf("app-%06d", i), UID: fmt.Sprintf("8d7c6b5a-%04x-4e3f-9a1b-%012x", i%65536, i),
		Group: "apps", Version: "v1", Kind: "Deployment",
		Attributes: map[string]any{"seq": fmt.Sprint(v), "images": []any{fmt.Sprintf("registry.example.com/team/app-%d:1.%d", i, v)},
			"replicas": 3, "team": fmt.Sprintf("team-%d", i%20), "owner": "platform@example.com"}}
	raw, err := snapshot.Canonical(&r)
	if err != nil {
		b.Fatal(err)
	}
	row, err := FromRaw(raw)
	if err != nil {
		b.Fatal(err)
	}
	return row
}

// BenchmarkView100kRows reports the live heap per row of the rows and one
// inventory's view at 100,000 rows, and the CPU of one row change applied,
// cut and checksummed with its delta (ns/op).
func BenchmarkView100kRows(b *testing.B) {
	const n = 100_000
	inv := &busv1.InventoryConfig{Kind: busv1.KindInventory, Namespace: "load", Name: "all"}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	rows := NewRows()
	for i := range n {
		rows.Put(benchRow(b, i, 0))
	}
	v := NewView(inv, rows)
	stored := func(context.Context, busv1.Chunk, []byte) error { return nil }
	if err := v.Store(context.Background(), stored); err != nil { // as the engine does: chunk bytes leave memory
		b.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	changes := make([]*Row, b.N)
	for i := range changes {
		changes[i] = benchRow(b, (i*7919)%n, i+1)
	}
	b.ResetTimer()
	for _, next := range changes {
		old, _ := rows.Put(next)
		v.Apply(old, next)
		v.Checksum()
		v.Changes()
		if err := v.Store(context.Background(), stored); err != nil {
			b.Fatal(err)
		}
		v.Published()
	}
	b.StopTimer()
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "heapB/row")
	runtime.KeepAlive(v)
}
