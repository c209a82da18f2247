package git

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/sink/sinktest"
	"kollect.dev/kollect/pkg/snapshot"
	"kollect.dev/kollect/pkg/testenv"
)

// streamedTrees are the trees the loaded, in-memory full write made (the
// exporter before it streamed, at commit 0566f89) for the snapshots of
// TestAStreamedFullWriteMakesTheTreesOfALoadedOne.
var streamedTrees = []string{"23bf307832da84c4b9c17e2419ec7bb4f60a0cb4", "27c14b4f6539d3c42a0f3597d1260ef120357faa"}

// fixedSnap is snap stamped at a fixed time, so that its State, and so the
// tree, is the same on every run.
func fixedSnap(t testing.TB, ns string, revision uint64, rows ...busv1.Row) sink.Snapshot {
	t.Helper()
	env, err := snapshot.Envelope(busv1.NamespacedName{Namespace: ns, Name: "web"}, revision, 1, rows)
	if err != nil {
		t.Fatalf("build envelope: %v", err)
	}
	return sink.Snapshot{Envelope: env.Stamp("conformance", time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC))}
}

// TestAStreamedFullWriteMakesTheTreesOfALoadedOne full-writes, streamed,
// a perResource snapshot whose paths collide (the same Pod selected by two
// Targets), then one that changes, adds and removes rows, next to another
// inventory's files: the branch's trees must be those the loaded write
// made, byte for byte.
func TestAStreamedFullWriteMakesTheTreesOfALoadedOne(t *testing.T) {
	p := startPeer(t, testenv.GitOptions{})
	name, url := p.newRepo(t)
	spec := p.spec(url)
	spec.Layout = &v1alpha1.GitLayout{Mode: "perResource"}
	spec.Git = &v1alpha1.GitSink{Prune: new(true)}
	b := &Backend{Egress: allowLoopback}
	s, other := newSink(t, b, spec, p.creds), newSink(t, b, spec, p.creds)
	write(t, other, fixedSnap(t, "team-b", 1, pod("team-b", "x", 1)))
	twice := pod("team-a", "pod-00003", 1)
	twice.TargetName = "more-pods"
	first := append(pods("team-a", 30, 1), twice)
	second := append(pods("team-a", 20, 2)[5:], pod("team-a", "new", 3), twice)
	for i, rows := range [][]busv1.Row{first, second} {
		sn := fixedSnap(t, "team-a", uint64(i+1), rows...)
		if err := s.Write(context.Background(), sinktest.Streamed(sn)); err != nil {
			t.Fatalf("write revision %d: %v", i+1, err)
		}
		got := strings.TrimSpace(p.g.Run(t, name, "rev-parse", "main^{tree}"))
		if got != streamedTrees[i] {
			t.Errorf("revision %d: the tree is %s, the loaded write made %s", i+1, got, streamedTrees[i])
		}
	}
}

// perFileHeap is the most heap a streamed full write may need per file of
// the inventory: the per-file index it keeps (each file's path and blob,
// the Index the next delta uses, the State's file list, the folder's tree,
// the spilled blob's offset and the pack's entry) and the garbage the
// collector has not reclaimed yet, not the files' content. Measured on a
// loaded machine: about 1,900 bytes a file (53 MiB for 25,000 files, 187
// MiB for 100,000); the loaded write needed about 5,000.
const perFileHeap = 3584

