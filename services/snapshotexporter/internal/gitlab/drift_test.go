package gitlab

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/pkg/tree"
	"kollect.dev/kollect/pkg/tree/treetest"
)

func TestDrift(t *testing.T) {
	p := startPeer(t, testenv.GitLabOptions{})
	inv := busv1.NamespacedName{Namespace: "team-a", Name: "web"}
	for _, mode := range []string{"document", "perResource"} {
		var spec v1alpha1.KollectSnapshotSinkSpec
		setup := func(t *testing.T) (*Sink, *reader, sink.Snapshot, string) {
			project := p.newProject(t)
			spec = p.spec(project)
			spec.Layout = &v1alpha1.GitLayout{Mode: mode}
			s := newSink(t, Backend{Egress: allowLoopback}, spec, p.creds)
			first := snap(t, 3, pods("team-a", 4, 1)...)
			write(t, s, first)
			return s, p.newReader(t, project, spec, ""), first, project
		}
		damages := []struct {
			name, want string
			damage     func(t *testing.T, r *reader, project string)
		}{
			{"a file edited by hand", "changed", func(t *testing.T, r *reader, project string) {
				files, err := r.stateFiles("conformance", inv)
				if err != nil {
					t.Fatal(err)
				}
				p.gl.PutFile(t, project, "main", files[0], "edited: by hand\n")
			}},
			{"a file deleted by hand", "missing", func(t *testing.T, r *reader, project string) {
				files, err := r.stateFiles("conformance", inv)
				if err != nil {
					t.Fatal(err)
				}
				p.gl.DeleteFile(t, project, "main", files[0])
			}},
			{"the state file deleted by hand", "state file", func(t *testing.T, _ *reader, project string) {
				p.gl.DeleteFile(t, project, "main", tree.StatePath("conformance", inv))
			}},
		}
		for _, d := range damages {
			t.Run(mode+": "+d.name+" is drift, and a repair restores the files", func(t *testing.T) {
				s, r, first, project := setup(t)
				treetest.CheckDamage(t, s, r, first, func() { d.damage(t, r, project) }, d.want,
					func() sink.DriftChecker { return newSink(t, Backend{Egress: allowLoopback}, spec, p.creds) })
			})
		}
		t.Run(mode+": an unchanged branch costs one call and loads nothing", func(t *testing.T) {
			s, _, first, _ := setup(t)
			var loads atomic.Int64
			if reason := treetest.Drift(t, s, treetest.Counted(first, &loads)); reason != "" {
				t.Fatalf("drift: %q", reason)
			}
			p.gl.Requests() // forgets those so far
			if reason := treetest.Drift(t, s, treetest.Counted(first, &loads)); reason != "" {
				t.Fatalf("drift: %q", reason)
			}
			if got := p.gl.Requests(); len(got) != 1 {
				t.Errorf("the second check made the requests %q, want 1 (the branch)", got)
			}
			if n := loads.Load(); n != 0 {
				t.Errorf("the checks loaded the snapshot %d times, want 0: the sink knew the commit it made", n)
			}
		})
		t.Run(mode+": this sink's commit of another inventory keeps the mark", func(t *testing.T) {
			s, _, first, _ := setup(t)
			other := snap(t, 1, pods("team-a", 2, 1)...)
			other.Envelope.Inventory.Name = "db"
			write(t, s, other)
			var loads atomic.Int64
			if reason := treetest.Drift(t, s, treetest.Counted(first, &loads)); reason != "" {
				t.Fatalf("drift: %q", reason)
			}
			if n := loads.Load(); n != 0 {
				t.Errorf("the check loaded the snapshot %d times, want 0", n)
			}
		})
		t.Run(mode+": someone else's commit elsewhere is not drift", func(t *testing.T) {
			s, _, first, project := setup(t)
			p.gl.PutFile(t, project, "main", "team-b/other.yaml", "a: 1\n")
			if reason := treetest.Drift(t, s, first); reason != "" {
				t.Fatalf("drift after an unrelated commit: %q", reason)
			}
		})
	}
}

func TestAnswerLimit(t *testing.T) {
	huge := strings.Repeat(" ", maxAnswer+1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/v4/sized":
			_, _ = w.Write([]byte(huge)) // with a Content-Length
		case "/api/v4/streamed":
			w.Header().Set("Content-Type", "application/json")
			w.(http.Flusher).Flush() // no Content-Length: chunked
			_, _ = w.Write([]byte(`{"a":"` + huge + `"}`))
		}
	}))
	t.Cleanup(srv.Close)
	c := &client{http: allowLoopback.HTTPClient(nil), api: srv.URL + "/api/v4", project: "team/inventory", token: token}
	for _, path := range []string{"/sized", "/streamed"} {
		t.Run("an answer over 16 MiB is a permanent error naming the call: "+path, func(t *testing.T) {
			var raw []byte
			var out map[string]any
			for _, dst := range []any{&raw, &out} {
				_, err := c.do(context.Background(), request{method: http.MethodGet, path: path}, dst)
				if !sink.IsPermanent(err) || !strings.Contains(err.Error(), "larger than the read limit") ||
					!strings.Contains(err.Error(), path) {
					t.Fatalf("GET %s into %T returned %v, want a permanent error naming the call and the limit", path, dst, err)
				}
			}
		})
	}
}
