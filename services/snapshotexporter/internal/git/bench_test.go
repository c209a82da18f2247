package git

import (
	"context"
	"fmt"
	"slices"
	"syscall"
	"testing"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/testenv"
)

// cpu is the CPU time of this process and of the children it waited for:
// the test server's git processes, the maintenance they run included
// (gc.autoDetach is off in the benchmark's repositories).
type cpu struct{ self, children time.Duration }

func readCPU(b *testing.B) cpu {
	b.Helper()
	var self, children syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &self); err != nil {
		b.Fatal(err)
	}
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children); err != nil {
		b.Fatal(err)
	}
	d := func(r syscall.Rusage) time.Duration {
		return time.Duration(r.Utime.Nano() + r.Stime.Nano())
	}
	return cpu{self: d(self), children: d(children)}
}

// report adds the client's and the Git server's CPU per operation.
func (c cpu) report(b *testing.B, since cpu) {
	n := float64(b.N)
	b.ReportMetric(float64((c.self-since.self).Milliseconds())/n, "client-cpu-ms/op")
	b.ReportMetric(float64((c.children-since.children).Milliseconds())/n, "server-cpu-ms/op")
}

// BenchmarkExportPerResource exports rows, one YAML file each, to git
// http-backend: the first export of the tree, then deltas that change one
// row (a full snapshot write when the delta cannot be used is a failure).
// The server's CPU, with the automatic maintenance its pushes trigger,
// is reported next to the client's: run enough iterations
// (-benchtime=1000x) for gc --auto to run.
func BenchmarkExportPerResource(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		b.Run(fmt.Sprintf("rows=%d", n), func(b *testing.B) { benchmarkExport(b, n) })
	}
}

func benchmarkExport(b *testing.B, n int) {
	p := startPeer(b, testenv.GitOptions{})
	repo := func(b *testing.B) (string, string) {
		name, url := p.newRepo(b)
		p.g.Run(b, name, "config", "gc.autoDetach", "false")
		return name, url
	}
	// 100 objects a namespace, as in the load test: a commit rewrites the
	// trees of one namespace's folder, not one folder of every file.
	rows := spread(n, 0)
	first := snap(b, "team-a", 1, rows...)
	b.Run("first export", func(b *testing.B) {
		commits := 0
		start := readCPU(b)
		for b.Loop() {
			b.StopTimer()
			name, url := repo(b)
			s := newSink(b, &Backend{Egress: allowLoopback}, perResource(p, url), p.creds)
			b.StartTimer()
			write(b, s, first)
			b.StopTimer()
			commits += len(p.commits(b, name))
			b.StartTimer()
		}
		readCPU(b).report(b, start)
		b.ReportMetric(float64(commits)/float64(b.N), "commits/op")
		b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "rows/s")
	})
	b.Run("one-row delta", func(b *testing.B) { benchmarkDelta(b, p, repo, rows, first, 1) })
	// The initial sync's shape: a delta of rows spread over every
	// namespace folder.
	b.Run("2000-row delta", func(b *testing.B) { benchmarkDelta(b, p, repo, rows, first, 2000) })
}

func benchmarkDelta(b *testing.B, p *peer, repo func(*testing.B) (string, string), rows []busv1.Row, first sink.Snapshot, k int) {
	n := len(rows)
	{
		name, url := repo(b)
		s := newSink(b, &Backend{Egress: allowLoopback}, perResource(p, url), p.creds)
		write(b, s, first)
		before := len(p.commits(b, name))
		head := first.Envelope
		head.Items = nil
		fail := func(context.Context) (busv1.Envelope, error) {
			b.Fatal("the delta loaded the full snapshot")
			return busv1.Envelope{}, nil
		}
		start := readCPU(b)
		for b.Loop() {
			next := head
			next.Revision, next.Checksum = head.Revision+1, fmt.Sprintf("sum-%d", head.Revision+1)
			d := &busv1.Delta{BaseRevision: head.Revision, BaseChecksum: head.Checksum}
			for i := range k {
				row := rows[(int(next.Revision)+i*(n/k))%n]
				row.Attributes = map[string]any{"v": float64(next.Revision)}
				d.Upserts = append(d.Upserts, row)
			}
			slices.SortFunc(d.Upserts, busv1.CompareRows)
			if err := s.WriteDelta(context.Background(), sink.Snapshot{Envelope: next, Delta: d, Load: fail}); err != nil {
				b.Fatal(err)
			}
			head = next
		}
		readCPU(b).report(b, start)
		b.ReportMetric(float64(len(p.commits(b, name))-before)/float64(b.N), "commits/op")
	}
}

// spread returns n Pod rows of Target team-a/pods, 100 in each namespace.
func spread(n, v int) []busv1.Row {
	rows := pods("team-a", n, v)
	for i := range rows {
		rows[i].Namespace = fmt.Sprintf("ns-%04d", i/100)
	}
	return rows
}
