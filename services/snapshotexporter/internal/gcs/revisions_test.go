package gcs

import (
	"context"
	"errors"
	"strings"
	"testing"

	"cloud.google.com/go/storage"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/api/iterator"

	"kollect.dev/kollect/pkg/snapshot"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore/objectstoretest"
)

// TestAPastRevisionIsListedAndRead follows docs/sinks/s3.md "Past
// revisions" on GCS: with Parquet, each revision stays a file of the
// inventory's folder, listed by prefix, and a past revision read back holds
// its rows, which hash to the checksum in its metadata.
func TestAPastRevisionIsListedAndRead(t *testing.T) {
	p := startPeer(t)
	b := newBucketName()
	s := p.newSink(t, p.spec(b, "p", "parquet", "none"), none)
	first, second := objectstoretest.Pods(t, 1, 2), objectstoretest.Pods(t, 2, 3)
	objectstoretest.Write(t, s, first)
	objectstoretest.Write(t, s, second)

	folder := "p/inventory/part_cluster=conformance/part_namespace=team-a/part_inventory=web/"
	var revisions []string
	it := p.client.Bucket(b).Objects(context.Background(), &storage.Query{Prefix: folder + "revision="})
	for {
		o, err := it.Next()
		if errors.Is(err, iterator.Done) {
			break
		}
		if err != nil {
			t.Fatalf("list %s: %v", folder, err)
		}
		revisions = append(revisions, strings.TrimPrefix(o.Name, folder))
	}
	if d := cmp.Diff([]string{"revision=1.parquet", "revision=2.parquet"}, revisions); d != "" {
		t.Fatalf("revisions listed (-want +got):\n%s", d)
	}
	body, ok, err := p.getter(b)(context.Background(), folder+"revision=1.parquet")
	if err != nil || !ok {
		t.Fatalf("read revision 1: found %v, %v", ok, err)
	}
	pf, err := objectstoretest.ReadParquet(body)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := snapshot.Checksum(pf.Rows)
	if err != nil {
		t.Fatal(err)
	}
	want := first.Envelope.Checksum
	if pf.Metadata["kollect.revision"] != "1" || pf.Metadata["kollect.checksum"] != want || sum != want {
		t.Errorf("revision 1 read back: metadata revision %s checksum %s, rows hash to %s; want 1 and %s",
			pf.Metadata["kollect.revision"], pf.Metadata["kollect.checksum"], sum, want)
	}
	if d := cmp.Diff(first.Envelope.Items, pf.Rows); d != "" {
		t.Errorf("revision 1's rows (-written +read):\n%s", d)
	}
}
