package git

import (
	"context"
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
var streamedTrees = []string{"9f82e4e33a2a870f187d4a9beff5c38b7379c44a", "abc0c43f409138589a3c155e12557981be7efc92"}

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
	twice := pod("team-a", "b", 2)
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
