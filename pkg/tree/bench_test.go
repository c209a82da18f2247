package tree_test

import (
	"fmt"
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/tree"
)

// BenchmarkRenderPerResource renders 10,000 rows, one file each.
func BenchmarkRenderPerResource(b *testing.B) {
	rows := make([]busv1.Row, 10000)
	for i := range rows {
		rows[i] = busv1.Row{TargetNamespace: "team-a", TargetName: "pods", Namespace: fmt.Sprintf("ns-%d", i%50),
			Name: fmt.Sprintf("pod-%05d", i), UID: fmt.Sprintf("uid-%05d", i), Version: "v1", Kind: "Pod",
			Attributes: map[string]any{"image": "nginx:1.27", "labels": map[string]any{"app": "web"}, "replicas": float64(i % 7)}}
	}
	env := fixture(b, rows)
	for _, format := range []string{tree.FormatYAML, tree.FormatJSON} {
		b.Run(format, func(b *testing.B) {
			s := tree.Spec{Mode: tree.ModePerResource, Format: format}
			for b.Loop() {
				if _, err := tree.Render(s, env); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(rows))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// BenchmarkIndexOneRowDelta plans and commits one-row deltas on the
// Index of an inventory of rows perResource yaml: the work of a delta must not
// grow with the inventory.
func BenchmarkIndexOneRowDelta(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		b.Run(fmt.Sprintf("rows=%d", n), func(b *testing.B) { benchmarkIndexDelta(b, n) })
	}
}

func benchmarkIndexDelta(b *testing.B, n int) {
	rows := make([]busv1.Row, n)
	for i := range rows {
		rows[i] = busv1.Row{TargetNamespace: "team-a", TargetName: "pods", Namespace: fmt.Sprintf("ns-%04d", i/100),
			Name: fmt.Sprintf("pod-%05d", i), UID: fmt.Sprintf("uid-%05d", i), Version: "v1", Kind: "Pod",
			Attributes: map[string]any{"replicas": float64(0)}}
	}
	env := fixture(b, rows)
	ix, _, err := tree.NewIndex(tree.Spec{Mode: tree.ModePerResource}, env, 0)
	if err != nil {
		b.Fatal(err)
	}
	head := env
	head.Items = nil
	for b.Loop() {
		next := head
		next.Revision, next.Checksum = head.Revision+1, fmt.Sprint(head.Revision+1)
		row := rows[int(next.Revision)%len(rows)]
		row.Attributes = map[string]any{"replicas": float64(next.Revision)}
		u, ok, err := ix.Plan(next, &busv1.Delta{BaseRevision: head.Revision, BaseChecksum: head.Checksum, Upserts: []busv1.Row{row}})
		if err != nil || !ok {
			b.Fatalf("plan: %v %v", ok, err)
		}
		if _, err := ix.Commit(u); err != nil {
			b.Fatal(err)
		}
		head = next
	}
}
