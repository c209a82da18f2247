package s3

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/snapshot"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore/objectstoretest"
)

// TestDeltaCost checks docs/contract.md's cost of a one-row change on an
// inventory the bucket already holds: one GET of the state object, the data
// object (for Parquet one new file, for JSON and NDJSON the overwritten
// document) and the state object; no listing, no deletion, no other read.
func TestDeltaCost(t *testing.T) {
	p := startPeer(t)
	for _, format := range []string{"parquet", "json", "ndjson"} {
		t.Run("a one-row change to "+format+" is one read and two puts", func(t *testing.T) {
			s, cb, _ := p.countingSink(t, p.spec(newBucketName(), "p", format, "zstd"))
			first := objectstoretest.Pods(t, 1, 50)
			objectstoretest.Write(t, s, first)
			before := cb.counts()
			rows := objectstoretest.Pods(t, 2, 50).Envelope.Items
			rows[7].Attributes["image"] = "nginx:1.27"
			env, err := snapshot.Envelope(inv, 2, 1, rows)
			if err != nil {
				t.Fatal(err)
			}
			objectstoretest.Write(t, s, sink.Snapshot{Envelope: env.Stamp("conformance", time.Now())})
			after := cb.counts()
			got := [4]int64{after[0] - before[0], after[1] - before[1], after[2] - before[2], after[3] - before[3]}
			if d := cmp.Diff([4]int64{2, 1, 0, 0}, got); d != "" {
				t.Errorf("puts, gets, lists, deletes of the change (-want +got):\n%s", d)
			}
		})
	}
}
