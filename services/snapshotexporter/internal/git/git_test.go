package git

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/pkg/tree"
)

func TestNoCommitWhenNothingChanged(t *testing.T) {
	p := startPeer(t, testenv.GitOptions{})
	name, url := p.newRepo(t)
	for _, layout := range []string{"document", "perResource", "split"} {
		t.Run("layout "+layout, func(t *testing.T) {
			spec := p.spec(url)
			spec.Layout = &v1alpha1.GitLayout{Mode: layout}
			spec.Serialization = &v1alpha1.SnapshotSerialization{Format: "json"}
			ns := "ns-" + strings.ToLower(layout)
			s := newSink(t, &Backend{Egress: allowLoopback}, spec, p.creds)
			before := len(p.commits(t, name))
			write(t, s, snap(t, ns, 1, pod(ns, "a", 1), pod(ns, "b", 1)))
			write(t, s, snap(t, ns, 2, pod(ns, "a", 1), pod(ns, "b", 1)))
			write(t, s, snap(t, ns, 2, pod(ns, "a", 1), pod(ns, "b", 1)))
			if got := len(p.commits(t, name)) - before; got != 1 {
				t.Fatalf("three exports of one content made %d commits, want 1", got)
			}
			write(t, s, snap(t, ns, 3, pod(ns, "a", 2), pod(ns, "b", 1)))
			if got := len(p.commits(t, name)) - before; got != 2 {
				t.Fatalf("a changed row made %d commits in all, want 2", got)
			}
		})
	}
}

func TestCommitMessageAuthorAndTrailers(t *testing.T) {
	p := startPeer(t, testenv.GitOptions{})
	tests := []struct {
		name string
		git  *v1alpha1.GitSink
		want string
	}{
		{"the default subject and author", nil,
			"kollect <kollect@kollect.dev>\nchore(conformance/team-a/web): export 2 items @ %s\n\nKollect-Revision: 4\nKollect-Checksum: %s\n"},
		{"a custom message and author", &v1alpha1.GitSink{CommitMessage: "inventory {namespace}/{name} on {cluster}: {itemCount} ({checksum})",
			Author: &v1alpha1.GitAuthor{Name: "Inventory Bot", Email: "bot@example.com"}},
			"Inventory Bot <bot@example.com>\ninventory team-a/web on conformance: 2 (%s)\n\nKollect-Revision: 4\nKollect-Checksum: %s\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name, url := p.newRepo(t)
			spec := p.spec(url)
			spec.Git = tt.git
			s := newSink(t, &Backend{Egress: allowLoopback}, spec, p.creds)
			sn := snap(t, "team-a", 4, pod("team-a", "a", 1), pod("team-a", "b", 1))
			write(t, s, sn)
			got := p.g.Run(t, name, "log", "-1", "--format=%an <%ae>%n%B", "main")
			sum := sn.Envelope.Checksum
			want := strings.Replace(strings.Replace(tt.want, "%s", sum[:12], 1), "%s", sum, 1) + "\n"
			if d := cmp.Diff(want, got); d != "" {
				t.Fatalf("commit (-want +got):\n%s", d)
			}
		})
	}
}

// lsTree lists the files of the remote branch.
func lsTree(t testing.TB, p *peer, repo string) []string {
	t.Helper()
	return lines(p.g.Run(t, repo, "ls-tree", "-r", "--name-only", "main"))
}

func TestPrune(t *testing.T) {
	p := startPeer(t, testenv.GitOptions{})
	no := false
	tests := []struct {
		name  string
		prune *bool
		want  []string
	}{
		{"files of rows that left are removed by default", nil,
			[]string{".kollect/conformance/team-a/web.json", "conformance/team-a/pod/a.yaml", "conformance/team-a/pod/c.yaml"}},
		{"prune false keeps them", &no,
			[]string{".kollect/conformance/team-a/web.json", "conformance/team-a/pod/a.yaml", "conformance/team-a/pod/b.yaml", "conformance/team-a/pod/c.yaml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name, url := p.newRepo(t)
			spec := p.spec(url)
			spec.Layout = &v1alpha1.GitLayout{Mode: "perResource"}
			spec.Git = &v1alpha1.GitSink{Prune: tt.prune}
			s := newSink(t, &Backend{Egress: allowLoopback}, spec, p.creds)
			write(t, s, snap(t, "team-a", 1, pod("team-a", "a", 1), pod("team-a", "b", 1), pod("team-a", "c", 1)))
			write(t, s, snap(t, "team-a", 2, pod("team-a", "a", 1), pod("team-a", "c", 1)))
			if d := cmp.Diff(tt.want, lsTree(t, p, name)); d != "" {
				t.Fatalf("files (-want +got):\n%s", d)
			}
		})
	}
}

func TestPerResourceTreeEqualsRender(t *testing.T) {
	p := startPeer(t, testenv.GitOptions{})
	name, url := p.newRepo(t)
	spec := p.spec(url)
	spec.Layout = &v1alpha1.GitLayout{Mode: "split", Content: "manifest"}
	s := newSink(t, &Backend{Egress: allowLoopback}, spec, p.creds)
	sn := snap(t, "team-a", 1, pod("team-a", "a", 1), pod("team-a", "b", 2), pod("", "node-1", 3))
	write(t, s, sn)
	ts, _ := tree.SpecFor(spec)
	want, err := tree.Render(ts, sn.Envelope)
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	got := map[string]string{}
	for _, f := range lsTree(t, p, name) {
		if !strings.HasPrefix(f, ".kollect/") {
			got[f] = p.g.Show(t, name, "main", f)
		}
	}
	wantMap := map[string]string{}
	for _, f := range want {
		wantMap[f.Path] = string(f.Data)
	}
	if d := cmp.Diff(wantMap, got); d != "" {
		t.Fatalf("branch files (-tree.Render +branch):\n%s", d)
	}
}

