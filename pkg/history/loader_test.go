package history_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/history"
	"kollect.dev/kollect/pkg/snapshot"
	"kollect.dev/kollect/pkg/testenv"
)

func manyRows(n int, image string) []busv1.Row {
	rows := make([]busv1.Row, n)
	for i := range rows {
		rows[i] = busv1.Row{TargetNamespace: "team-a", TargetName: "web", Namespace: "team-a", Name: fmt.Sprintf("app-%04d", i),
			UID: fmt.Sprintf("u%d", i), Group: "apps", Version: "v1", Kind: "Deployment",
			Attributes: map[string]any{"image": image, "note": "<&>"}}
	}
	return rows
}

// startWriter starts a provisioned bus and a Writer on it.
func startWriter(t *testing.T) (*testenv.NATS, *history.Writer) {
	t.Helper()
	n := testenv.StartNATS(t)
	if err := bus.Provision(context.Background(), n.JS, bus.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	w, err := history.NewWriter(context.Background(), n.JS)
	if err != nil {
		t.Fatal(err)
	}
	return n, w
}

func TestManifestsShareUnchangedChunksAndAssembleTheSnapshot(t *testing.T) {
	n, w := startWriter(t)
	ctx := context.Background()
	inv := busv1.NamespacedName{Namespace: "team-a", Name: "inv"}
	rows := manyRows(2000, "api:1")
	ref1, m1, written1, err := w.WriteManifest(ctx, inv, history.RowsSource(rows))
	if err != nil {
		t.Fatal(err)
	}
	if len(m1.Chunks) < 3 {
		t.Fatalf("2000 rows made %d chunks", len(m1.Chunks))
	}
	changed := manyRows(2000, "api:1")
	changed[1000].Attributes["image"] = "api:2"
	ref2, m2, written2, err := w.WriteManifest(ctx, inv, history.RowsSource(changed))
	if err != nil {
		t.Fatal(err)
	}
	old := map[string]bool{}
	for _, c := range m1.Chunks {
		old[c.Digest] = true
	}
	var fresh, freshBytes int64
	for _, c := range m2.Chunks {
		if !old[c.Digest] {
			fresh, freshBytes = fresh+1, freshBytes+c.Bytes
		}
	}
	if fresh < 1 || fresh > 2 || written2 != freshBytes+ref2.Size {
		t.Errorf("a one-row change made %d new chunks (%d bytes) and wrote %d bytes with a %d-byte manifest (first revision: %d)",
			fresh, freshBytes, written2, ref2.Size, written1)
	}
	want, err := snapshot.Envelope(inv, 2, 1, manyRows(2000, "api:1"))
	if err != nil {
		t.Fatal(err)
	}
	want.Items[1000].Attributes["image"] = "api:2"
	if want.Checksum, err = snapshot.Checksum(want.Items); err != nil {
		t.Fatal(err)
	}
	ev := &busv1.SnapshotEvent{Inventory: inv, Revision: 2, Generation: 1, Checksum: m2.Checksum, ItemCount: 2000, ManifestRef: ref2}
	l := history.NewLoader(n.JS, 0)
	got, err := l.Envelope(ctx, ev)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&want, got); diff != "" {
		t.Fatalf("assembled envelope (-want +got):\n%s", diff)
	}
	first := &busv1.SnapshotEvent{Inventory: inv, Revision: 1, Checksum: m1.Checksum, ItemCount: 2000, ManifestRef: ref1}
	misses := l.ChunkMisses.Load()
	if _, err := l.Envelope(ctx, first); err != nil {
		t.Fatal(err)
	}
	if got := l.ChunkMisses.Load() - misses; got < 1 || got > 2 {
		t.Errorf("reading the previous revision after this one missed the cache %d times, want the changed chunk(s) only", got)
	}
}

func TestLoaderRefusesContentThatDoesNotMatchTheEvent(t *testing.T) {
	n, w := startWriter(t)
	ctx := context.Background()
	inv := busv1.NamespacedName{Namespace: "team-a", Name: "inv"}
	ref, m, _, err := w.WriteManifest(ctx, inv, history.RowsSource(manyRows(10, "api:1")))
	if err != nil {
		t.Fatal(err)
	}
	obs, err := n.JS.ObjectStore(ctx, bus.ObjectStoreEnvelopes)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		ev     busv1.SnapshotEvent
		tamper func()
	}{
		{"a checksum other than the manifest's", busv1.SnapshotEvent{Inventory: inv, Checksum: "other", ItemCount: 10, ManifestRef: ref}, nil},
		{"an item count other than the manifest's", busv1.SnapshotEvent{Inventory: inv, Checksum: m.Checksum, ItemCount: 11, ManifestRef: ref}, nil},
		{"a chunk whose bytes no longer match its digest", busv1.SnapshotEvent{Inventory: inv, Checksum: m.Checksum, ItemCount: 10, ManifestRef: ref},
			func() {
				if _, err := obs.PutBytes(ctx, bus.ChunkObjectName(m.Chunks[0].Digest), []byte(`{"uid":"x"}`)); err != nil {
					t.Fatal(err)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.tamper != nil {
				tt.tamper()
			}
			if _, err := history.NewLoader(n.JS, -1).Envelope(ctx, &tt.ev); err == nil {
				t.Fatal("the loader accepted it")
			}
		})
	}
}

func TestAnObjectWrittenWhileItIsDeletedIsWrittenAfterTheDelete(t *testing.T) {
	n, w := startWriter(t)
	ctx := context.Background()
	names := make([]string, 50)
	for i := range names {
		ref, _, err := w.PutAddressed(ctx, bus.ChunkObjectName, []byte(fmt.Sprintf(`{"i":%d}`, i)))
		if err != nil {
			t.Fatal(err)
		}
		names[i] = ref.Name
	}
	done := make(chan int, 1)
	if !w.Delete(ctx, names, func(n int, err error) {
		if err != nil {
			t.Error(err)
		}
		done <- n
	}) {
		t.Fatal("the first Delete was refused")
	}
	if w.Delete(ctx, names[:1], nil) {
		t.Error("a second Delete ran beside the first")
	}
	// The last name is still being deleted: the Put waits, then writes.
	if _, written, err := w.PutAddressed(ctx, bus.ChunkObjectName, []byte(`{"i":49}`)); err != nil || written == 0 {
		t.Fatalf("Put during the delete: %d bytes, %v", written, err)
	}
	if got := <-done; got != len(names) {
		t.Errorf("deleted %d of %d", got, len(names))
	}
	obs, err := n.JS.ObjectStore(ctx, bus.ObjectStoreEnvelopes)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := obs.GetInfo(ctx, names[49]); err != nil {
		t.Errorf("the object written again during its deletion is gone: %v", err)
	}
	if _, err := obs.GetInfo(ctx, names[0]); err == nil {
		t.Error("a deleted object is still there")
	}
}
