package postgres_test

import (
	"context"
	"testing"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/sink/sinktest"
)

// TestAStreamedFullWriteHoldsAChunkNotTheInventory full-writes snapshots of
// n and 4n rows streamed from a real bus, into an empty scope and then over
// the smaller one (staging and merge): the heap the write needs must not
// grow with the inventory (KOLLECT_STREAM_ROWS=250000 runs it at a million
// rows).
func TestAStreamedFullWriteHoldsAChunkNotTheInventory(t *testing.T) {
	dsn := newDatabase(t)
	k := open(t, dsn, spec("public", "inventory", v1alpha1.ProvisionEnsure))
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
