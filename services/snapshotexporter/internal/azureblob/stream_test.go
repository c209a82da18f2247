package azureblob

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/sink/sinktest"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore/objectstoretest"
)

// TestAStreamedFullWriteHoldsABlockNotTheInventory full-writes snapshots of
// n and 4n rows streamed from a real bus as NDJSON and gzipped JSON to
// Azurite (the larger ones as staged blocks): the heap the write needs must
// not grow with the inventory, and the blob holds every row.
func TestAStreamedFullWriteHoldsABlockNotTheInventory(t *testing.T) {
	p := startPeer(t)
	for _, f := range []struct{ format, compression string }{{"ndjson", "none"}, {"json", "gzip"}} {
		t.Run(f.format+" with compression "+f.compression, func(t *testing.T) {
			c := newContainerName()
			k := p.newSink(t, p.spec(c, "exports", f.format, f.compression), keySecret())
			if rs, ok := k.(sink.RowStreamer); !ok || !rs.StreamsRows() {
				t.Fatalf("the %s sink does not stream rows", f.format)
			}
			r := objectstoretest.Reader{Get: p.getter(t, c), Delete: p.deleter(t, c), Prefix: "exports", Format: f.format, Compression: f.compression}
			inv := busv1.NamespacedName{Namespace: "team-a", Name: "web"}
			sinktest.StreamedWriteHeap(t, inv, 64<<20, func(s sink.Snapshot) error {
				return k.Write(context.Background(), s)
			}, func(s sink.Snapshot) {
				got, found, err := r.Read(context.Background(), sinktest.Cluster, inv)
				if err != nil || !found {
					t.Fatalf("read the blob back: found %v, %v", found, err)
				}
				if got.Revision != s.Envelope.Revision || len(got.Rows) != s.Envelope.ItemCount {
					t.Fatalf("the container holds revision %d with %d rows, want %d with %d", got.Revision, len(got.Rows),
						s.Envelope.Revision, s.Envelope.ItemCount)
				}
				if want := sinktest.LargeRow(s.Envelope.ItemCount-1, ""); got.Rows[len(got.Rows)-1].UID != want.UID {
					t.Errorf("the last row is %s, want %s", got.Rows[len(got.Rows)-1].UID, want.UID)
				}
			})
		})
	}
}

// TestAStreamedBlobKeepsPutsConditions streams bodies of one block and of
// several (staged blocks) with Put's conditions: absent, then the version
// read, then a stale version; the blob must hold what the last successful
// put sent.
func TestAStreamedBlobKeepsPutsConditions(t *testing.T) {
	p := startPeer(t)
	name := newContainerName()
	p.createContainer(t, name)
	c := &blobContainer{client: p.client(t, name), name: name, mode: v1alpha1.ProvisionExisting}
	for _, size := range []int{1000, 2*blockSize + 17} {
		t.Run(fmt.Sprintf("a body of %d bytes", size), func(t *testing.T) {
			ctx := context.Background()
			key := fmt.Sprintf("streamed-%d", size)
			body := func(b byte) io.Reader { return bytes.NewReader(bytes.Repeat([]byte{b}, size)) }
			first, err := c.PutStream(ctx, key, body('a'), "application/json", "", objectstore.Condition{Absent: true})
			if err != nil || first.Size != int64(size) {
				t.Fatalf("put a new blob: %+v, %v", first, err)
			}
			if _, err := c.PutStream(ctx, key, body('b'), "application/json", "", objectstore.Condition{Absent: true}); !errors.Is(err, objectstore.ErrPrecondition) {
				t.Fatalf("put over an existing blob when absent: %v, want ErrPrecondition", err)
			}
			second, err := c.PutStream(ctx, key, body('c'), "application/json", "", objectstore.Condition{Version: first.Version})
			if err != nil {
				t.Fatalf("put at the version read: %v", err)
			}
			if _, err := c.PutStream(ctx, key, body('d'), "application/json", "", objectstore.Condition{Version: first.Version}); !errors.Is(err, objectstore.ErrPrecondition) {
				t.Fatalf("put at a stale version: %v, want ErrPrecondition", err)
			}
			got, info, found, err := c.Get(ctx, key, int64(size))
			if err != nil || !found || info.Version != second.Version || !bytes.Equal(got, bytes.Repeat([]byte{'c'}, size)) {
				t.Fatalf("the blob is %d bytes at version %s (found %v, %v), want %d of 'c' at %s", len(got), info.Version, found, err, size, second.Version)
			}
		})
	}
}
