package s3

import (
	"context"
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/sink/sinktest"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore/objectstoretest"
)

// TestAStreamedFullWriteHoldsAPartNotTheInventory full-writes snapshots of
// n and 4n rows streamed from a real bus as NDJSON and gzipped JSON (the
// larger a multipart upload): the heap the write needs must not grow with
// the inventory, and the object holds every row.
func TestAStreamedFullWriteHoldsAPartNotTheInventory(t *testing.T) {
	p := startPeer(t)
	for _, f := range []struct{ format, compression string }{{"ndjson", "none"}, {"json", "gzip"}} {
		t.Run(f.format+" with compression "+f.compression, func(t *testing.T) {
			b := newBucketName()
			k := p.newSink(t, p.spec(b, "exports", f.format, f.compression))
			r := objectstoretest.Reader{Get: p.getter(b), Delete: p.deleter(b), Prefix: "exports", Format: f.format, Compression: f.compression}
			inv := busv1.NamespacedName{Namespace: "team-a", Name: "web"}
			sinktest.StreamedWriteHeap(t, inv, 64<<20, func(s sink.Snapshot) error {
				return k.Write(context.Background(), s)
			}, func(s sink.Snapshot) {
				got, found, err := r.Read(context.Background(), sinktest.Cluster, inv)
				if err != nil || !found {
					t.Fatalf("read the object back: found %v, %v", found, err)
				}
				if got.Revision != s.Envelope.Revision || len(got.Rows) != s.Envelope.ItemCount {
					t.Fatalf("the bucket holds revision %d with %d rows, want %d with %d", got.Revision, len(got.Rows),
						s.Envelope.Revision, s.Envelope.ItemCount)
				}
				if want := sinktest.LargeRow(s.Envelope.ItemCount-1, ""); got.Rows[len(got.Rows)-1].UID != want.UID {
					t.Errorf("the last row is %s, want %s", got.Rows[len(got.Rows)-1].UID, want.UID)
				}
			})
		})
	}
}
