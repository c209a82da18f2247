package tree

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	busv1 "kollect.dev/kollect/api/bus/v1"
)

// randomRow draws a row from small pools, so that paths collide: two
// kinds render to one path, one object is collected by two Targets, and a
// few names equal another row's path with its uid suffix.
func randomRow(r *rand.Rand) busv1.Row {
	uid := fmt.Sprintf("u%d", r.IntN(40))
	name := fmt.Sprintf("obj%d", r.IntN(12))
	if r.IntN(4) == 0 { // a name equal to another row's suffixed path
		name = fmt.Sprintf("obj%d--u%d", r.IntN(4), r.IntN(10))
	}
	return busv1.Row{
		TargetNamespace: "team-a", TargetName: []string{"t1", "t2"}[r.IntN(2)],
		Namespace: []string{"ns1", "ns2"}[r.IntN(2)], Name: name, UID: uid,
		Group: "apps", Version: "v1", Kind: []string{"Deployment", "deployment"}[r.IntN(2)],
		Attributes: map[string]any{"v": r.IntN(3)},
	}
}

// tracked is a tree's files as the edits left them: path → blob.
type tracked map[string]BlobID

func (t tracked) apply(edits []Edit) {
	for _, e := range edits {
		switch {
		case e.Remove:
			delete(t, e.Path)
		case e.Data != nil:
			t[e.Path] = BlobOf(e.Data)
		default:
			t[e.Path] = e.Blob
		}
	}
}

func rendered(t *testing.T, s Spec, env busv1.Envelope) tracked {
	t.Helper()
	files, err := Render(s, env)
	if err != nil {
		t.Fatal(err)
	}
	out := tracked{}
	for _, f := range files {
		out[f.Path] = BlobOf(f.Data)
	}
	return out
}

// TestIndexDeltasEqualRender applies random deltas through an Index and
// checks after each that the files equal a full render of the snapshot,
// and that the delta was refused only where paths collide.
func TestIndexDeltasEqualRender(t *testing.T) {
	// Without {kind} in the path, the two kinds of one name collide.
	s := Spec{Mode: ModePerResource, ResourceTemplate: "{sourceNamespace}/{sourceName}{extension}"}
	r := rand.New(rand.NewPCG(1, 2))
	current := map[busv1.RowKey]busv1.Row{}
	env := func(rev uint64) busv1.Envelope {
		items := slices.Collect(maps.Values(current))
		return busv1.Envelope{Cluster: "c1", Inventory: busv1.NamespacedName{Namespace: "team-a", Name: "inv"},
			Revision: rev, Checksum: fmt.Sprint("sum", rev), Items: items, ItemCount: len(items)}
	}
	for range 20 {
		row := randomRow(r)
		current[row.Key()] = row
	}
	ix, files, err := NewIndex(s, env(1), 0)
	if err != nil {
		t.Fatal(err)
	}
	tree := tracked{}
	for _, f := range files {
		tree[f.Path] = BlobOf(f.Data)
	}
	applied, refused := 0, 0
	for rev := uint64(2); rev < 400; rev++ {
		before := maps.Clone(current)
		for range 1 + r.IntN(3) {
			if r.IntN(3) == 0 && len(current) > 0 {
				keys := slices.SortedFunc(maps.Keys(current), compareKeys)
				delete(current, keys[r.IntN(len(keys))])
				continue
			}
			row := randomRow(r)
			current[row.Key()] = row
		}
		// The delta names each changed key once, as the aggregator's do.
		d := &busv1.Delta{BaseRevision: rev - 1, BaseChecksum: fmt.Sprint("sum", rev-1)}
		for k, row := range current {
			if old, ok := before[k]; !ok || !cmp.Equal(old, row) {
				d.Upserts = append(d.Upserts, row)
			}
		}
		for k := range before {
			if _, ok := current[k]; !ok {
				d.Deletes = append(d.Deletes, k)
			}
		}
		next := env(rev)
		u, ok, err := ix.Plan(next, d)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			refused++
			if ix, files, err = NewIndex(s, next, 0); err != nil {
				t.Fatal(err)
			}
			tree = tracked{}
			for _, f := range files {
				tree[f.Path] = BlobOf(f.Data)
			}
			continue
		}
		applied++
		tree.apply(u.Edits)
		if _, err := ix.Commit(u); err != nil {
			t.Fatal(err)
		}
		want := rendered(t, s, next)
		if d := cmp.Diff(want, tree); d != "" {
			t.Fatalf("revision %d: files after the delta (-render +delta):\n%s", rev, d)
		}
		if d := cmp.Diff(slices.Sorted(maps.Keys(want)), ix.Paths()); d != "" {
			t.Fatalf("revision %d: the index's file list (-render +index):\n%s", rev, d)
		}
	}
	t.Logf("%d deltas applied, %d refused (collisions beyond their rows)", applied, refused)
	if applied < 100 || refused == 0 {
		t.Fatalf("%d deltas applied, %d refused: the pools no longer exercise both", applied, refused)
	}
}