// TestAStreamedFullWriteHoldsItsIndexNotTheFiles full-writes, perResource,
// snapshots of n and then 4n rows streamed from a real bus over one
// branch: the heap the larger write needs may grow with the inventory by
// the per-file index only (perFileHeap), not by the files' content
// (KOLLECT_STREAM_ROWS=250000 runs it at a million files). The loaded
// write this replaced needed 126 MiB for 25,000 files and 486 MiB for
// 100,000.
func TestAStreamedFullWriteHoldsItsIndexNotTheFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 125,000 files")
	}
	p := startPeer(t, testenv.GitOptions{})
	name, url := p.newRepo(t)
	spec := p.spec(url)
	spec.Layout = &v1alpha1.GitLayout{Mode: "perResource"}
	s := newSink(t, &Backend{Egress: allowLoopback, CacheDir: t.TempDir()}, spec, p.creds)
	bus := sinktest.StartBus(t)
	n := sinktest.LargeRows()
	inv := busv1.NamespacedName{Namespace: "team-a", Name: "web"}
	var peaks [2]uint64
	for i, size := range []int{n, 4 * n} {
		pub := bus.Publish(t, inv, uint64(i+1), size, strconv.Itoa(i))
		var err error
		peaks[i] = sinktest.HeapPeak(func() { err = s.Write(context.Background(), pub.Snapshot) })
		if err != nil {
			t.Fatalf("write %d rows: %v", size, err)
		}
		files := 0
		for _, f := range lines(p.g.Run(t, name, "ls-tree", "-r", "--name-only", "main")) {
			if !stateFile(f) {
				files++
			}
		}
		if files != size {
			t.Fatalf("the branch holds %d row files, want %d", files, size)
		}
		if reason, err := s.Drift(context.Background(), pub.Snapshot); err != nil || reason != "" {
			t.Errorf("drift after the write of %d rows: %q, %v", size, reason, err)
		}
		t.Logf("a streamed full write of %d files raised the heap by %.1f MiB (%.0f B a file)",
			size, float64(peaks[i])/(1<<20), float64(peaks[i])/float64(size))
	}
	const slack = 16 << 20
	if grown := int64(peaks[1]) - int64(peaks[0]); grown > int64(3*n*perFileHeap+slack) {
		t.Errorf("the heap a full write needs grows with the files' content: %.1f MiB for %d files, %.1f MiB for %d (%.0f B a file more, want at most %d)",
			float64(peaks[0])/(1<<20), n, float64(peaks[1])/(1<<20), 4*n, float64(grown)/float64(3*n), perFileHeap)
	}
}

// TestAStreamedFullWriteLeavesNothingInTheCacheFolder: the blobs a
// streamed write spills to --git-cache-dir are removed after a push, and
// after a stream that fails half-way, which pushes nothing.
func TestAStreamedFullWriteLeavesNothingInTheCacheFolder(t *testing.T) {
	p := startPeer(t, testenv.GitOptions{})
	name, url := p.newRepo(t)
	spec := p.spec(url)
	spec.Layout = &v1alpha1.GitLayout{Mode: "perResource"}
	dir := t.TempDir()
	s := newSink(t, &Backend{Egress: allowLoopback, CacheDir: dir}, spec, p.creds)
	left := func() []string {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return names
	}
	broken := sinktest.Streamed(snap(t, "team-a", 1, pods("team-a", 10, 1)...))
	whole := broken.Stream
	broken.Stream = func(ctx context.Context) iter.Seq2[json.RawMessage, error] {
		return func(yield func(json.RawMessage, error) bool) {
			n := 0
			for raw, err := range whole(ctx) {
				if n++; n == 5 {
					yield(nil, errors.New("the bus went away"))
					return
				}
				if !yield(raw, err) {
					return
				}
			}
		}
	}
	if err := s.Write(context.Background(), broken); err == nil {
		t.Fatal("a write whose stream failed succeeded")
	}
	if got := p.commits(t, name); len(got) != 0 {
		t.Errorf("a failed stream pushed %q", got)
	}
	if got := left(); len(got) != 0 {
		t.Errorf("the failed write left %q in the cache folder", got)
	}
	if err := s.Write(context.Background(), sinktest.Streamed(snap(t, "team-a", 2, pods("team-a", 10, 2)...))); err != nil {
		t.Fatal(err)
	}
	if got := p.commits(t, name); len(got) != 1 {
		t.Errorf("commits %q, want one", got)
	}
	if got := left(); len(got) != 0 {
		t.Errorf("the write left %q in the cache folder", got)
	}
}
