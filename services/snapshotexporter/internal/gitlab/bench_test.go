package gitlab

import (
	"fmt"
	"testing"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/testenv"
)

// BenchmarkWrite measures exports to the fake GitLab: every changed
// iteration rewrites every row in one commit; the unchanged one re-exports
// the same content (the periodic re-export: reads only, no commit).
func BenchmarkWrite(b *testing.B) {
	for _, bc := range []struct {
		layout    string
		rows      int
		unchanged bool
	}{
		{"document", 1000, false},
		{"perResource", 200, false},
		{"perResource", 200, true},
	} {
		b.Run(fmt.Sprintf("%s/%d rows/unchanged=%v", bc.layout, bc.rows, bc.unchanged), func(b *testing.B) {
			p := startPeer(b, testenv.GitLabOptions{})
			spec := p.spec(p.newProject(b))
			spec.Layout = &v1alpha1.GitLayout{Mode: bc.layout}
			s := newSink(b, Backend{Egress: allowLoopback}, spec, p.creds)
			write(b, s, snap(b, 1, pods("team-a", bc.rows, 0)...))
			b.ResetTimer()
			for i := range b.N {
				v := i + 1
				if bc.unchanged {
					v = 0
				}
				write(b, s, snap(b, uint64(i+2), pods("team-a", bc.rows, v)...))
			}
			b.ReportMetric(float64(bc.rows*b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
