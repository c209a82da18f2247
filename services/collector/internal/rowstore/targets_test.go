package rowstore

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

func TestAStoreHoldsOnlyTheTargetsItLoads(t *testing.T) {
	ctx, n, kv := rowsBucket(t)
	writer := open(ctx, t, n, kv)
	cluster := busv1.Row{TargetName: "nodes", Name: "n1", UID: "u9", Version: "v1", Kind: "Node"}
	for _, r := range []busv1.Row{row("web", "u1", "a"), row("web", "u2", "b"), row("db", "u3", "c"), cluster} {
		if _, err := writer.Put(ctx, r, 1, nil); err != nil {
			t.Fatal(err)
		}
	}
	flush(ctx, t, writer)
	pub, err := NewPublisher(n.Conn, DefaultWindow, DefaultAckTimeout)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, kv, pub, Options{})
	if err != nil {
		t.Fatal(err)
	}
	counts := func() map[string]int {
		return map[string]int{"web": s.Count("team-a", "web"), "db": s.Count("team-a", "db"),
			"nodes": s.Count("", "nodes"), "total": s.Len()}
	}
	if diff := cmp.Diff(map[string]int{"web": 0, "db": 0, "nodes": 0, "total": 0}, counts()); diff != "" {
		t.Errorf("before any Load (-want +got):\n%s", diff)
	}
	web, nodes := busv1.NamespacedName{Namespace: "team-a", Name: "web"}, busv1.NamespacedName{Name: "nodes"}
	if err := s.Load(ctx, []busv1.NamespacedName{web, nodes}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]int{"web": 2, "db": 0, "nodes": 1, "total": 3}, counts()); diff != "" {
		t.Errorf("after loading web and nodes (-want +got):\n%s", diff)
	}
	if wrote, err := s.Put(ctx, row("web", "u1", "a"), 1, nil); err != nil || wrote {
		t.Errorf("Put of a loaded unchanged row = %v, %v; want no write", wrote, err)
	}
	s.Forget([]busv1.NamespacedName{web})
	if diff := cmp.Diff(map[string]int{"web": 0, "db": 0, "nodes": 1, "total": 1}, counts()); diff != "" {
		t.Errorf("after forgetting web (-want +got):\n%s", diff)
	}
	if keys := s.Keys("team-a", "web"); len(keys) != 0 {
		t.Errorf("Keys of a forgotten target = %v, want none", keys)
	}
	if err := s.Load(ctx, []busv1.NamespacedName{web}); err != nil {
		t.Fatal(err)
	}
	if got := s.Count("team-a", "web"); got != 2 {
		t.Errorf("a target loaded again counts %d rows, want 2", got)
	}
}
