package git

import (
	"testing"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/testenv"
)

// BenchmarkExportPerResource exports 10,000 rows, one YAML file each, to
// git http-backend: the first export of the tree, then exports that change
// one row.
func BenchmarkExportPerResource(b *testing.B) {
	const n = 10000
	p := startPeer(b, testenv.GitOptions{})
	spec := func(url string) v1alpha1.KollectSnapshotSinkSpec {
		s := p.spec(url)
		s.Layout = &v1alpha1.GitLayout{Mode: "perResource"}
		return s
	}
	b.Run("first export", func(b *testing.B) {
		rows := pods("team-a", n, 0)
		commits := 0
		for b.Loop() {
			b.StopTimer()
			name, url := p.newRepo(b)
			s := newSink(b, &Backend{Egress: allowLoopback}, spec(url), p.creds)
			b.StartTimer()
			write(b, s, snap(b, "team-a", 1, rows...))
			b.StopTimer()
			commits += len(p.commits(b, name))
			b.StartTimer()
		}
		b.ReportMetric(float64(commits)/float64(b.N), "commits/op")
		b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "rows/s")
	})
	b.Run("one-row change", func(b *testing.B) {
		name, url := p.newRepo(b)
		s := newSink(b, &Backend{Egress: allowLoopback}, spec(url), p.creds)
		rows := pods("team-a", n, 0)
		write(b, s, snap(b, "team-a", 1, rows...))
		before := len(p.commits(b, name))
		rev := uint64(1)
		for b.Loop() {
			rev++
			rows[int(rev)%n] = pod("team-a", rows[int(rev)%n].Name, int(rev))
			write(b, s, snap(b, "team-a", rev, rows...))
		}
		b.ReportMetric(float64(len(p.commits(b, name))-before)/float64(b.N), "commits/op")
	})
}
