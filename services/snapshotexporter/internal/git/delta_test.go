package git

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/pkg/tree"
)

// fetchCounter counts the fetches (upload-pack requests) a sink makes.
type fetchCounter struct {
	rt      http.RoundTripper
	fetches atomic.Int64
}

func (c *fetchCounter) RoundTrip(req *http.Request) (*http.Response, error) {
	if strings.HasSuffix(req.URL.Path, "/git-upload-pack") {
		c.fetches.Add(1)
	}
	return c.rt.RoundTrip(req)
}

// deltaSnap is the runtime's header-only delivery of the change from base
// to rows at revision: Load counts its calls and returns the full
// envelope.
func deltaSnap(t testing.TB, base sink.Snapshot, revision uint64, rows []busv1.Row, loads *atomic.Int64) sink.Snapshot {
	t.Helper()
	next := snap(t, "team-a", revision, rows...)
	was := map[busv1.RowKey]busv1.Row{}
	for _, r := range base.Envelope.Items {
		was[r.Key()] = r
	}
	d := &busv1.Delta{BaseRevision: base.Envelope.Revision, BaseChecksum: base.Envelope.Checksum}
	for _, r := range rows {
		if old, ok := was[r.Key()]; !ok || !cmp.Equal(old, r) {
			d.Upserts = append(d.Upserts, r)
		}
		delete(was, r.Key())
	}
	for k := range was {
		d.Deletes = append(d.Deletes, k)
	}
	full := next.Envelope
	next.Envelope.Items, next.Delta = nil, d
	next.Load = func(ctx context.Context) (busv1.Envelope, error) {
		loads.Add(1)
		return full, ctx.Err()
	}
	return next
}

func perResource(p *peer, url string) v1alpha1.KollectSnapshotSinkSpec {
	s := p.spec(url)
	s.Layout = &v1alpha1.GitLayout{Mode: "perResource"}
	return s
}

// writeDelta applies snap as a delta and fails the test on error.
func writeDelta(t testing.TB, s *Sink, snap sink.Snapshot) {
	t.Helper()
	if err := s.WriteDelta(context.Background(), snap); err != nil {
		t.Fatalf("write delta revision %d: %v", snap.Envelope.Revision, err)
	}
}

// wantBranch checks that the branch holds exactly the files of rows at
// revision and lists them in its State.
func wantBranch(t *testing.T, p *peer, repo, url string, rows []busv1.Row, revision uint64) {
	t.Helper()
	r := p.newReader(t, url, perResource(p, url))
	proj, found, err := r.Read(context.Background(), "conformance", busv1.NamespacedName{Namespace: "team-a", Name: "web"})
	if err != nil || !found {
		t.Fatalf("read the branch: found %v, %v", found, err)
	}
	if proj.Revision != revision {
		t.Errorf("the branch's State is at revision %d, want %d", proj.Revision, revision)
	}
	want := slices.Clone(rows)
	slices.SortFunc(want, busv1.CompareRows)
	if d := cmp.Diff(want, proj.Rows); d != "" {
		t.Errorf("rows on the branch (-want +got):\n%s", d)
	}
	files, err := tree.Render(r.spec, busv1.Envelope{Cluster: "conformance", Items: rows})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range lsTree(t, p, repo) {
		if strings.HasPrefix(f, "conformance/") { // not the State, nor another writer's
			got = append(got, f)
		}
	}
	if d := cmp.Diff(paths(files), got); d != "" {
		t.Errorf("files on the branch (-render +branch):\n%s", d)
	}
}

func TestADeltaCommitsOnlyTheRowsItNames(t *testing.T) {
	p := startPeer(t, testenv.GitOptions{})
	repo, url := p.newRepo(t)
	s := newSink(t, &Backend{Egress: allowLoopback}, perResource(p, url), p.creds)
	counter := &fetchCounter{rt: s.http}
	s.http = counter
	rows := pods("team-a", 1500, 1) // more than an inline State holds
	base := snap(t, "team-a", 1, rows...)
	write(t, s, base)
	fetchesAfterFirst := counter.fetches.Load()

	var loads atomic.Int64
	next := slices.Clone(rows)
	next[7] = pod("team-a", rows[7].Name, 2)     // changed
	next = slices.Delete(next, 100, 101)         // removed: pod-00100
	next = append(next, pod("team-a", "new", 2)) // added
	writeDelta(t, s, deltaSnap(t, base, 2, next, &loads))

	if n := loads.Load(); n != 0 {
		t.Errorf("the delta loaded the full snapshot %d times", n)
	}
	if n := counter.fetches.Load() - fetchesAfterFirst; n != 0 {
		t.Errorf("the delta fetched %d times; exports build on the tip they pushed", n)
	}
	changed := lines(p.g.Run(t, repo, "diff-tree", "--no-commit-id", "--name-only", "-r", "main~1", "main"))
	var rowsChanged, shards []string
	for _, f := range changed {
		switch {
		case strings.Contains(f, ".files/"):
			shards = append(shards, f)
		case f != tree.StatePath("conformance", busv1.NamespacedName{Namespace: "team-a", Name: "web"}):
			rowsChanged = append(rowsChanged, f)
		}
	}
	want := []string{"conformance/team-a/pod/new.yaml", "conformance/team-a/pod/pod-00007.yaml", "conformance/team-a/pod/pod-00100.yaml"}
	if d := cmp.Diff(want, rowsChanged); d != "" {
		t.Errorf("row files the delta's commit changed (-want +got):\n%s", d)
	}
	if len(shards) == 0 || len(shards) > 2 || len(changed) != len(want)+1+len(shards) {
		t.Errorf("the delta's commit changed %v; want the rows, the State and the one or two shards listing the added and removed files", changed)
	}
	wantBranch(t, p, repo, url, next, 2)
}

