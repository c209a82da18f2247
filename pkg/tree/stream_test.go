package tree

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
)

// TestABuilderMakesNewIndexsFilesAndIndex adds random rows whose paths
// collide to a Builder one at a time, in canonical order: the files (path
// and blob), each file's content, and the Index must be NewIndex's.
func TestABuilderMakesNewIndexsFilesAndIndex(t *testing.T) {
	for _, s := range []Spec{
		{Mode: ModePerResource, ResourceTemplate: "{sourceNamespace}/{sourceName}{extension}"},
		{Mode: ModePerResource, Format: FormatJSON, Content: ContentManifest},
	} {
		t.Run(s.ResourceTemplate+s.Format, func(t *testing.T) {
			r := rand.New(rand.NewPCG(3, 4))
			current := map[busv1.RowKey]busv1.Row{}
			for range 200 {
				row := randomRow(r)
				current[row.Key()] = row
			}
			items := slices.Collect(maps.Values(current))
			env := busv1.Envelope{Cluster: "c1", Inventory: busv1.NamespacedName{Namespace: "team-a", Name: "inv"},
				Revision: 3, Checksum: "sum", Items: items, ItemCount: len(items)}
			wantIx, wantFiles, err := NewIndex(s, env, 4)
			if err != nil {
				t.Fatal(err)
			}
			content := map[BlobID][]byte{}
			for _, f := range wantFiles {
				content[BlobOf(f.Data)] = f.Data
			}
			b, err := NewBuilder(s, busv1.Envelope{Cluster: env.Cluster, Inventory: env.Inventory, Revision: 3, Checksum: "sum", ItemCount: len(items)})
			if err != nil {
				t.Fatal(err)
			}
			slices.SortFunc(items, busv1.CompareRows)
			for i := range items {
				data, blob, _, err := b.Add(&items[i])
				if err != nil {
					t.Fatal(err)
				}
				if BlobOf(data) != blob || string(content[blob]) != string(data) {
					t.Fatalf("row %d: content %q is none of NewIndex's files", i, data)
				}
			}
			ix, files, err := b.Finish(4)
			if err != nil {
				t.Fatal(err)
			}
			want := make([]Placed, len(wantFiles))
			for i, f := range wantFiles {
				want[i] = Placed{Path: f.Path, Blob: BlobOf(f.Data)}
			}
			if d := cmp.Diff(want, files); d != "" {
				t.Errorf("files (-NewIndex +Builder):\n%s", d)
			}
			if d := cmp.Diff(wantIx, ix, cmp.AllowUnexported(Index{}, indexRow{}, FileSet{})); d != "" {
				t.Errorf("index (-NewIndex +Builder):\n%s", d)
			}
		})
	}
}

// TestABuilderRefusesRowsOutOfOrder: a row before the previous one in
// canonical order (or the same row again) is a permanent error, since
// the collision suffixes depend on the order.
func TestABuilderRefusesRowsOutOfOrder(t *testing.T) {
	b, err := NewBuilder(Spec{Mode: ModePerResource}, busv1.Envelope{Cluster: "c1"})
	if err != nil {
		t.Fatal(err)
	}
	row := func(name string) *busv1.Row {
		return &busv1.Row{TargetNamespace: "a", TargetName: "t", Namespace: "a", Name: name, UID: "u-" + name, Version: "v1", Kind: "Pod"}
	}
	if _, _, _, err := b.Add(row("b")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b"} {
		if _, _, _, err := b.Add(row(name)); !sink.IsPermanent(err) {
			t.Errorf("add %s after b: %v, want a permanent error", name, fmt.Sprint(err))
		}
	}
}
