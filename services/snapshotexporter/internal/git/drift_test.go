package git

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/util"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/pkg/tree"
	"kollect.dev/kollect/pkg/tree/treetest"
)

func TestDrift(t *testing.T) {
	p := startPeer(t, testenv.GitOptions{Token: "tok"})
	inv := busv1.NamespacedName{Namespace: "team-a", Name: "web"}
	for _, mode := range []string{"document", "split", "perResource"} {
		var spec v1alpha1.KollectSnapshotSinkSpec
		setup := func(t *testing.T) (*Sink, *reader, sink.Snapshot) {
			_, url := p.newRepo(t)
			spec = p.spec(url)
			spec.Layout = &v1alpha1.GitLayout{Mode: mode}
			s := newSink(t, &Backend{Egress: allowLoopback}, spec, p.creds)
			first := snap(t, "team-a", 3, pods("team-a", 4, 1)...)
			write(t, s, first)
			return s, p.newReader(t, url, spec), first
		}
		damages := []struct {
			name, want string
			edit       func(fs billy.Filesystem) error
		}{
			{"a file edited by hand", "changed", func(fs billy.Filesystem) error {
				files, err := stateFiles(fs, "conformance", inv)
				if err != nil {
					return err
				}
				return util.WriteFile(fs, files[0], []byte("edited: by hand\n"), 0o644)
			}},
			{"a file deleted by hand", "missing", func(fs billy.Filesystem) error {
				files, err := stateFiles(fs, "conformance", inv)
				if err != nil {
					return err
				}
				return fs.Remove(files[0])
			}},
			{"the state file deleted by hand", "state file", func(fs billy.Filesystem) error {
				return fs.Remove(tree.StatePath("conformance", inv))
			}},
		}
		for _, d := range damages {
			t.Run(mode+": "+d.name+" is drift, and a repair restores the files", func(t *testing.T) {
				s, r, first := setup(t)
				treetest.CheckDamage(t, s, r, first, func() {
					if err := r.commit(context.Background(), d.name, d.edit); err != nil {
						t.Fatal(err)
					}
				}, d.want, func() sink.DriftChecker { return newSink(t, &Backend{Egress: allowLoopback}, spec, p.creds) })
			})
		}
		t.Run(mode+": another writer's commit that leaves the inventory alone is not drift, and loads nothing", func(t *testing.T) {
			s, r, first := setup(t)
			var loads atomic.Int64
			if reason := treetest.Drift(t, s, treetest.Counted(first, &loads)); reason != "" {
				t.Fatalf("drift before: %q", reason)
			}
			if err := r.commit(context.Background(), "another inventory", func(fs billy.Filesystem) error {
				return util.WriteFile(fs, "team-b/other.yaml", []byte("a: 1\n"), 0o644)
			}); err != nil {
				t.Fatal(err)
			}
			if reason := treetest.Drift(t, s, treetest.Counted(first, &loads)); reason != "" {
				t.Fatalf("drift after an unrelated commit: %q", reason)
			}
			if n := loads.Load(); n != 0 {
				t.Fatalf("the checks loaded the snapshot %d times, want 0: the mirror knew the files it pushed", n)
			}
		})
		t.Run(mode+": a newer revision on the branch is not drift", func(t *testing.T) {
			s, _, first := setup(t)
			write(t, s, snap(t, "team-a", 4, pods("team-a", 2, 2)...))
			if reason := treetest.Drift(t, s, first); reason != "" {
				t.Fatalf("drift of revision 3 under revision 4: %q", reason)
			}
		})
	}
}
