package history_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/history"
	"kollect.dev/kollect/pkg/snapshot"
)

func TestAOneRowChangeWritesOnePageAndTheRootOfAPagedManifest(t *testing.T) {
	n, w := startWriter(t)
	ctx := context.Background()
	inv := busv1.NamespacedName{Namespace: "team-a", Name: "inv"}
	const rows = 40_000
	ref1, m1, _, err := w.WriteManifest(ctx, inv, history.RowsSource(manyRows(rows, "api:1")))
	if err != nil {
		t.Fatal(err)
	}
	l := history.NewLoader(n.JS, 0)
	root1, err := l.Root(ctx, ref1)
	if err != nil {
		t.Fatal(err)
	}
	if len(root1.Pages) < 2 || len(root1.Chunks) != 0 {
		t.Fatalf("%d chunks stored as a root of %d pages and %d chunks, want pages only", len(m1.Chunks), len(root1.Pages), len(root1.Chunks))
	}
	changed := manyRows(rows, "api:1")
	changed[rows/2].Attributes["image"] = "api:2"
	ref2, m2, written2, err := w.WriteManifest(ctx, inv, history.RowsSource(changed))
	if err != nil {
		t.Fatal(err)
	}
	root2, err := l.Root(ctx, ref2)
	if err != nil {
		t.Fatal(err)
	}
	old := map[string]bool{}
	for _, c := range m1.Chunks {
		old[c.Digest] = true
	}
	var freshChunks int64
	for _, c := range m2.Chunks {
		if !old[c.Digest] {
			freshChunks += c.Bytes
		}
	}
	oldPages := map[string]bool{}
	for _, p := range root1.Pages {
		oldPages[p.Digest] = true
	}
	var freshPages, freshPageBytes int64
	for _, p := range root2.Pages {
		if !oldPages[p.Digest] {
			freshPages, freshPageBytes = freshPages+1, freshPageBytes+p.Size
		}
	}
	if freshPages != 1 || written2 != freshChunks+freshPageBytes+ref2.Size {
		t.Errorf("a one-row change wrote %d bytes: %d of chunks, %d new pages of %d bytes, a root of %d",
			written2, freshChunks, freshPages, freshPageBytes, ref2.Size)
	}
	flat := int64(len((&busv1.Manifest{Chunks: m2.Chunks}).AppendJSON(nil)))
	if got := freshPageBytes + ref2.Size; got*2 > flat {
		t.Errorf("the page and root of a one-row change are %d bytes, a flat manifest %d: want under half", got, flat)
	}
	ev := &busv1.SnapshotEvent{Inventory: inv, Revision: 2, Checksum: m2.Checksum, ItemCount: rows, ManifestRef: ref2}
	got, err := l.Manifest(ctx, ev)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(m2.Chunks, got.Chunks); diff != "" {
		t.Errorf("resolved chunks (-want +got):\n%s", diff)
	}
	raws, err := l.RawRows(ctx, ev)
	if err != nil || len(raws) != rows {
		t.Fatalf("read %d rows of the paged revision: %v", len(raws), err)
	}
}

func TestLoaderRefusesAPageThatDoesNotMatchItsRoot(t *testing.T) {
	n, w := startWriter(t)
	ctx := context.Background()
	inv := busv1.NamespacedName{Namespace: "team-a", Name: "inv"}
	ref, m, _, err := w.WriteManifest(ctx, inv, history.RowsSource(manyRows(40_000, "api:1")))
	if err != nil {
		t.Fatal(err)
	}
	l := history.NewLoader(n.JS, -1)
	root, err := l.Root(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	if len(root.Pages) < 2 {
		t.Fatalf("40000 rows stored as a root of %d pages", len(root.Pages))
	}
	// A page that claims one chunk fewer than the page holds.
	root.Pages[0].Chunks--
	b := root.AppendJSON(nil)
	forged, _, err := w.PutAddressed(ctx, bus.ManifestObjectName, b)
	if err != nil {
		t.Fatal(err)
	}
	ev := &busv1.SnapshotEvent{Inventory: inv, Checksum: m.Checksum, ItemCount: 40_000, ManifestRef: forged}
	if _, err := l.Manifest(ctx, ev); err == nil || !strings.Contains(err.Error(), "its manifest says") {
		t.Errorf("a root that miscounts a page's chunks was read: %v", err)
	}
}

// TestAFlatManifestOfAnEarlierReleaseStaysReadable reads a revision stored
// by a release before paged manifests (testdata/flat-manifest: the event,
// its flat manifest and chunks, byte for byte) after the upgrade.
func TestAFlatManifestOfAnEarlierReleaseStaysReadable(t *testing.T) {
	n, _ := startWriter(t)
	ctx := context.Background()
	dir := filepath.Join("testdata", "flat-manifest")
	var ev busv1.SnapshotEvent
	files, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	obs, err := n.JS.ObjectStore(ctx, bus.ObjectStoreEnvelopes)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if f.Name() == "event.json" {
			if err := json.Unmarshal(b, &ev); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if _, err := obs.PutBytes(ctx, f.Name(), b); err != nil {
			t.Fatal(err)
		}
	}
	l := history.NewLoader(n.JS, 0)
	m, err := l.Manifest(ctx, &ev)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Pages) != 0 || len(m.Chunks) < 2 {
		t.Fatalf("the flat fixture read as %d chunks and %d pages", len(m.Chunks), len(m.Pages))
	}
	env, err := l.Envelope(ctx, &ev)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := snapshot.Checksum(env.Items)
	if err != nil {
		t.Fatal(err)
	}
	if sum != ev.Checksum || env.ItemCount != ev.ItemCount || env.Revision != ev.Revision {
		t.Errorf("the old revision read as %d rows with checksum %s, its event says %d rows, %s", env.ItemCount, sum, ev.ItemCount, ev.Checksum)
	}
}
