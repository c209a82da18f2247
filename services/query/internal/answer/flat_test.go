package answer_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/query/internal/answer"
)

// TestARevisionWithAFlatManifestOfAnEarlierReleaseReadsAfterTheUpgrade
// serves rows of a revision stored before paged manifests: pkg/history's
// fixture (the event, its flat manifest and chunks, byte for byte).
func TestARevisionWithAFlatManifestOfAnEarlierReleaseReadsAfterTheUpgrade(t *testing.T) {
	ctx := context.Background()
	n := testenv.StartNATS(t)
	if err := bus.Provision(ctx, n.JS, bus.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	obs, err := n.JS.ObjectStore(ctx, bus.ObjectStoreEnvelopes)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("..", "..", "..", "..", "pkg", "history", "testdata", "flat-manifest")
	files, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ev busv1.SnapshotEvent
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if f.Name() == "event.json" {
			if err := json.Unmarshal(b, &ev); err != nil {
				t.Fatal(err)
			}
			b, _ = json.Marshal(ev)
			if _, err := n.JS.Publish(ctx, bus.SnapshotSubject(ev.Inventory), b); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if _, err := obs.PutBytes(ctx, f.Name(), b); err != nil {
			t.Fatal(err)
		}
	}
	h := answer.NewReader(n.JS, 0)
	revs, err := h.Revisions(ctx, ev.Inventory, ev.InventoryUID)
	if err != nil || len(revs) != 1 || revs[0].Entry.Revision != ev.Revision {
		t.Fatalf("revisions %+v: %v", revs, err)
	}
	got, err := h.Event(ctx, ev.Inventory, revs[0].Entry)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := h.RowsPage(ctx, got, ev.ItemCount-50, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 50 || rows[49].Name != "app-0699" {
		t.Errorf("the last page of the old revision has %d rows, the last %+v", len(rows), rows[len(rows)-1])
	}
}
