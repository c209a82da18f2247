package rowstore

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nats-io/nats.go/jetstream"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/testenv"
)

func rowsBucket(t *testing.T) (context.Context, *testenv.NATS, jetstream.KeyValue) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	n := testenv.StartNATS(t)
	if err := bus.Provision(ctx, n.JS, bus.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	kv, err := n.JS.KeyValue(ctx, bus.BucketRows)
	if err != nil {
		t.Fatal(err)
	}
	return ctx, n, kv
}

// open opens a Store on kv that publishes through n's connection with the
// default window and ack timeout.
func open(ctx context.Context, t *testing.T, n *testenv.NATS, kv jetstream.KeyValue) *Store {
	t.Helper()
	pub, err := NewPublisher(n.Conn, DefaultWindow, DefaultAckTimeout)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, kv, pub, Options{All: true})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// flush waits until every write of s was acknowledged.
func flush(ctx context.Context, t *testing.T, s *Store) {
	t.Helper()
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
}

func row(target, uid, image string) busv1.Row {
	return busv1.Row{TargetNamespace: "team-a", TargetName: target, Namespace: "team-a", Name: "web-" + uid,
		UID: uid, Group: "apps", Version: "v1", Kind: "Deployment", Attributes: map[string]any{"image": image}}
}

func revisionOf(ctx context.Context, t *testing.T, kv jetstream.KeyValue, r busv1.Row) uint64 {
	t.Helper()
	e, err := kv.Get(ctx, bus.RowKey(r.Key()))
	if err != nil {
		t.Fatalf("get %s: %v", bus.RowKey(r.Key()), err)
	}
	return e.Revision()
}

func TestPutWritesOnlyChangedRows(t *testing.T) {
	ctx, n, kv := rowsBucket(t)
	s := open(ctx, t, n, kv)
	r := row("web", "u1", "nginx:1")
	if wrote, err := s.Put(ctx, r, 1, nil); err != nil || !wrote {
		t.Fatalf("first Put = %v, %v; want a write", wrote, err)
	}
	flush(ctx, t, s)
	rev := revisionOf(ctx, t, kv, r)
	if wrote, err := s.Put(ctx, row("web", "u1", "nginx:1"), 1, nil); err != nil || wrote {
		t.Fatalf("identical Put = %v, %v; want no write", wrote, err)
	}
	flush(ctx, t, s)
	if got := revisionOf(ctx, t, kv, r); got != rev {
		t.Errorf("identical Put changed the bucket revision from %d to %d", rev, got)
	}
	if wrote, err := s.Put(ctx, row("web", "u1", "nginx:2"), 1, nil); err != nil || !wrote {
		t.Fatalf("changed Put = %v, %v; want a write", wrote, err)
	}
}

func TestOpenLoadsWhatAnEarlierCollectorWrote(t *testing.T) {
	ctx, n, kv := rowsBucket(t)
	first := open(ctx, t, n, kv)
	for _, r := range []busv1.Row{row("web", "u1", "a"), row("web", "u2", "b"), row("db", "u3", "c")} {
		if _, err := first.Put(ctx, r, 1, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := first.Delete(ctx, row("web", "u2", "b").Key()); err != nil {
		t.Fatal(err)
	}

	flush(ctx, t, first)
	second := open(ctx, t, n, kv)
	if got := second.Len(); got != 2 {
		t.Errorf("reopened store holds %d rows, want 2 (the deleted row is a tombstone)", got)
	}
	if keys := second.Keys("team-a", "web"); len(keys) != 1 || keys[0].UID != "u1" {
		t.Errorf("Keys(team-a, web) = %v, want only u1", keys)
	}
	if wrote, err := second.Put(ctx, row("web", "u1", "a"), 2, nil); err != nil || wrote {
		t.Errorf("Put of an unchanged row after reopening = %v, %v; want no write", wrote, err)
	}
}

func TestDeleteRemovesTheRowOnce(t *testing.T) {
	ctx, n, kv := rowsBucket(t)
	s := open(ctx, t, n, kv)
	r := row("web", "u1", "a")
	if _, err := s.Put(ctx, r, 1, nil); err != nil {
		t.Fatal(err)
	}
	if deleted, err := s.Delete(ctx, r.Key()); err != nil || !deleted {
		t.Fatalf("Delete = %v, %v; want a delete", deleted, err)
	}
	flush(ctx, t, s)
	if _, err := kv.Get(ctx, bus.RowKey(r.Key())); err == nil {
		t.Error("the row is still in the bucket after Delete")
	}
	if deleted, err := s.Delete(ctx, r.Key()); err != nil || deleted {
		t.Errorf("second Delete = %v, %v; want nothing to do", deleted, err)
	}
}

func TestCountAndTargetsFollowPutsAndDeletes(t *testing.T) {
	ctx, n, kv := rowsBucket(t)
	s := open(ctx, t, n, kv)
	cluster := busv1.Row{TargetName: "nodes", Name: "n1", UID: "u9", Version: "v1", Kind: "Node"}
	for _, r := range []busv1.Row{row("web", "u1", "a"), row("web", "u2", "b"), row("db", "u3", "c"), cluster} {
		if _, err := s.Put(ctx, r, 1, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Put(ctx, row("web", "u1", "changed"), 1, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Delete(ctx, row("db", "u3", "c").Key()); err != nil {
		t.Fatal(err)
	}
	flush(ctx, t, s)
	reopened := open(ctx, t, n, kv)
	for name, st := range map[string]*Store{"the writing store": s, "a reopened store": reopened} {
		t.Run(name+" counts rows per target", func(t *testing.T) {
			got := map[string]int{"team-a/web": st.Count("team-a", "web"), "team-a/db": st.Count("team-a", "db"),
				"nodes": st.Count("", "nodes")}
			want := map[string]int{"team-a/web": 2, "team-a/db": 0, "nodes": 1}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("counts (-want +got):\n%s", diff)
			}
			targets := st.Targets()
			slices.SortFunc(targets, func(a, b busv1.NamespacedName) int { return strings.Compare(a.String(), b.String()) })
			if diff := cmp.Diff([]busv1.NamespacedName{{Name: "nodes"}, {Namespace: "team-a", Name: "web"}}, targets); diff != "" {
				t.Errorf("targets (-want +got):\n%s", diff)
			}
		})
	}
}