func TestTwoInventoriesInOneRepository(t *testing.T) {
	p := startPeer(t, testenv.GitOptions{})
	name, url := p.newRepo(t)
	spec := p.spec(url)
	spec.Layout = &v1alpha1.GitLayout{Mode: "perResource"}
	b := &Backend{Egress: allowLoopback}
	a, other := newSink(t, b, spec, p.creds), newSink(t, b, spec, p.creds)
	write(t, other, snap(t, "team-b", 1, pod("team-b", "x", 1), pod("team-b", "y", 1)))
	bFiles := func() map[string]string {
		out := map[string]string{}
		for _, f := range lsTree(t, p, name) {
			if strings.Contains(f, "team-b") {
				out[f] = p.g.Show(t, name, "main", f)
			}
		}
		return out
	}
	before := bFiles()
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = a.Write(context.Background(), snap(t, "team-a", uint64(i+1), pod("team-a", "a", i), pod("team-a", "b", 1)))
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("writes of team-a: %v", err)
	}
	write(t, a, snap(t, "team-a", 9, pod("team-a", "a", 1)))
	if d := cmp.Diff(before, bFiles()); d != "" {
		t.Fatalf("writing team-a changed team-b's files (-before +after):\n%s", d)
	}
	del := snap(t, "team-a", 10)
	del.Deleted = true
	write(t, a, del)
	if d := cmp.Diff(before, bFiles()); d != "" {
		t.Fatalf("deleting team-a changed team-b's files (-before +after):\n%s", d)
	}
	for _, f := range lsTree(t, p, name) {
		if strings.Contains(f, "team-a") {
			t.Errorf("the deleted inventory team-a left %s", f)
		}
	}
}

func TestReplayWritesAnOlderRevision(t *testing.T) {
	p := startPeer(t, testenv.GitOptions{})
	_, url := p.newRepo(t)
	spec := p.spec(url)
	s := newSink(t, &Backend{Egress: allowLoopback}, spec, p.creds)
	r := p.newReader(t, url, spec)
	write(t, s, snap(t, "team-a", 5, pod("team-a", "a", 5)))
	old := snap(t, "team-a", 3, pod("team-a", "a", 3))
	old.Replay = true
	write(t, s, old)
	got, _, err := r.Read(context.Background(), "conformance", old.Envelope.Inventory)
	if err != nil {
		t.Fatal(err)
	}
	if got.Revision != 3 {
		t.Fatalf("after a replay of revision 3 the branch holds revision %d", got.Revision)
	}
}

func TestDefaultPolicyRefusesLoopback(t *testing.T) {
	p := startPeer(t, testenv.GitOptions{})
	name, url := p.newRepo(t)
	s := newSink(t, &Backend{}, p.spec(url), p.creds)
	err := s.Write(context.Background(), snap(t, "team-a", 1, pod("team-a", "a", 1)))
	if !sink.IsPermanent(err) || !errors.Is(err, egress.ErrDenied) {
		t.Fatalf("write to a loopback peer under the default policy: %v, want a permanent egress.ErrDenied", err)
	}
	if err := s.Check(context.Background()); !sink.IsPermanent(err) || !errors.Is(err, egress.ErrDenied) {
		t.Fatalf("check of a loopback peer under the default policy: %v, want a permanent egress.ErrDenied", err)
	}
	if got := p.commits(t, name); got != nil {
		t.Fatalf("the refused write committed %v", got)
	}
	_, err = (&Backend{}).New(context.Background(), cfgFor(t, v1alpha1.KollectSnapshotSinkSpec{Type: "git", Endpoint: "file://" + p.g.Root + "/" + name + ".git"}), p.creds)
	if !sink.IsPermanent(err) || !errors.Is(err, egress.ErrDenied) {
		t.Fatalf("a file:// sink under the default policy: %v, want a permanent egress.ErrDenied", err)
	}
}

func TestCheck(t *testing.T) {
	p := startPeer(t, testenv.GitOptions{Username: "kollect", Password: "s3cret"})
	_, url := p.newRepo(t)
	if err := newSink(t, &Backend{Egress: allowLoopback}, p.spec(url), p.creds).Check(context.Background()); err != nil {
		t.Fatalf("check of an empty repository with good credentials: %v", err)
	}
	missing := p.spec(p.g.URL + "/missing.git")
	if err := newSink(t, &Backend{Egress: allowLoopback}, missing, p.creds).Check(context.Background()); !sink.IsPermanent(err) {
		t.Fatalf("check of a missing repository: %v, want a permanent error", err)
	}
}

func TestServerAndNetworkErrorsAreTransient(t *testing.T) {
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "try later", http.StatusServiceUnavailable)
	}))
	t.Cleanup(failing.Close)
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	tests := []struct{ name, endpoint string }{
		{"a 503 answer", failing.URL + "/repo.git"},
		{"a refused connection", closed.URL + "/repo.git"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSink(t, &Backend{Egress: allowLoopback}, v1alpha1.KollectSnapshotSinkSpec{Type: "git", Endpoint: tt.endpoint}, nil)
			err := s.Write(context.Background(), snap(t, "team-a", 1, pod("team-a", "a", 1)))
			if err == nil || sink.IsPermanent(err) {
				t.Fatalf("write: %v, want a transient error", err)
			}
			if err := s.Check(context.Background()); err == nil || sink.IsPermanent(err) {
				t.Fatalf("check: %v, want a transient error", err)
			}
		})
	}
}
