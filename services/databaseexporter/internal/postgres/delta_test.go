package postgres_test

import (
	"context"
	"fmt"
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/sink"
)

func TestDeltas(t *testing.T) {
	many := func(prefix string, n int, v float64) []busv1.Row {
		rows := make([]busv1.Row, n)
		for i := range rows {
			rows[i] = row(fmt.Sprintf("%s-%05d", prefix, i), v)
		}
		return rows
	}
	keys := func(rows []busv1.Row) []busv1.RowKey {
		out := make([]busv1.RowKey, len(rows))
		for i, r := range rows {
			out[i] = r.Key()
		}
		return out
	}
	for _, c := range []struct {
		name  string
		base  []busv1.Row
		next  []busv1.Row
		delta func(base sink.Snapshot) *busv1.Delta
		loads int // Load calls expected: the full snapshot only when the delta does not apply
	}{
		{"a delta on a base the table does not hold writes the full snapshot",
			[]busv1.Row{row("a", 1), row("b", 1)}, []busv1.Row{row("a", 2), row("c", 2)},
			func(base sink.Snapshot) *busv1.Delta {
				// Claims another base, and alone would leave b behind.
				return &busv1.Delta{BaseRevision: 7, BaseChecksum: "other", Upserts: []busv1.Row{row("c", 2)}}
			}, 1},
		{"a delta whose base checksum differs writes the full snapshot",
			[]busv1.Row{row("a", 1), row("b", 1)}, []busv1.Row{row("a", 2)},
			func(base sink.Snapshot) *busv1.Delta {
				return &busv1.Delta{BaseRevision: 1, BaseChecksum: "other", Upserts: []busv1.Row{row("a", 2)}}
			}, 1},
		{"a large delta is copied and its deletes joined",
			append(many("keep", 10, 1), many("gone", 1200, 1)...), append(many("keep", 10, 1), many("new", 1500, 2)...),
			func(base sink.Snapshot) *busv1.Delta {
				return &busv1.Delta{BaseRevision: 1, BaseChecksum: base.Envelope.Checksum, Upserts: many("new", 1500, 2), Deletes: keys(many("gone", 1200, 1))}
			}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			dsn := newDatabase(t)
			k := open(t, dsn, spec("public", "inventory", v1alpha1.ProvisionEnsure))
			base := snap(t, "c", web, 1, c.base...)
			write(t, k, base)
			next := snap(t, "c", web, 2, c.next...)
			next.Delta = c.delta(base)
			// As the runtime hands it over: the header, items on demand.
			header, loads := next, 0
			header.Envelope.Items = nil
			header.Load = func(context.Context) (busv1.Envelope, error) { loads++; return next.Envelope, nil }
			if err := k.WriteDelta(context.Background(), header); err != nil {
				t.Fatalf("write delta: %v", err)
			}
			r := newReader(t, dsn, k)
			if d := diff(want(next), r.read(t, "c", web)); d != "" {
				t.Fatalf("projection (-want +got):\n%s", d)
			}
			if got := drift(t, k, next); got != "" {
				t.Fatalf("drift %q after the write, want none: the rows hash was not kept", got)
			}
			if loads != c.loads {
				t.Fatalf("the snapshot was loaded %d times, want %d", loads, c.loads)
			}
			var count int
			if err := r.conn.QueryRow(context.Background(), `SELECT item_count FROM `+k.StateTable()+` WHERE cluster = 'c'`).Scan(&count); err != nil {
				t.Fatal(err)
			}
			if count != len(c.next) {
				t.Fatalf("state item_count %d, want %d", count, len(c.next))
			}
		})
	}
}
