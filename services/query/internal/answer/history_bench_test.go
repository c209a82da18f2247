package answer_test

import (
	"context"
	"flag"
	"fmt"
	"testing"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/query/internal/answer"
	"kollect.dev/kollect/services/query/querytest"
)

var (
	benchRevisions = flag.Int("history.revisions", 1000, "revisions BenchmarkHistory publishes")
	benchRows      = flag.Int("history.rows", 10000, "rows of the inventory BenchmarkHistory publishes")
)

func benchRow(i, version int) busv1.Row {
	return busv1.Row{TargetNamespace: "team-a", TargetName: "workloads", Namespace: "team-a", Name: fmt.Sprintf("app-%05d", i),
		UID: fmt.Sprintf("uid-%05d", i), Group: "apps", Version: "v1", Kind: "Deployment",
		Attributes: map[string]any{"image": fmt.Sprintf("registry.example.com/app-%05d:%d", i, version), "replicas": float64(2)}}
}

// BenchmarkHistory publishes -history.revisions revisions of a
// -history.rows-row inventory, each changing one row, the way the
// aggregator stores them (chunks, manifests, deltas), and reports the bus
// storage they use (stream-bytes, object-bytes, both per revision) and
// the latency of the questions the history API answers: diff between the
// first and the last revision, the rows at a time (--at), the revision
// list with its change counts, and one object's timeline.
func BenchmarkHistory(b *testing.B) {
	ctx := context.Background()
	n := testenv.StartNATS(b)
	opts := bus.DefaultOptions()
	opts.SnapshotHistory, opts.SnapshotMaxAge = int64(*benchRevisions)+1, 0
	if err := bus.Provision(ctx, n.JS, opts); err != nil {
		b.Fatal(err)
	}
	inv := busv1.NamespacedName{Namespace: "team-a", Name: "workloads"}
	p, err := querytest.NewPublisher(ctx, n.JS, inv)
	if err != nil {
		b.Fatal(err)
	}
	rows := make([]busv1.Row, *benchRows)
	for i := range rows {
		rows[i] = benchRow(i, 0)
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for r := 0; r < *benchRevisions; r++ {
		if r > 0 {
			i := (r * 7919) % len(rows) // one row changes, spread over the inventory
			rows[i] = benchRow(i, r)
		}
		if _, err := p.Publish(ctx, rows, start.Add(time.Duration(r)*time.Hour)); err != nil {
			b.Fatal(err)
		}
	}
	stream, objects, err := querytest.StorageBytes(ctx, n.JS)
	if err != nil {
		b.Fatal(err)
	}
	h := answer.NewReader(n.JS, 0)
	revs, err := h.Revisions(ctx, inv)
	if err != nil {
		b.Fatal(err)
	}
	if len(revs) != *benchRevisions {
		b.Fatalf("%d revisions kept, published %d", len(revs), *benchRevisions)
	}
	report := func(b *testing.B) {
		b.ReportMetric(float64(stream), "stream-bytes")
		b.ReportMetric(float64(objects), "object-bytes")
		b.ReportMetric(float64(stream+objects)/float64(len(revs)), "bytes/revision")
	}
	b.Run("diff", func(b *testing.B) {
		defer report(b) // after the loop: b.Loop's timer reset drops metrics reported before
		for b.Loop() {
			h := answer.NewReader(n.JS, 0) // a cold cache: what one request costs
			revs, err := h.Revisions(ctx, inv)
			if err != nil {
				b.Fatal(err)
			}
			before, err := h.Rows(ctx, revs[0].Event)
			if err != nil {
				b.Fatal(err)
			}
			after, err := h.Rows(ctx, revs[len(revs)-1].Event)
			if err != nil {
				b.Fatal(err)
			}
			if changes := answer.Compare(before, after); len(changes) == 0 && len(revs) > 1 {
				b.Fatal("no changes between the first and the last revision")
			}
		}
	})
	b.Run("at", func(b *testing.B) {
		defer report(b)
		at := start.Add(time.Duration(len(revs)/2)*time.Hour + time.Minute)
		for b.Loop() {
			h := answer.NewReader(n.JS, 0)
			revs, err := h.Revisions(ctx, inv)
			if err != nil {
				b.Fatal(err)
			}
			i, err := answer.Select(revs, answer.Selector{At: at})
			if err != nil {
				b.Fatal(err)
			}
			if rows, err := h.Rows(ctx, revs[i].Event); err != nil || len(rows) != *benchRows {
				b.Fatalf("%d rows, %v", len(rows), err)
			}
		}
	})
	b.Run("revisions", func(b *testing.B) {
		for b.Loop() {
			h := answer.NewReader(n.JS, 0)
			revs, err := h.Revisions(ctx, inv)
			if err != nil {
				b.Fatal(err)
			}
			for i := range revs {
				if err := h.Count(ctx, revs, i); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("timeline", func(b *testing.B) {
		o := answer.Object{Kind: "Deployment", Namespace: "team-a", Name: benchRow(7919%len(rows), 0).Name}
		for b.Loop() {
			h := answer.NewReader(n.JS, 0)
			revs, err := h.Revisions(ctx, inv)
			if err != nil {
				b.Fatal(err)
			}
			if _, _, err := h.Timeline(ctx, revs, 0, o, 0); err != nil {
				b.Fatal(err)
			}
		}
	})
}
