package mongodb

import (
	"context"
	"os"
	"testing"

	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/sink/sinktest"
	"kollect.dev/kollect/pkg/testenv"
)

// TestAStreamedFullWriteInsertsInBatches full-writes snapshots of 12,500
// and 50,000 rows streamed from a real bus (FerretDB is slow; more with
// KOLLECT_STREAM_ROWS), the second over the first (every row changed):
// documents are inserted and replaced a batch at a time, so the heap the
// write needs grows only by the stored documents' _ids and hashes (about
// 100 bytes a row), not by the rows.
func TestAStreamedFullWriteInsertsInBatches(t *testing.T) {
	srv := testenv.StartMongo(t)
	db := freshDatabase()
	k := newSink(t, testBackend(), srv.URI, sinktest.Cluster, db, "rows")
	r := newReader(t, srv.URI, db, "rows")
	n := 12_500
	if os.Getenv("KOLLECT_STREAM_ROWS") != "" {
		n = sinktest.LargeRows()
	}
	sinktest.StreamedWriteHeapOf(t, inv, n, 64<<20, func(s sink.Snapshot) error {
		return k.Write(context.Background(), s)
	}, func(s sink.Snapshot) {
		got, found, err := r.Read(context.Background(), sinktest.Cluster, inv)
		if err != nil || !found {
			t.Fatalf("read the collection back: found %v, %v", found, err)
		}
		if got.Revision != s.Envelope.Revision || len(got.Rows) != s.Envelope.ItemCount {
			t.Fatalf("the collection holds revision %d with %d rows, want %d with %d", got.Revision, len(got.Rows),
				s.Envelope.Revision, s.Envelope.ItemCount)
		}
	})
}
