package postgres_test

import (
	"context"
	"testing"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/sink/sinktest"
	"kollect.dev/kollect/services/databaseexporter/internal/postgres"
)

// TestAStreamedFullWriteHoldsAChunkNotTheInventory full-writes snapshots of
// n and 4n rows streamed from a real bus, into an empty scope and then over
// the smaller one (staging and merge): the heap the write needs must not
// grow with the inventory (KOLLECT_STREAM_ROWS=250000 runs it at a million
// rows). The key-order buffer of a write into an empty scope is set to
// 1 MiB, so that both sizes go through staging: below the buffer's size
// (32 MiB of rows by default) a write holds the rows it buffers.
func TestAStreamedFullWriteHoldsAChunkNotTheInventory(t *testing.T) {
	dsn := newDatabase(t)
	k := open(t, dsn, spec("public", "inventory", v1alpha1.ProvisionEnsure))
	postgres.WithStreamBuffer(k, 1<<20)
	conn := connect(t, dsn)
	sinktest.StreamedWriteHeap(t, web, 64<<20, func(s sink.Snapshot) error {
		return k.Write(context.Background(), s)
	}, func(s sink.Snapshot) {
		var held int
		if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM inventory`).Scan(&held); err != nil {
			t.Fatal(err)
		}
		if held != s.Envelope.ItemCount {
			t.Fatalf("the table holds %d rows, want %d", held, s.Envelope.ItemCount)
		}
		if reason := drift(t, k, s); reason != "" {
			t.Errorf("drift after the write: %s", reason)
		}
	})
}

// TestAStreamedSnapshotWithARepeatedKeyIsAPermanentError writes, streamed,
// two rows of one key (target and uid) into an empty scope, from the
// key-order buffer and through staging: nothing is written either way.
func TestAStreamedSnapshotWithARepeatedKeyIsAPermanentError(t *testing.T) {
	for _, c := range []struct {
		name   string
		buffer int
	}{{"buffered in key order", 0}, {"through staging", 1}} {
		t.Run(c.name, func(t *testing.T) {
			dsn := newDatabase(t)
			k := open(t, dsn, spec("public", "inventory", v1alpha1.ProvisionEnsure))
			postgres.WithStreamBuffer(k, c.buffer)
			a, b := row("u1", 1), row("u1", 2)
			b.Name = "pod-other"
			err := k.Write(context.Background(), sinktest.Streamed(snap(t, "default", web, 1, a, b, row("u2", 3))))
			if !sink.IsPermanent(err) {
				t.Fatalf("write: %v, want a permanent error", err)
			}
			if got := newReader(t, dsn, k).read(t, "default", web); len(got.Rows) != 0 {
				t.Errorf("the table holds %d rows", len(got.Rows))
			}
		})
	}
}
