package git

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/util"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/sink/sinktest"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/pkg/tree"
)

// counted returns snap with its header only and a Load that counts the
// times the snapshot is loaded.
func counted(snap sink.Snapshot, loads *atomic.Int64) sink.Snapshot {
	full := snap.Envelope
	snap.Envelope.Items = nil
	snap.Load = func(context.Context) (busv1.Envelope, error) {
		loads.Add(1)
		return full, nil
	}
	return snap
}

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
		check := func(t *testing.T, s *Sink, snap sink.Snapshot) string {
			t.Helper()
			reason, err := s.Drift(context.Background(), snap)
			if err != nil {
				t.Fatalf("drift: %v", err)
			}
			return reason
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
				if reason := check(t, s, first); reason != "" {
					t.Fatalf("drift before the damage: %q", reason)
				}
				if err := r.commit(context.Background(), d.name, d.edit); err != nil {
					t.Fatal(err)
				}
				if reason := check(t, s, first); !strings.Contains(reason, d.want) {
					t.Fatalf("drift after the damage = %q, want a reason containing %q", reason, d.want)
				}
				repair := first
				repair.Repair = true
				write(t, s, repair)
				if reason := check(t, s, first); reason != "" {
					t.Fatalf("drift after the repair: %q", reason)
				}
				// A fresh sink (no mirror) sees the same: the content
				// equals a fresh export.
				fresh := newSink(t, &Backend{Egress: allowLoopback}, spec, p.creds)
				if reason := check(t, fresh, first); reason != "" {
					t.Fatalf("drift seen by a fresh sink after the repair: %q", reason)
				}
				got, found, err := r.Read(context.Background(), "conformance", inv)
				if err != nil || !found {
					t.Fatalf("read back after the repair: found %t, %v", found, err)
				}
				want := sinktest.Projection{Revision: 3, Checksum: first.Envelope.Checksum, Rows: first.Envelope.Items}
				if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
					t.Fatalf("after the repair the branch holds (-want +got):\n%s", d)
				}
			})
		}
		t.Run(mode+": another writer's commit that leaves the inventory alone is not drift, and loads nothing", func(t *testing.T) {
			s, r, first := setup(t)
			var loads atomic.Int64
			if reason := check(t, s, counted(first, &loads)); reason != "" {
				t.Fatalf("drift before: %q", reason)
			}
			if err := r.commit(context.Background(), "another inventory", func(fs billy.Filesystem) error {
				return util.WriteFile(fs, "team-b/other.yaml", []byte("a: 1\n"), 0o644)
			}); err != nil {
				t.Fatal(err)
			}
			if reason := check(t, s, counted(first, &loads)); reason != "" {
				t.Fatalf("drift after an unrelated commit: %q", reason)
			}
			if n := loads.Load(); n != 0 {
				t.Fatalf("the checks loaded the snapshot %d times, want 0: the mirror knew the files it pushed", n)
			}
		})
		t.Run(mode+": a newer revision on the branch is not drift", func(t *testing.T) {
			s, _, first := setup(t)
			write(t, s, snap(t, "team-a", 4, pods("team-a", 2, 2)...))
			if reason := check(t, s, first); reason != "" {
				t.Fatalf("drift of revision 3 under revision 4: %q", reason)
			}
		})
	}
}