func TestADeltaAfterARestartWritesTheFullSnapshot(t *testing.T) {
	p := startPeer(t, testenv.GitOptions{})
	repo, url := p.newRepo(t)
	rows := pods("team-a", 1200, 1)
	base := snap(t, "team-a", 1, rows...)
	write(t, newSink(t, &Backend{Egress: allowLoopback}, perResource(p, url), p.creds), base)

	// A new Backend is a restarted exporter: it knows neither the tip nor
	// the inventory's files, and writes what the snapshot holds.
	s := newSink(t, &Backend{Egress: allowLoopback}, perResource(p, url), p.creds)
	var loads atomic.Int64
	next := slices.Clone(rows[:1100])
	next[3] = pod("team-a", rows[3].Name, 2)
	writeDelta(t, s, deltaSnap(t, base, 2, next, &loads))
	if loads.Load() != 1 {
		t.Errorf("the restarted sink loaded the snapshot %d times, want once", loads.Load())
	}
	wantBranch(t, p, repo, url, next, 2)

	// The full write left the index behind: the next delta is applied
	// alone.
	third := slices.Clone(next)
	third[5] = pod("team-a", next[5].Name, 3)
	writeDelta(t, s, deltaSnap(t, snap(t, "team-a", 2, next...), 3, third, &loads))
	if loads.Load() != 1 {
		t.Errorf("the delta after a full write loaded the snapshot again (%d loads)", loads.Load())
	}
	wantBranch(t, p, repo, url, third, 3)
}

func TestAnotherWritersChangeIsKeptOrRepaired(t *testing.T) {
	p := startPeer(t, testenv.GitOptions{})
	tests := []struct {
		name      string
		file      string // the path the other writer commits
		wantLoads int64
	}{
		{"a file of its own is kept and the delta is applied on top", "theirs.txt", 0},
		{"a file of the inventory is written again from the snapshot", "conformance/team-a/pod/pod-00002.yaml", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo, url := p.newRepo(t)
			s := newSink(t, &Backend{Egress: allowLoopback}, perResource(p, url), p.creds)
			rows := pods("team-a", 50, 1)
			base := snap(t, "team-a", 1, rows...)
			write(t, s, base)
			foreignCommit(t, p, repo, tt.file)

			var loads atomic.Int64
			next := slices.Clone(rows)
			next[9] = pod("team-a", rows[9].Name, 2)
			writeDelta(t, s, deltaSnap(t, base, 2, next, &loads))
			if loads.Load() != tt.wantLoads {
				t.Errorf("the snapshot was loaded %d times, want %d", loads.Load(), tt.wantLoads)
			}
			wantBranch(t, p, repo, url, next, 2)
			if tt.file == "theirs.txt" && !slices.Contains(lsTree(t, p, repo), "theirs.txt") {
				t.Error("the other writer's file is gone")
			}
		})
	}
}

func TestAPushRefusedForGoodIsAnErrorAndTheNextExportStartsOver(t *testing.T) {
	p := startPeer(t, testenv.GitOptions{})
	repo, url := p.newRepo(t)
	s := newSink(t, &Backend{Egress: allowLoopback}, perResource(p, url), p.creds)
	rows := pods("team-a", 20, 1)
	base := snap(t, "team-a", 1, rows...)
	write(t, s, base)
	// A hook that refuses every push: the remote answers the pack with an
	// error for the branch.
	hook := p.g.Root + "/" + repo + ".git/hooks/pre-receive"
	writeHook(t, hook, "#!/bin/sh\necho refused by policy >&2\nexit 1\n")
	var loads atomic.Int64
	next := slices.Clone(rows)
	next[1] = pod("team-a", rows[1].Name, 2)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := s.WriteDelta(ctx, deltaSnap(t, base, 2, next, &loads))
	if err == nil || sink.IsPermanent(err) || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a refused push returned %v, want a retryable error", err)
	}
	writeHook(t, hook, "#!/bin/sh\nexit 0\n")
	if err := s.WriteDelta(ctx, deltaSnap(t, base, 2, next, &loads)); err != nil {
		t.Fatalf("the retry: %v", err)
	}
	wantBranch(t, p, repo, url, next, 2)
	if got := fmt.Sprint(len(p.commits(t, repo))); got != "2" {
		t.Errorf("%s commits, want 2", got)
	}
}

// writeHook installs an executable hook script at path.
func writeHook(t testing.TB, path, script string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}