func TestIndexRefusesADeltaOnAnotherBase(t *testing.T) {
	s := Spec{Mode: ModePerResource}
	row := busv1.Row{TargetNamespace: "a", TargetName: "t", Namespace: "n", Name: "x", UID: "u", Version: "v1", Kind: "Pod"}
	env := busv1.Envelope{Cluster: "c", Inventory: busv1.NamespacedName{Namespace: "a", Name: "i"}, Revision: 3, Checksum: "s3", Items: []busv1.Row{row}}
	ix, _, err := NewIndex(s, env, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []*busv1.Delta{{BaseRevision: 2, BaseChecksum: "s3"}, {BaseRevision: 3, BaseChecksum: "other"}} {
		if _, ok, _ := ix.Plan(env, d); ok {
			t.Errorf("a delta on revision %d checksum %s was planned on an index at 3/s3", d.BaseRevision, d.BaseChecksum)
		}
	}
	if _, ok, _ := ix.Plan(env, &busv1.Delta{BaseRevision: 3, BaseChecksum: "s3"}); !ok {
		t.Error("a delta on the index's own base was refused")
	}
}

func TestFileSetShardsAndKeepsItsLayout(t *testing.T) {
	inv := busv1.NamespacedName{Namespace: "team-a", Name: "web"}
	env := busv1.Envelope{Cluster: "c1", Inventory: inv, Revision: 7}
	many := func(n int) []string {
		var out []string
		for i := range n {
			out = append(out, fmt.Sprintf("c1/ns/deployment/d%05d.yaml", i))
		}
		return out
	}
	small := NewFileSet(many(10), 0)
	state, shards, _, err := small.Writes(env, true)
	if err != nil {
		t.Fatal(err)
	}
	st, err := ParseState(state.Data)
	if err != nil {
		t.Fatal(err)
	}
	if len(shards) != 0 || len(st.Files) != 10 || st.FileShards != 0 {
		t.Fatalf("10 files: %d shards, state lists %d files with fileShards %d; want inline", len(shards), len(st.Files), st.FileShards)
	}

	big := NewFileSet(many(20000), 0)
	state, shards, _, err = big.Writes(env, true)
	if err != nil {
		t.Fatal(err)
	}
	if st, _ = ParseState(state.Data); st.FileShards != 128 || st.FileCount != 20000 || len(st.Files) != 0 {
		t.Fatalf("20000 files: state %+v, want 128 shards", st)
	}
	var listed []string
	for _, f := range shards {
		listed = append(listed, ParseShard(f.Data)...)
	}
	slices.Sort(listed)
	if d := cmp.Diff(many(20000), listed); d != "" {
		t.Fatalf("the shards list (-want +got):\n%s", d)
	}

	big.Add("c1/ns/deployment/new.yaml")
	_, shards, remove, err := big.Writes(env, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(shards) != 1 || len(remove) != 0 {
		t.Fatalf("one added file rewrote %d shards and removed %d, want one shard", len(shards), len(remove))
	}
	if !slices.Contains(ParseShard(shards[0].Data), "c1/ns/deployment/new.yaml") {
		t.Fatal("the rewritten shard does not list the new file")
	}

	// 128 shards fit 8,192 to 131,072 files: shrinking to 9,000 keeps them.
	if kept := NewFileSet(many(9000), 128); kept.Shards() != 128 {
		t.Fatalf("9000 files of a 128-shard list moved to %d shards", kept.Shards())
	}
	shrunk := NewFileSet(many(100), 128)
	state, _, remove, err = shrunk.Writes(env, true)
	if err != nil {
		t.Fatal(err)
	}
	if st, _ = ParseState(state.Data); st.FileShards != 0 || len(st.Files) != 100 || len(remove) != 128 {
		t.Fatalf("100 files of a 128-shard list: state shards %d, %d files inline, %d shards removed; want inline, 128 removed",
			st.FileShards, len(st.Files), len(remove))
	}
}
