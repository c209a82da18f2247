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

// BenchmarkRendererOneRowChange renders 10,000 rows perResource yaml with
// a Renderer, one row changed per render.
func BenchmarkRendererOneRowChange(b *testing.B) {
	rows := make([]busv1.Row, 10000)
	for i := range rows {
		rows[i] = busv1.Row{TargetNamespace: "team-a", TargetName: "pods", Namespace: "ns", Name: fmt.Sprintf("pod-%05d", i),
			UID: fmt.Sprintf("uid-%05d", i), Version: "v1", Kind: "Pod", Attributes: map[string]any{"replicas": float64(0)}}
	}
	var r tree.Renderer
	s := tree.Spec{Mode: tree.ModePerResource}
	if _, err := r.Render(s, fixture(b, rows)); err != nil {
		b.Fatal(err)
	}
	n := 0
	for b.Loop() {
		n++
		rows[n%len(rows)].Attributes = map[string]any{"replicas": float64(n)}
		if _, err := r.Render(s, fixture(b, rows)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(rows))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
